// Preloaded into an hsa child process by scripts/bench.mjs (`node --import <this> bin/hsa …`):
// on exit, writes the process's peak resident set size and CPU time to $HSA_BENCH_RSS_FILE as JSON.
// process.resourceUsage() is process-wide, so worker threads are included; child processes are not.
import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.HSA_BENCH_RSS_FILE;
if (file && isMainThread) {
  process.on('exit', (code) => {
    const u = process.resourceUsage();
    try {
      writeFileSync(file, JSON.stringify({ maxRSS_kb: u.maxRSS, user_us: u.userCPUTime, system_us: u.systemCPUTime, code }));
    } catch {
      /* the bench reports a missing file */
    }
  });
}
