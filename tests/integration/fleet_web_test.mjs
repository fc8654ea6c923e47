#!/usr/bin/env node
// Integration test: the fleet view of `solscope serve --prometheus URL` in headless Chromium (playwright-core),
// against the real Prometheus server backfilled with `promtool tsdb create-blocks-from openmetrics`.
//
//   node fleet_web_test.mjs --solscope BIN --workdir DIR [--prometheus /usr/bin/prometheus]
//                           [--promtool /usr/bin/promtool] [--chromium /usr/bin/chromium]
//                           [--screenshot docs/screenshots/fleet.png]
//
// The fixture is SYNTHETIC (no GPU measured it) and generated here, because the fleet window ends now: 75 min of
// constant figures every 15 s up to now, for node-a (solscope's own series, 3 GPUs; GPU 2 busy but idle, a
// straggler of its host) and node-b (dcgm-exporter's series, 2 GPUs of one job). Expected figures are computed
// from the fixture here, not read from solscope.
// Part 1: the table shows 5 rows whose figures equal the fixture's, the totals, the busy-idle and straggler
// highlights; sorting by a column header (both directions); the filter box; a click opens the GPU's history
// (uPlot chart with the API's points); the dashboard at / links the fleet view. No request leaves the daemon's
// origin; no console error. Part 2: 4,096 SYNTHETIC rows (the page's fetch answered by the test): only the rows
// in view are in the DOM, the last row is reachable by scrolling, sorting works. Part 3: a Prometheus that does
// not answer: the page shows the daemon's 503 and its message. Part 4: a daemon with --token-file: the page asks
// for the token, then shows the fleet.
// Exit status: 0 pass, 1 fail (with the reason), 77 skip (a tool missing).
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SKIP = 77;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const kStepS = 15;
const kSpanS = 75 * 60;

