import { stringify } from 'yaml';
import { DO_NOT_RETRY } from './shard.js';

/** What an emitted job needs: where the config and output are (absolute), how many shards, how to call hsa. */
export interface EmitSpec {
  /** The config file as the job sees it. */
  config: string;
  /** The output folder the config names, as the job sees it (`hsa merge` runs on it). */
  out: string;
  /** The folder the job runs in (and, on Kubernetes, where the shared volume is mounted). */
  workdir: string;
  shards: number;
  /** The hsa command, split into words (default `hsa`). */
  hsa: string[];
  /** A name prefix for the jobs. */
  name: string;
}

/** One emitted file: its name and text. */
export interface EmittedFile {
  name: string;
  text: string;
  executable?: boolean;
}

/** Quote a word for a POSIX shell. */
function sh(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const line = (words: string[]) => words.map(sh).join(' ');

/**
 * An sbatch array script (one task per shard, the index passed explicitly so a partial
 * resubmission with `--array=3,5` still writes shards 3 and 5), the merge script, and a submit
 * script that chains them with `--dependency=afterok`.
 */
export function slurmFiles(s: EmitSpec): EmittedFile[] {
  const augment = `${line([...s.hsa, 'augment', '--config', s.config, '--num-shards', String(s.shards)])} --shard-index "$SLURM_ARRAY_TASK_ID" -q`;
  const header = (job: string, extra: string[]) => [
    '#!/bin/bash',
    `#SBATCH --job-name=${s.name}-${job}`,
    ...extra,
    `#SBATCH --chdir=${s.workdir}`,
    `#SBATCH --output=${s.workdir}/${s.name}-${job}-%A${job === 'augment' ? '_%a' : ''}.log`,
    'set -euo pipefail',
  ];
  return [
    {
      name: `${s.name}-augment.sbatch`,
      text: [
        ...header('augment', [`#SBATCH --array=0-${s.shards - 1}`, '#SBATCH --ntasks=1']),
        `# Shard $SLURM_ARRAY_TASK_ID of ${s.shards}: exit 0 done, ${DO_NOT_RETRY} do not retry (bad input or config), anything else: resubmit that task.`,
        `exec ${augment}`,
        '',
      ].join('\n'),
    },
    {
      name: `${s.name}-merge.sbatch`,
      text: [...header('merge', ['#SBATCH --ntasks=1']), `exec ${line([...s.hsa, 'merge', s.out])}`, ''].join('\n'),
    },
    {
      name: `${s.name}-submit.sh`,
      executable: true,
      text: [
        '#!/bin/sh',
        `# Submit the ${s.shards} shards, then the merge once every one of them exited 0.`,
        "# Arguments go to the merge's sbatch (--wait blocks until the merge ends and exits with its code).",
        'set -eu',
        'here=$(cd "$(dirname "$0")" && pwd)',
        `array=$(sbatch --parsable "$here/${s.name}-augment.sbatch")`,
        'array=${array%%;*}',
        'echo "shards: job $array" >&2',
        `exec sbatch --parsable --dependency=afterok:"$array" "$@" "$here/${s.name}-merge.sbatch"`,
        '',
      ].join('\n'),
    },
  ];
}

/** The Kubernetes Job objects: an Indexed Job with one index per shard, and the merge Job. */
export function k8sObjects(s: EmitSpec & { image: string; claim: string; backoffLimitPerIndex: number; parallelism: number }): {
  augment: Record<string, unknown>;
  merge: Record<string, unknown>;
} {
  const labels = { 'app.kubernetes.io/name': 'hsa', 'app.kubernetes.io/part-of': s.name };
  const pod = (args: string[]) => ({
    restartPolicy: 'Never',
    containers: [
      {
        name: 'hsa',
        image: s.image,
        command: s.hsa,
        args,
        workingDir: s.workdir,
        volumeMounts: [{ name: 'work', mountPath: s.workdir }],
      },
    ],
    // The shards write parts into one folder: the claim must be ReadWriteMany (NFS, CephFS, EFS…).
    volumes: [{ name: 'work', persistentVolumeClaim: { claimName: s.claim } }],
  });
  const augment = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `${s.name}-augment`, labels },
    spec: {
      completionMode: 'Indexed',
      completions: s.shards,
      parallelism: s.parallelism,
      backoffLimitPerIndex: s.backoffLimitPerIndex,
      podFailurePolicy: {
        rules: [
          // Bad input or config: the same shard would fail the same way, so its index fails now.
          { action: 'FailIndex', onExitCodes: { containerName: 'hsa', operator: 'In', values: [DO_NOT_RETRY] } },
          // A pod evicted or preempted did nothing wrong: retried without counting.
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        ],
      },
      template: { metadata: { labels }, spec: pod(['augment', '--config', s.config, '--num-shards', String(s.shards), '-q']) },
    },
  };
  const merge = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `${s.name}-merge`, labels },
    spec: { backoffLimit: 2, template: { metadata: { labels }, spec: pod(['merge', s.out]) } },
  };
  return { augment, merge };
}

/** The two Kubernetes manifests as YAML files (applied one after the other; see docs/scale.md). */
export function k8sFiles(s: Parameters<typeof k8sObjects>[0]): EmittedFile[] {
  const { augment, merge } = k8sObjects(s);
  return [
    { name: `${s.name}-augment-job.yaml`, text: stringify(augment, { lineWidth: 0, aliasDuplicateObjects: false }) },
    { name: `${s.name}-merge-job.yaml`, text: stringify(merge, { lineWidth: 0, aliasDuplicateObjects: false }) },
  ];
}
