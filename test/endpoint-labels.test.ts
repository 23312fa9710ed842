import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RubricJudge, type JudgeSettings } from '../src/llm/judge.js';
import { TeacherCache } from '../src/llm/cache.js';
import { newCounters } from '../src/llm/errors.js';
import { OpenAiTeacher } from '../src/teacher/openai.js';
import type { EndpointSettings } from '../src/llm/client.js';
import { runModel, type RunModelOptions } from '../src/eval/model.js';

// Every endpoint client names itself and the setting of its key: a judge's or an evaluated model's
// missing key used to be reported as the teacher's (`teacher.api_key_env`, `--teacher-key-env`).

const UNSET = 'HSA_LABELS_TEST_UNSET_KEY';
const remote: EndpointSettings = { baseUrl: 'http://192.0.2.1/v1', model: 'm', apiKeyEnv: UNSET, timeoutMs: 1000, maxRetries: 0 };
const cacheDir = () => mkdtempSync(path.join(tmpdir(), 'hsa-labels-'));

describe('endpoint labels in key errors', () => {
  delete process.env[UNSET];
  it('the teacher keeps its own setting and flag', () => {
    expect(() => new OpenAiTeacher(remote, new TeacherCache(cacheDir()), { requireCache: false, counters: newCounters() })).toThrow(
      `teacher.api_key_env: the variable ${UNSET} is not set, and http://192.0.2.1/v1 is not a loopback address, so a key is needed (set ${UNSET}, or name another variable with --teacher-key-env)`,
    );
  });
  it('a judge names judge.api_key_env (teacher.judge.api_key_env inside hsa.yaml) and no flag', () => {
    const settings = { endpoint: remote, rubric: { criteria: [] }, votes: 1, aggregate: 'mean', evidence: 'none' } as unknown as JudgeSettings;
    expect(() => new RubricJudge(settings, cacheDir(), newCounters())).toThrow(`judge.api_key_env: the variable ${UNSET} is not set`);
    expect(() => new RubricJudge(settings, cacheDir(), newCounters())).toThrow(`(set ${UNSET})`);
    expect(() => new RubricJudge(settings, cacheDir(), newCounters(), false, 'teacher.judge.api_key_env')).toThrow(/^teacher\.judge\.api_key_env: /);
  });
  it('the evaluated model (hsa eval) names model.api_key_env and --key-env', async () => {
    const run = runModel([], remote, { concurrency: 1, cacheDir: cacheDir() } as unknown as RunModelOptions);
    await expect(run).rejects.toThrow(`model.api_key_env: the variable ${UNSET} is not set`);
    await expect(runModel([], remote, { concurrency: 1, cacheDir: cacheDir() } as unknown as RunModelOptions)).rejects.toThrow(
      'or name another variable with --key-env)',
    );
  });
});
