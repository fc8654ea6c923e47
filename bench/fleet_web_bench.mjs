#!/usr/bin/env node
// Benchmark: the web fleet view (web/src/fleet.js) in headless Chromium with 4,096 SYNTHETIC rows, against a
// baseline of 64 rows measured in the same run. The daemon's /api/v1/fleet is answered by the benchmark (page
// route), so only the page is measured: load (fetch + parse + first render), a sort by a header, a filter
// keystroke, a scroll jump. Each figure is the median of the repeats, in ms, to the second animation frame after
// the action (the rows are on screen then).
//
//   node bench/fleet_web_bench.mjs --solscope build/dev/solscope [--chromium /usr/bin/chromium] [--repeats 15]
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = { chromium: '/usr/bin/chromium', repeats: '15' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];
if (!args.solscope) throw new Error('usage: --solscope BIN');

function fleet(n) {
  const rows = [];
  for (let i = 0; i < n; ++i) {
    const sol = (i * 37) % 100;
    rows.push({ host: `synthetic-${String(Math.floor(i / 8)).padStart(4, '0')}`, gpu: String(i % 8), uuid: `GPU-SYNTHETIC-${i}`,
                model_name: 'SYNTHETIC', job: `ns/job-${i % 50}`, series: 'solscope', compute_sol_pct: sol,
                memory_sol_pct: 50, gpu_util_pct: 90, compute_sol_mean_pct: sol, memory_sol_mean_pct: 50,
                gpu_util_mean_pct: 90, busy_idle_gpu_hours: sol < 20 ? 1 : 0, straggler_gap_pct: sol - 50,
                straggler: sol < 40 });
  }
  return JSON.stringify({ source: 'SYNTHETIC', window_start_ns: 0, window_end_ns: 3.6e12, step_ns: 15e9,
                          refreshed_ns: Date.now() * 1e6, refresh_s: 3600, notes: [],
                          totals: { gpus: n, compute_sol_mean_pct: 49.5, busy_idle_gpu_hours: 1, stragglers: 0 }, rows });
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

async function measure(browser, url, n, repeats) {
  const body = fleet(n);
  const out = { load: [], sort: [], filter: [], scroll: [] };
  for (let r = 0; r < repeats; ++r) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.route('**/api/v1/fleet', (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
    await page.goto(`${url}/fleet.html`);
    await page.waitForSelector('#fleet-body tr[data-host]');
    out.load.push(await page.evaluate(() => {
      const nav = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api/v1/fleet'));
      return performance.now() - (nav ? nav.startTime : 0);
    }));
    out.sort.push(await page.evaluate(async () => {
      const t0 = performance.now();
      document.querySelector('th[data-col="compute_sol_mean_pct"] button').click();
      await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      return performance.now() - t0;
    }));
    out.filter.push(await page.evaluate(async () => {
      const input = document.querySelector('#filter');
      const t0 = performance.now();
      input.value = 'job-1';
      input.dispatchEvent(new Event('input'));
      await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      return performance.now() - t0;
    }));
    await page.evaluate(() => {
      const input = document.querySelector('#filter');
      input.value = '';
      input.dispatchEvent(new Event('input'));
    });
    out.scroll.push(await page.evaluate(async () => {
      const s = document.querySelector('#fleet-scroll');
      await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      const t0 = performance.now();
      s.scrollTop = s.scrollHeight / 2;
      s.dispatchEvent(new Event('scroll'));
      await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      return performance.now() - t0;
    }));
    await context.close();
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, median(v)]));
}

async function main() {
  const require = createRequire(import.meta.url);
  const { chromium } = require(path.join(root, 'web/node_modules/playwright-core'));
  if (!existsSync(args.chromium)) throw new Error(`${args.chromium} is not installed`);
  // The daemon only serves the page: its Prometheus (port 1) is never asked, the route answers instead.
  const proc = spawn(args.solscope, ['serve', '--listen', '127.0.0.1:0', '--prometheus', 'http://127.0.0.1:1'],
                     { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise((resolve, reject) => {
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (c) => { err += c; const m = /listening on (http:\/\/[0-9.:]+)/.exec(err); if (m) resolve(m[1]); });
    proc.on('exit', () => reject(new Error(err)));
  });
  const browser = await chromium.launch({ executablePath: args.chromium, headless: true,
                                          args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const repeats = Number(args.repeats);
    const base = await measure(browser, url, 64, repeats);
    const big = await measure(browser, url, 4096, repeats);
    console.log(`fleet page, median of ${repeats} (ms): rows   load   sort  filter  scroll`);
    for (const [n, m] of [[64, base], [4096, big]]) {
      console.log(`${String(n).padStart(38)} ${m.load.toFixed(1).padStart(6)} ${m.sort.toFixed(1).padStart(6)} ` +
                  `${m.filter.toFixed(1).padStart(7)} ${m.scroll.toFixed(1).padStart(7)}`);
    }
    console.log(`ratio 4096/64: load ${(big.load / base.load).toFixed(2)}x, sort ${(big.sort / base.sort).toFixed(2)}x, ` +
                `filter ${(big.filter / base.filter).toFixed(2)}x, scroll ${(big.scroll / base.scroll).toFixed(2)}x`);
  } finally {
    await browser.close();
    proc.kill('SIGTERM');
  }
}

main().catch((e) => { console.error(e.stack || e); process.exit(1); });
