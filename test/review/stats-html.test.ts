import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runHsa } from '../helpers/hsa.js';
import { removeTempDirs } from '../helpers/tmp.js';
import { smallRun, type SmallRun } from './setup.js';

const CHROMIUM = '/usr/bin/chromium';

describe('hsa stats', () => {
  let run: SmallRun;
  beforeAll(async () => {
    run = await smallRun({ records: 24 });
  });
  afterAll(removeTempDirs);

  it('--json is one document whose counts equal the manifest', () => {
    const r = runHsa(['stats', run.out, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const m = JSON.parse(readFileSync(path.join(run.out, 'manifest.json'), 'utf8'));
    for (const s of ['sft', 'opd', 'rl', 'rejects']) {
      expect(doc.stages[s].records).toBe(m.stages[s].records);
      expect(doc.stages[s].parts.map((p: { records: number }) => p.records)).toEqual(m.stages[s].files.map((f: { records: number }) => f.records));
    }
    expect(doc.counts_match_manifest).toBe(true);
    expect(doc.variants).toBe(m.totals.variants_written);
    expect(doc.rejects.by_reason).toEqual(m.reject_reasons);
    // Every transform count is a count of variants, and renamed identifiers have new names.
    for (const t of Object.values<{ applied: number }>(doc.transforms)) expect(t.applied).toBeLessThanOrEqual(doc.variants);
    const tools = Object.values<{ distinct_new_names: number; renamed: number }>(doc.names.tools);
    expect(tools.length).toBeGreaterThan(0);
    for (const d of tools) expect(d.distinct_new_names).toBeGreaterThanOrEqual(1);
    expect(doc.sizes.sft.messages.count).toBe(m.stages.sft.records);
    const intents = Object.values<{ sources: number; variants: number }>(doc.coverage.intents);
    expect(intents.reduce((n, c) => n + c.variants, 0)).toBe(m.totals.variants_written);
    expect(intents.reduce((n, c) => n + c.sources, 0)).toBe(m.totals.valid_records);
  });

  it('the HTML report renders its charts in headless Chromium, with nothing fetched and no console errors', async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install chromium (apt-get install -y chromium; .ci/run does this in CI)`);
    const html = path.join(run.dir, 'report.html');
    const r = runHsa(['stats', run.out, '--html', html, '-q']);
    expect(r.code).toBe(0);
    const text = readFileSync(html, 'utf8');
    // Self-contained: no external resource of any kind.
    expect(text).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)=/i);
    expect(text).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    const profile = mkdtempSync(path.join(tmpdir(), 'hsa-chromium-'));
    // A fresh profile folder (playwright passes it as --user-data-dir).
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1400, height: 900 },
    });
    try {
      const page = await browser.newPage();
      const consoleErrors: string[] = [];
      const requests: string[] = [];
      const failed: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => consoleErrors.push(e.message));
      page.on('request', (q) => requests.push(q.url()));
      page.on('requestfailed', (q) => failed.push(q.url()));
      await page.goto(`file://${html}`, { waitUntil: 'load' });
      const charts = await page.$$eval('svg.chart', (els) =>
        els.map((e) => ({
          w: e.getBoundingClientRect().width,
          h: e.getBoundingClientRect().height,
          bars: e.querySelectorAll('rect.bar').length,
          label: e.getAttribute('aria-label'),
        })),
      );
      expect(charts.length).toBeGreaterThanOrEqual(8);
      for (const c of charts) {
        expect(c.w).toBeGreaterThan(100);
        expect(c.h).toBeGreaterThan(30);
      }
      // Bars are drawn with non-zero size (the charts with data have at least one visible bar).
      const barSizes = await page.$$eval('rect.bar', (els) => els.map((e) => e.getBoundingClientRect().width * e.getBoundingClientRect().height));
      expect(barSizes.filter((a) => a > 0).length).toBeGreaterThan(50);
      expect(charts.find((c) => c.label === 'records')!.bars).toBe(4);
      expect(consoleErrors).toEqual([]);
      expect(failed).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
      mkdirSync(path.join(REPO, 'test-results'), { recursive: true });
      await page.screenshot({ path: path.join(REPO, 'test-results', 'stats-report.png'), fullPage: true });
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