class Failure extends Error {}
const check = (cond, message) => { if (!cond) throw new Failure(message); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const near = (a, b, tol = 1e-6) => typeof a === 'number' && Math.abs(a - b) <= tol;

function parseArgs() {
  const out = { prometheus: '/usr/bin/prometheus', promtool: '/usr/bin/promtool', chromium: '/usr/bin/chromium' };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  if (!out.solscope || !out.workdir) throw new Error('usage: --solscope BIN --workdir DIR');
  return out;
}

// ---------------------------------------------------------------- the SYNTHETIC fleet
// Ratios 0-1 as both exporters write them, except dcgm-exporter's utilization (a percent).
const kFleet = [
  { host: 'node-a', gpu: '0', kind: 'solscope', compute: 0.62, memory: 0.41, util: 0.97 },
  { host: 'node-a', gpu: '1', kind: 'solscope', compute: 0.55, memory: 0.35, util: 0.93 },
  { host: 'node-a', gpu: '2', kind: 'solscope', compute: 0.05, memory: 0.10, util: 0.95 },
  { host: 'node-b', gpu: '0', kind: 'dcgm', pipes: { TENSOR: 0.40, FP32: 0.10, FP64: 0, FP16: 0.05 }, dram: 0.30,
    util: 80 },
  { host: 'node-b', gpu: '1', kind: 'dcgm', pipes: { TENSOR: 0.45, FP32: 0.20, FP64: 0, FP16: 0 }, dram: 0.50,
    util: 99 },
];

// The figures the page must show, from the fixture alone (definitions: src/fleet/fleet_math.hpp and
// fleet_queries.cpp): Compute SOL = the busiest pipe for dcgm-exporter; busy-idle = utilization > 80 % and
// Compute SOL < 20 %; straggler = more than 10 points below the median Compute SOL mean of its job, or of its
// host when it has no job.
function expectedRows() {
  const rows = kFleet.map((g) => {
    const compute = g.kind === 'solscope' ? g.compute * 100 : Math.max(...Object.values(g.pipes)) * 100;
    const memory = g.kind === 'solscope' ? g.memory * 100 : g.dram * 100;
    const util = g.kind === 'solscope' ? g.util * 100 : g.util;
    return { host: g.host, gpu: g.gpu, series: g.kind, compute, memory, util, busyIdle: util > 80 && compute < 20,
             group: g.kind === 'dcgm' ? 'job:train/job-1' : `host:${g.host}` };
  });
  for (const r of rows) {
    const others = rows.filter((o) => o.group === r.group).map((o) => o.compute).sort((a, b) => a - b);
    const mid = others.length / 2;
    const median = others.length % 2 ? others[Math.floor(mid)] : (others[mid - 1] + others[mid]) / 2;
    r.gap = r.compute - median;
    r.straggler = r.gap < -10;
  }
  return rows;
}

function openMetrics(nowS) {
  const first = Math.floor((nowS - kSpanS) / kStepS) * kStepS;
  const stamps = [];
  for (let t = first; t <= nowS - 1; t += kStepS) stamps.push(t);
  const families = new Map();
  const add = (name, labels, value) => {
    if (!families.has(name)) families.set(name, []);
    const text = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(',');
    families.get(name).push(stamps.map((t) => `${name}{${text}} ${value} ${t}`).join('\n'));
  };
  for (const g of kFleet) {
    if (g.kind === 'solscope') {
      // The labels of solscope's /metrics (docs/http-api.md): hostname, gpu, UUID, modelName.
      const labels = { hostname: g.host, gpu: g.gpu, UUID: `GPU-SYNTHETIC-${g.host}-${g.gpu}`,
                       modelName: 'SYNTHETIC GPU' };
      add('solscope_compute_sol_ratio', labels, g.compute);
      add('solscope_memory_sol_ratio', labels, g.memory);
      add('solscope_gpu_utilization_ratio', labels, g.util);
    } else {
      const labels = { Hostname: g.host, gpu: g.gpu, UUID: `GPU-SYNTHETIC-${g.host}-${g.gpu}`,
                       modelName: 'SYNTHETIC GPU', namespace: 'train', pod: 'job-1' };
      for (const [pipe, v] of Object.entries(g.pipes)) add(`DCGM_FI_PROF_PIPE_${pipe}_ACTIVE`, labels, v);
      add('DCGM_FI_PROF_DRAM_ACTIVE', labels, g.dram);
      add('DCGM_FI_DEV_GPU_UTIL', labels, g.util);
    }
  }
  let out = '';
  for (const [name, series] of families) out += `# TYPE ${name} gauge\n${series.join('\n')}\n`;
  return { text: `${out}# EOF\n`, points: stamps.length };
}

// ---------------------------------------------------------------- processes
function freePort() {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
  });
}

