import { it } from 'vitest';
import { memorising } from './helpers/eval-models.js';
import { runHsaAsync } from './helpers/hsa.js';
import { startTeacherServer } from './helpers/teacher-server.js';
it('x', async () => {
  const s = await startTeacherServer(memorising(['/tmp/ev/set/rl/part-00000.jsonl']));
  const r = await runHsaAsync(['eval', '--set', '/tmp/ev/set', '--model-url', s.url, '--model', 'm', '--cache', '/tmp/ev/c', '--tokenizer', 'estimate', '--html', '/tmp/ev/r.html']);
  console.log(r.stdout, r.stderr);
  await s.close();
}, 60000);
