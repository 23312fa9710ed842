#!/usr/bin/env bash
# A single-node Slurm on this machine for the tests: munged, slurmctld and slurmd (controller and one
# node on localhost), state under $HSA_SLURM_DIR (default /tmp/hsa-slurm). Needs root and Debian's
# slurm-wlm + munge (installed when absent). `start` prints the SLURM_CONF to export; `stop` ends
# exactly the daemons `start` began (by their pid files).
set -euo pipefail
DIR=${HSA_SLURM_DIR:-/tmp/hsa-slurm}
CONF=$DIR/slurm.conf

install() {
  if command -v sbatch >/dev/null && command -v slurmctld >/dev/null && command -v munged >/dev/null; then return; fi
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  # On stderr: stdout carries only the export line that callers eval.
  $SUDO apt-get update >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends slurm-wlm munge >&2
}

stop_pid() {
  local file=$1
  [ -f "$file" ] || return 0
  local pid
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$file"
}

start() {
  install
  stop >/dev/null 2>&1 || true
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/munge" "$DIR/log"
  local host cpus
  host=$(hostname -s)
  cpus=$(nproc)
  cat >"$CONF" <<CONF
ClusterName=hsa-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# A pass every second, so a dependent merge starts as soon as the array is done.
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
ReturnToService=2
SlurmctldPort=${HSA_SLURMCTLD_PORT:-16817}
SlurmdPort=${HSA_SLURMD_PORT:-16818}
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=300
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  # Its own munged (socket, key, pid under $DIR), so a system munged is neither needed nor touched.
  if [ ! -f "$DIR/munge/munge.key" ]; then
    if [ -r /etc/munge/munge.key ]; then cp /etc/munge/munge.key "$DIR/munge/munge.key"; else dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1 count=1024 status=none; fi
    chmod 600 "$DIR/munge/munge.key"
  fi
  chmod 700 "$DIR/munge"
  munged --force --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/munge.socket" --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/munge.seed"
  export SLURM_CONF=$CONF
  slurmctld -f "$CONF"
  slurmd -f "$CONF"
  # Ready when the node takes jobs.
  for _ in $(seq 150); do
    if sinfo -h -o '%t' 2>/dev/null | grep -Eq '^(idle|mix|alloc)'; then
      echo "export SLURM_CONF=$CONF"
      return 0
    fi
    sleep 0.2
  done
  echo "slurm-local: the node did not come up; logs in $DIR/log" >&2
  tail -n 20 "$DIR"/log/*.log >&2 || true
  return 1
}

stop() {
  stop_pid "$DIR/slurmd.pid"
  stop_pid "$DIR/slurmctld.pid"
  stop_pid "$DIR/munge/munged.pid"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