async function startPrometheus(args, workdir) {
  const nowS = Math.floor(Date.now() / 1000);
  const fixture = openMetrics(nowS);
  const file = path.join(workdir, 'synthetic-fleet.om');
  writeFileSync(file, fixture.text);
  const tsdb = path.join(workdir, 'tsdb');
  rmSync(tsdb, { recursive: true, force: true });
  execFileSync(args.promtool, ['tsdb', 'create-blocks-from', 'openmetrics', file, tsdb], { stdio: 'pipe' });
  const config = path.join(workdir, 'prometheus.yml');
  writeFileSync(config, 'global:\n  scrape_interval: 15s\nscrape_configs: []\n');
  const port = await freePort();
  const proc = spawn(args.prometheus, [`--config.file=${config}`, `--storage.tsdb.path=${tsdb}`,
                                       `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
                     { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (c) => { log += c; });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; ++i) {
    check(proc.exitCode === null, `prometheus exited with ${proc.exitCode}:\n${log}`);
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch (err) { /* not up yet */ }
    await sleep(300);
  }
  const res = await (await fetch(`${url}/api/v1/query?query=count(solscope_compute_sol_ratio)`)).json();
  check(res.status === 'success' && res.data.result.length === 1 && res.data.result[0].value[1] === '3',
        `prometheus does not hold the backfilled fixture: ${JSON.stringify(res)}\n${log}`);
  return { url, proc, points: fixture.points, stop: () => proc.kill('SIGTERM') };
}

async function startDaemon(solscope, extra) {
  const proc = spawn(solscope, ['serve', '--listen', '127.0.0.1:0', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Failure(`no 'listening on' line within 30 s:\n${stderr}`)), 30000);
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk) => {
      stderr += chunk;
      const m = /listening on (https?:\/\/[0-9.]+:[0-9]+)/.exec(stderr);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.on('exit', (code) => reject(new Failure(`solscope serve exited (${code}) before listening:\n${stderr}`)));
  });
  proc.removeAllListeners('exit');
  return {
    url, log: () => stderr,
    async stop() {
      if (proc.exitCode !== null) return proc.exitCode;
      const exited = new Promise((r) => proc.on('exit', (code) => r(code)));
      proc.kill('SIGTERM');
      const code = await Promise.race([exited, sleep(15000).then(() => 'timeout')]);
      if (code === 'timeout') proc.kill('SIGKILL');
      return code;
    },
  };
}

async function newPage(browser, origin, problems) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    if (!req.url().startsWith(origin) && !req.url().startsWith('data:')) problems.push(`request left: ${req.url()}`);
  });
  return { context, page };
}

// The rows in the DOM: host, gpu, classes and each cell's data-value.
const domRows = (page) => page.evaluate(() => [...document.querySelectorAll('#fleet-body tr[data-host]')].map((tr) => ({
  host: tr.dataset.host, gpu: tr.dataset.gpu, busyIdle: tr.classList.contains('busy-idle'),
  straggler: tr.classList.contains('straggler'),
  cells: Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.col, td.dataset.value])),
  text: Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.col, td.textContent])),
})));
// The page renders rows on the next animation frame: waits (up to 5 s) until they match.
async function settled(page, predicate, what) {
  for (let i = 0; i < 50; ++i) {
    if (predicate(await domRows(page))) return;
    await sleep(100);
  }
  throw new Failure(`${what}: ${JSON.stringify((await domRows(page)).map((r) => `${r.host}/${r.gpu}`))}`);
}
const firstIs = (page, key, what) => settled(page, (rows) => rows.length && `${rows[0].host}/${rows[0].gpu}` === key,
                                             `${what}: want ${key} first, rows`);
const num = (v) => (v === '' ? null : Number(v));

// ---------------------------------------------------------------- part 1: the backfilled fleet
async function fleetPart(browser, args, prom) {
  const daemon = await startDaemon(args.solscope, ['--prometheus', prom.url, '--since', '1h']);
  const problems = [];
  try {
    const { context, page } = await newPage(browser, daemon.url, problems);
    await page.goto(`${daemon.url}/fleet.html`);
    await page.waitForSelector('body[data-state="live"]', { timeout: 30000 });
    check(await page.getAttribute('#fleet-table', 'data-rows') === '5',
          `rows: ${await page.getAttribute('#fleet-table', 'data-rows')}, want 5\n${daemon.log()}`);
    const want = expectedRows();
    const rows = await domRows(page);
    check(rows.length === 5, `DOM rows: ${rows.length}, want 5`);
    for (const w of want) {
      const r = rows.find((x) => x.host === w.host && x.gpu === w.gpu);
      check(r, `no row for ${w.host}/${w.gpu}`);
      const c = r.cells;
      for (const [col, v] of [['compute_sol_pct', w.compute], ['compute_sol_mean_pct', w.compute],
                              ['memory_sol_pct', w.memory], ['memory_sol_mean_pct', w.memory],
                              ['gpu_util_pct', w.util], ['gpu_util_mean_pct', w.util],
                              ['straggler_gap_pct', w.gap]]) {
        check(near(num(c[col]), v), `${w.host}/${w.gpu} ${col}: ${c[col]}, want ${v}`);
      }
      const hours = num(c.busy_idle_gpu_hours);
      // Busy but idle over the whole 1 h window: one GPU-hour (one 15 s step either side allowed).
      check(w.busyIdle ? hours >= 1 - 15 / 3600 - 1e-9 && hours <= 1 + 15 / 3600 + 1e-9 : hours === 0,
            `${w.host}/${w.gpu} busy-idle GPU-h: ${hours}, want ${w.busyIdle ? 'about 1' : 0}`);
      check(r.cells.series === w.series, `${w.host}/${w.gpu} series: ${r.cells.series}, want ${w.series}`);
      check(r.busyIdle === w.busyIdle, `${w.host}/${w.gpu} busy-idle highlight: ${r.busyIdle}`);
      check(r.straggler === w.straggler, `${w.host}/${w.gpu} straggler highlight: ${r.straggler}`);
      check(r.text.compute_sol_pct === `${w.compute.toFixed(1)}\u202f%`,
            `${w.host}/${w.gpu} shown Compute SOL: ${r.text.compute_sol_pct}`);
    }
    const meanSol = want.reduce((a, r) => a + r.compute, 0) / want.length;
    check(await page.getAttribute('#total-gpus', 'data-value') === '5', 'total GPUs');
    check(near(num(await page.getAttribute('#total-sol', 'data-value')), meanSol),
          `mean Compute SOL: ${await page.getAttribute('#total-sol', 'data-value')}, want ${meanSol}`);
    const busyRow = rows.find((x) => x.host === 'node-a' && x.gpu === '2');
    check(near(num(await page.getAttribute('#total-busy-idle', 'data-value')), num(busyRow.cells.busy_idle_gpu_hours)),
          'total busy-idle GPU-h is not the one busy-idle GPU\'s');
    check(await page.getAttribute('#total-stragglers', 'data-value') === '1', 'stragglers: want 1');

    // Sorting by a header: highest first, then lowest first; text columns A-Z first.
    await page.click('th[data-col="compute_sol_mean_pct"] button');
    await firstIs(page, 'node-a/0', 'sorted by Compute SOL mean (desc)');
    check(await page.getAttribute('th[data-col="compute_sol_mean_pct"]', 'aria-sort') === 'descending', 'aria-sort');
    await page.click('th[data-col="compute_sol_mean_pct"] button');
    await firstIs(page, 'node-a/2', 'sorted by Compute SOL mean (asc)');
    await page.click('th[data-col="busy_idle_gpu_hours"] button');
    await firstIs(page, 'node-a/2', 'sorted by busy-idle GPU-h (desc)');
    await page.click('th[data-col="host"] button');
    await page.click('th[data-col="host"] button');
    await firstIs(page, 'node-b/0', 'sorted by host (desc); GPUs of a host stay in order');

    // Filtering.
    await page.fill('#filter', 'node-b');
    check(await page.getAttribute('#fleet-table', 'data-rows') === '2', 'filter node-b: want 2 rows');
    await settled(page, (rows) => rows.length === 2 && rows.every((r) => r.host === 'node-b'), 'filter node-b');
    await page.fill('#filter', 'dcgm');  // the series column
    await settled(page, (rows) => rows.length === 2 && rows.every((r) => r.host === 'node-b'), 'filter "dcgm"');
    await page.fill('#filter', 'TRAIN/job');  // the job column, any case
    await settled(page, (rows) => rows.length === 2 && rows.every((r) => r.host === 'node-b'), 'filter "TRAIN/job"');
    await page.fill('#filter', 'node-a synthetic-node-a-2');  // every word must match (here: the UUID)
    await settled(page, (rows) => rows.length === 1 && rows[0].host === 'node-a' && rows[0].gpu === '2',
                  'filter by host and UUID');
    await page.fill('#filter', 'nothing-matches');
    check(await page.isVisible('#empty'), 'no "No GPU matches" line for an empty filter result');
    await page.fill('#filter', '');
    await settled(page, (rows) => rows.length === 5, 'filter cleared: want 5 rows');

    // History of one GPU.
    await page.click('#fleet-body tr[data-host="node-a"][data-gpu="2"]');
    await page.waitForSelector('#fleet-history:not([hidden])[data-host="node-a"][data-gpu="2"]');
    await page.waitForFunction(() => Number(document.querySelector('#fleet-history').dataset.points) > 0);
    const history = await (await fetch(`${daemon.url}/api/v1/fleet/history?host=node-a&gpu=2`)).json();
    const shown = Number(await page.getAttribute('#fleet-history', 'data-points'));
    check(shown === history.points.length && shown >= 3600 / kStepS,
          `history points: page ${shown}, API ${history.points.length}, want one per 15 s step of 1 h`);
    const known = history.points.filter((p) => p.compute_sol_pct !== null);
    check(known.length > 0 && known.every((p) => near(p.compute_sol_pct, 5) && near(p.gpu_util_pct, 95)),
          'history figures are not the fixture\'s (Compute SOL 5 %, utilization 95 %)');
    check(await page.locator('#history-chart canvas').count() === 1, 'no uPlot canvas in the history');
    const legend = await page.locator('#history-chart .u-legend').textContent();
    for (const label of ['Compute SOL', 'Memory SOL', 'Classic util']) check(legend.includes(label), `legend lacks ${label}`);
    await page.screenshot({ path: path.join(args.workdir, 'fleet.png'), fullPage: true });
    if (args.screenshot) {
      mkdirSync(path.dirname(args.screenshot), { recursive: true });
      copyFileSync(path.join(args.workdir, 'fleet.png'), args.screenshot);
    }
    // Enter on a focused row opens that GPU.
    await page.focus('#fleet-body tr[data-host="node-b"][data-gpu="0"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#fleet-history[data-host="node-b"][data-gpu="0"]');
    await page.click('#history-close');
    check(await page.isHidden('#fleet-history'), 'Close does not hide the history');

    // The dashboard links the fleet view.
    await page.goto(`${daemon.url}/`);
    await page.waitForSelector('#views:not([hidden]) a[href="/fleet.html"]', { timeout: 10000 });
    await context.close();
    check(problems.length === 0, problems.join('\n'));
    console.log(`fleet: 5 rows equal the SYNTHETIC fixture (${prom.points} points per series); sort, filter and ` +
                `history (${shown} points) work`);
  } finally {
    const code = await daemon.stop();
    check(code === 0, `solscope serve exited with ${code} after SIGTERM`);
  }
}

// ---------------------------------------------------------------- part 2: 4,096 rows
function syntheticBigFleet() {
  const rows = [];
  for (let i = 0; i < 4096; ++i) {
    const sol = (i * 37) % 100;
    rows.push({ host: `synthetic-${String(Math.floor(i / 8)).padStart(4, '0')}`, gpu: String(i % 8), uuid: '',
                model_name: 'SYNTHETIC', job: '', series: 'solscope', compute_sol_pct: sol, memory_sol_pct: 50,
                gpu_util_pct: 90, compute_sol_mean_pct: sol, memory_sol_mean_pct: 50, gpu_util_mean_pct: 90,
                busy_idle_gpu_hours: sol < 20 ? 1 : 0, straggler_gap_pct: null, straggler: false });
  }
  return { source: 'SYNTHETIC 4096 rows', window_start_ns: 0, window_end_ns: 3.6e12, step_ns: 15e9,
           refreshed_ns: Date.now() * 1e6, refresh_s: 3600, notes: ['SYNTHETIC: answered by the test'],
           totals: { gpus: 4096, compute_sol_mean_pct: 49.5, busy_idle_gpu_hours: 820, stragglers: 0 }, rows };
}

async function bigPart(browser, args, prom) {
  const daemon = await startDaemon(args.solscope, ['--prometheus', prom.url]);
  const problems = [];
  try {
    const { context, page } = await newPage(browser, daemon.url, problems);
    const body = JSON.stringify(syntheticBigFleet());
    await page.route('**/api/v1/fleet', (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
    await page.goto(`${daemon.url}/fleet.html`);
    await page.waitForSelector('body[data-state="live"]', { timeout: 30000 });
    check(await page.getAttribute('#fleet-table', 'data-rows') === '4096', 'big fleet: want 4096 rows');
    const inDom = await page.locator('#fleet-body tr[data-host]').count();
    check(inDom > 0 && inDom <= 100, `big fleet: ${inDom} rows in the DOM, want only those in view (<= 100)`);
    await page.evaluate(() => { const s = document.querySelector('#fleet-scroll'); s.scrollTop = s.scrollHeight; });
    await page.waitForSelector('#fleet-body tr[data-host="synthetic-0511"][data-gpu="7"]', { timeout: 5000 });
    await page.click('th[data-col="compute_sol_mean_pct"] button');
    await page.click('th[data-col="compute_sol_mean_pct"] button');  // lowest first
    await page.evaluate(() => { document.querySelector('#fleet-scroll').scrollTop = 0; });
    await page.waitForFunction(() => document.querySelector('#fleet-body tr[data-host] td[data-col="compute_sol_mean_pct"]')
      ?.dataset.value === '0');
    check(await page.isVisible('#notes li'), 'notes are not shown');
    await context.close();
    check(problems.length === 0, problems.join('\n'));
    console.log(`big fleet: 4096 rows, ${inDom} in the DOM; scrolled to the last; sorted`);
  } finally {
    const code = await daemon.stop();
    check(code === 0, `solscope serve exited with ${code} after SIGTERM`);
  }
}

// ---------------------------------------------------------------- part 3: Prometheus not answering
async function errorPart(browser, args) {
  const dead = await freePort();
  const daemon = await startDaemon(args.solscope, ['--prometheus', `http://127.0.0.1:${dead}`]);
  const problems = [];
  try {
    const { context, page } = await newPage(browser, daemon.url, problems);
    await page.goto(`${daemon.url}/fleet.html`);
    await page.waitForSelector('body[data-state="error"]', { timeout: 30000 });
    const banner = await page.textContent('#error-banner');
    check(await page.isVisible('#error-banner') && banner.includes('[HTTP 503]') && banner.includes(`127.0.0.1:${dead}`),
          `error banner: ${banner}`);
    await context.close();
    // The one failed fetch is the 503 itself (Chromium logs it as a console error).
    const others = problems.filter((p) => !/503/.test(p));
    check(others.length === 0, others.join('\n'));
    console.log('unreachable Prometheus: the page shows the 503 and its message');
  } finally {
    const code = await daemon.stop();
    check(code === 0, `solscope serve exited with ${code} after SIGTERM`);
  }
}

// ---------------------------------------------------------------- part 4: a daemon that wants a token
async function tokenPart(browser, args, prom) {
  const token = 'fleet-test-token-0123456789abcdef';
  const file = path.join(args.workdir, 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  const daemon = await startDaemon(args.solscope, ['--prometheus', prom.url, '--token-file', file]);
  const problems = [];
  try {
    check((await fetch(`${daemon.url}/api/v1/fleet`)).status === 401, '/api/v1/fleet without the token: want 401');
    const { context, page } = await newPage(browser, daemon.url, problems);
    await page.goto(`${daemon.url}/fleet.html`);
    await page.waitForSelector('#token-form:not([hidden])', { timeout: 30000 });
    check(await page.getAttribute('#fleet-table', 'data-rows') === '0', 'rows shown without the token');
    await page.fill('#token-input', token);
    await page.click('#token-form button[type="submit"]');
    await page.waitForSelector('body[data-state="live"]', { timeout: 30000 });
    check(await page.getAttribute('#fleet-table', 'data-rows') === '5', 'rows after the token: want 5');
    await context.close();
    const others = problems.filter((p) => !/401/.test(p));  // the first, refused fetch
    check(others.length === 0, others.join('\n'));
    console.log('token: the page asks for it, then shows the fleet');
  } finally {
    const code = await daemon.stop();
    check(code === 0, `solscope serve exited with ${code} after SIGTERM`);
  }
}

async function main() {
  const args = parseArgs();
  const require = createRequire(import.meta.url);
  const pw = path.join(root, 'web/node_modules/playwright-core');
  if (!existsSync(pw)) { console.log('SKIP: playwright-core is not installed (npm ci --prefix web)'); process.exit(SKIP); }
  for (const tool of [args.chromium, args.prometheus, args.promtool]) {
    if (!existsSync(tool)) { console.log(`SKIP: ${tool} is not installed`); process.exit(SKIP); }
  }
  mkdirSync(args.workdir, { recursive: true });
  const prom = await startPrometheus(args, args.workdir);
  const { chromium } = require(pw);
  const browser = await chromium.launch({ executablePath: args.chromium, headless: true,
                                          args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    await fleetPart(browser, args, prom);
    await bigPart(browser, args, prom);
    await errorPart(browser, args);
    await tokenPart(browser, args, prom);
  } finally {
    await browser.close();
    prom.stop();
  }
  console.log('PASS');
}

main().catch((err) => {
  console.error(`FAIL: ${err instanceof Failure ? err.message : err.stack}`);
  process.exit(1);
});
