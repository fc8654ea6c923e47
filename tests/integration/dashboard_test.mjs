#!/usr/bin/env node
// Integration test: headless Chromium, driven by playwright-core, opens solscope's web dashboard.
//
//   node dashboard_test.mjs --solscope BIN --workdir DIR [--trace tests/data/demo-trace.sqlite]
//                           [--screenshot docs/screenshots/dashboard.png] [--chromium /usr/bin/chromium]
//
// Part 1 (history): the daemon serves the demo trace (SYNTHETIC, 4 GPUs). The page must show one card per GPU of
// /api/v1/devices with its facts, the SYNTHETIC banner, a uPlot chart whose canvas holds pixels of the Compute
// SOL colour, and values equal to the daemon's window of the same start time; no request may leave the daemon's
// origin, and the console must stay free of errors. Screenshots at 1280 px (kept in DIR and, when asked, at
// --screenshot) and at a phone width of 390 px, where nothing may overflow sideways.
// Part 2 (live): the daemon replays a SYNTHETIC trace in real time; the page must follow the stream (the shown
// window advances) and each window it took from the stream must equal the daemon's own window; the
// attainable lines appear for the GPU whose samples carry one.
// Part 3 (reconnect): the daemon is stopped and started again on the same address; the page must say it is
// reconnecting, come back live by itself and follow the new stream.
// Part 4 (slow client): a one-event client queue makes the daemon drop events; the page must still show the
// daemon's exact windows (it fetches those it may have missed).
// Part 5 (PM pause): the daemon's windows of GPU 0 reach the page marked as paused for a profiler (pm_pause,
// source gpm: a trace cannot record a pause yet, so the page's requests are answered with the daemon's own
// windows so marked); its card must show the badge with the reason and the source that stood in, and no other
// card may. Part 1 checks that an unpaused trace shows no badge.
// Part 6 (workloads, with --workload-server BIN: tests/server/workload_dashboard_server.cpp, a SYNTHETIC daemon
// whose LiveState has a pod on GPUs 0 and 3, two pods time-sliced 0.75 / 0.25 on GPU 1 and nothing on GPU 2):
// each card's workload line and its process table's Workload column name the daemon's workloads, and the roll-up
// table has one row per workload with its GPUs, sharing and the latest Compute/Memory SOL of each of its GPUs.
// Part 7 (iteration, with --workload-server BIN: the same SYNTHETIC daemon, whose GPUs 0 and 3 have a periodic
// training iteration, 0.5 s and 0.625 s, and GPUs 1 and 2 none): each card's iteration line reads the period and
// the compute, communication and exposed communication shares (or "not periodic" with the daemon's note), its
// strip chart has one segment per run of the daemon's strip, in the part's colour and in proportion to its bins,
// and the roll-up names the job's straggler (GPU 3) with the daemon's spread.
// Exit status: 0 pass, 1 fail (with the reason), 77 skip (Chromium or playwright-core missing).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';

const SKIP = 77;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

function parseArgs() {
  const out = { trace: path.join(root, 'tests/data/demo-trace.sqlite'), chromium: '/usr/bin/chromium' };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  if (!out.solscope || !out.workdir) throw new Error('usage: --solscope BIN --workdir DIR');
  return out;
}

class Failure extends Error {}
const check = (cond, message) => { if (!cond) throw new Failure(message); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- the daemon
async function startDaemon(solscope, args, listen = '127.0.0.1:0') {
  return startListening(solscope, ['serve', '--listen', listen, ...args]);
}

// Runs `bin argv...` until it writes "listening on URL" to stderr.
async function startListening(bin, argv) {
  const proc = spawn(bin, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
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
    url, proc, log: () => stderr,
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

async function getJson(base, p) {
  const res = await fetch(base + p);
  check(res.ok, `GET ${p}: HTTP ${res.status}`);
  return res.json();
}

function serveHelp(solscope) {
  try {
    return execFileSync(solscope, ['serve', '--help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    return String(err.stdout || '') + String(err.stderr || '');
  }
}

// ---------------------------------------------------------------- page checks
function watchPage(page, origin, problems) {
  page.on('request', (req) => {
    const u = req.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) problems.push(`external request: ${u}`);
  });
  page.on('response', (res) => { if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`); });
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
}

// What the page shows for each GPU: data attributes and chart pixels.
async function readCards(page) {
  return page.evaluate(() => {
    const hex = getComputedStyle(document.documentElement).getPropertyValue('--compute').trim();
    const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    return [...document.querySelectorAll('section.gpu')].map((card) => {
      const field = (name) => {
        const el = card.querySelector(`[data-field="${name}"]`);
        return el ? { value: el.dataset.value, text: el.textContent.trim() } : null;
      };
      let seriesPixels = 0;
      let canvasPixels = 0;
      for (const canvas of card.querySelectorAll('[data-chart] canvas')) {
        const ctx = canvas.getContext('2d');
        const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] > 0) ++canvasPixels;
          if (Math.abs(data[i] - rgb[0]) < 24 && Math.abs(data[i + 1] - rgb[1]) < 24 &&
              Math.abs(data[i + 2] - rgb[2]) < 24 && data[i + 3] > 200) ++seriesPixels;
        }
      }
      return {
        gpu: Number(card.dataset.gpu),
        start: card.dataset.windowStartNs,
        origin: card.dataset.windowOrigin,
        points: Number(card.querySelector('[data-chart]').dataset.points),
        pause: (() => {
          const badge = card.querySelector('[data-field="pm_pause"]');
          return { value: badge.dataset.value, text: badge.textContent.trim(),
                   visible: !badge.hidden && badge.getBoundingClientRect().width > 0 };
        })(),
        name: card.querySelector('[data-fact="name"]').textContent,
        sms: card.querySelector('[data-fact="sm_count"]').textContent,
        chip: card.querySelector('[data-fact="chip"]').textContent,
        seriesPixels, canvasPixels,
        fields: Object.fromEntries(['compute_sol_pct', 'memory_sol_pct', 'gpu_util_pct', 'attainable_compute_sol_pct',
          'attainable_memory_sol_pct', 'attainable_compute_gap_pts', 'attainable_memory_gap_pts', 'attainable_limiter',
          'bound', 'compute_pipe', 'memory_path'].map((f) => [f, field(f)])),
      };
    });
  });
}

// The card's shown figures against the daemon's window with the same start (percent, absolute tolerance).
function compareCard(card, window, tolerancePct, what) {
  check(window, `${what}: GPU ${card.gpu} shows the window starting at ${card.start}, which the daemon does not have`);
  for (const f of ['compute_sol_pct', 'memory_sol_pct', 'gpu_util_pct', 'attainable_compute_sol_pct',
                   'attainable_memory_sol_pct']) {
    const shown = card.fields[f].value === '' ? null : Number(card.fields[f].value);
    const want = window[f] === undefined ? null : window[f];
    check((shown === null) === (want === null) && (shown === null || Math.abs(shown - want) <= tolerancePct),
          `${what}: GPU ${card.gpu} shows ${f} = ${shown} (window ${card.start}, from ${card.origin}), the daemon's ` +
          `window has ${want}`);
    if (want !== null) {
      check(card.fields[f].text === `${want.toFixed(1)}\u202f%`,
            `${what}: GPU ${card.gpu} ${f} reads "${card.fields[f].text}", want ${want.toFixed(1)} %`);
    }
  }
  // The gap in points is the daemon's (attainable - live, computed once by its core), shown as the terminal does.
  for (const f of ['attainable_compute_gap_pts', 'attainable_memory_gap_pts']) {
    const want = window[f] === undefined ? null : window[f];
    const shown = card.fields[f].value === '' ? null : Number(card.fields[f].value);
    check((shown === null) === (want === null) && (shown === null || Math.abs(shown - want) <= tolerancePct),
          `${what}: GPU ${card.gpu} shows ${f} = ${shown}, the daemon's window has ${want}`);
    if (want !== null) {
      const text = `(${want < 0 ? '-' : '+'}${Math.abs(want).toFixed(1)} pts)`;
      check(card.fields[f].text === text, `${what}: GPU ${card.gpu} ${f} reads "${card.fields[f].text}", want ${text}`);
    }
  }
  check(card.fields.attainable_limiter.value === (window.attainable_limiter || ''),
        `${what}: GPU ${card.gpu} shows limiter ${card.fields.attainable_limiter.value}, the daemon says ` +
        `${window.attainable_limiter}`);
  check(card.fields.bound.value === window.bound,
        `${what}: GPU ${card.gpu} shows bound ${card.fields.bound.value}, the daemon says ${window.bound}`);
  check(card.fields.compute_pipe.value === (window.compute_pipe || ''),
        `${what}: GPU ${card.gpu} shows pipe ${card.fields.compute_pipe.value}, the daemon says ${window.compute_pipe}`);
  check(card.fields.memory_path.value === (window.memory_path || ''),
        `${what}: GPU ${card.gpu} shows path ${card.fields.memory_path.value}, the daemon says ${window.memory_path}`);
}

// Waits until a replay at full speed has played the whole trace (the newest sample time stops moving).
async function waitPlayed(base) {
  let last = null;
  for (let i = 0; i < 120; ++i) {
    const newest = (await getJson(base, '/api/v1/devices')).newest_ns;
    if (newest && newest === last) return;
    last = newest;
    await sleep(500);
  }
  throw new Failure('the replay did not finish within 60 s');
}

async function daemonWindow(base, gpu, startNs) {
  const since = (BigInt(startNs) - 2000000000n).toString();
  const doc = await getJson(base, `/api/v1/samples?device=${gpu}&since=${since}&window=1s`);
  return doc.samples.find((w) => String(w.t_start_ns) === String(startNs)) || null;
}

// `prepare(page)`, when given, runs before the page is opened (request routes).
async function openDashboard(browser, daemon, viewport, problems, prepare = null) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, colorScheme: 'light' });
  const page = await context.newPage();
  watchPage(page, daemon.url, problems);
  if (prepare) await prepare(page);
  await page.goto(daemon.url + '/', { waitUntil: 'load' });
  await page.waitForSelector('body[data-state="live"]', { timeout: 20000 });
  return { context, page };
}

// ---------------------------------------------------------------- part 1: history, facts, screenshots
async function historyPart(browser, args, speedArgs) {
  const daemon = await startDaemon(args.solscope, ['--replay', args.trace, ...speedArgs]);
  const problems = [];
  try {
    if (speedArgs.length) await waitPlayed(daemon.url);
    else await sleep(12000);  // real time: let some history build up
    const devices = await getJson(daemon.url, '/api/v1/devices');
    check(devices.devices.length > 0, '/api/v1/devices lists no GPU');
    const { context, page } = await openDashboard(browser, daemon, { width: 1280, height: 900 }, problems);
    await page.waitForFunction((n) => [...document.querySelectorAll('[data-chart]')].length === n &&
      [...document.querySelectorAll('[data-chart]')].every((c) => Number(c.dataset.points) >= 5),
    devices.devices.length, { timeout: 20000 });
    await sleep(500);
    const cards = await readCards(page);
    check(cards.length === devices.devices.length, `${cards.length} GPU cards for ${devices.devices.length} GPUs`);
    const synthetic = await page.locator('#synthetic-banner').isVisible();
    check(synthetic === Boolean(devices.synthetic), `SYNTHETIC banner visible=${synthetic}, API synthetic=${devices.synthetic}`);
    for (const card of cards) {
      const d = devices.devices.find((x) => x.index === card.gpu);
      check(d, `card for GPU ${card.gpu}, which /api/v1/devices does not list`);
      check(card.name === d.name && card.chip === d.chip && card.sms === String(d.sm_count),
            `GPU ${card.gpu} facts "${card.name}" ${card.chip} ${card.sms} SMs, API: "${d.name}" ${d.chip} ${d.sm_count}`);
      check(card.seriesPixels > 100, `GPU ${card.gpu}: the chart has ${card.seriesPixels} pixels of the Compute SOL line`);
      const window = await daemonWindow(daemon.url, card.gpu, card.start);
      compareCard(card, window, 1e-9, 'history');
      check(!card.pause.visible && card.pause.value === 'none',
            `history: GPU ${card.gpu} shows a PM pause badge (${card.pause.value} "${card.pause.text}") for a trace ` +
            'without a pause');
      if (speedArgs.length) {
        check(d.latest_window && String(d.latest_window.t_start_ns) === card.start,
              `GPU ${card.gpu} shows window ${card.start}, /api/v1/devices latest is ${d.latest_window && d.latest_window.t_start_ns}`);
      }
    }
    mkdirSync(args.workdir, { recursive: true });
    const shot = path.join(args.workdir, 'dashboard.png');
    await page.screenshot({ path: shot, fullPage: true });
    if (args.screenshot) {
      mkdirSync(path.dirname(args.screenshot), { recursive: true });
      copyFileSync(shot, args.screenshot);
    }
    await context.close();

    const phone = await openDashboard(browser, daemon, { width: 390, height: 844 }, problems);
    await phone.page.waitForFunction(() => Number(document.querySelector('[data-chart]').dataset.points) >= 5,
                                     null, { timeout: 20000 });
    const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 1, `at 390 px the page is ${overflow} px wider than the screen`);
    await phone.page.screenshot({ path: path.join(args.workdir, 'dashboard-phone.png'), fullPage: true });
    await phone.context.close();
    check(problems.length === 0, problems.join('\n'));
    console.log(`history: ${cards.length} GPUs, values equal the daemon's windows; screenshot ${shot}`);
  } finally {
    const code = await daemon.stop();
    check(code === 0, `solscope serve exited with ${code} after SIGTERM`);
  }
}

// ---------------------------------------------------------------- part 3: the daemon restarts
// The page must notice the stream ending, say so, reconnect by itself to the restarted daemon (same address),
// back-fill again and go on following the stream.
async function reconnectPart(browser, args) {
  const trace = path.join(args.workdir, 'live.sqlite');
  let daemon = await startDaemon(args.solscope, ['--replay', trace]);
  const listen = daemon.url.replace(/^https?:\/\//, '');
  const problems = [];
  const { context, page } = await openDashboard(browser, daemon, { width: 1280, height: 900 }, problems);
  try {
    await sleep(1500);
    check(await daemon.stop() === 0, 'solscope serve did not exit 0 after SIGTERM');
    await page.waitForSelector('body[data-state="reconnecting"]', { timeout: 10000 });
    daemon = await startDaemon(args.solscope, ['--replay', trace], listen);
    await page.waitForSelector('body[data-state="live"]', { timeout: 20000 });
    const before = (await readCards(page))[0].start;
    await sleep(2500);
    const after = (await readCards(page))[0].start;
    check(after && after !== before, `after the restart the page stays at window ${before}: it does not follow the stream`);
    // Errors while the daemon was down (failed requests) are expected; none may remain afterwards.
    console.log(`reconnect: the page came back live after a daemon restart (window ${before} -> ${after})`);
  } finally {
    await context.close();
    const code = await daemon.stop();
    check(code === 0, `solscope serve exited with ${code} after SIGTERM`);
  }
}

// A SYNTHETIC trace from the project's one generator (solscope_make_synthetic_trace; ctest sets
// $SOLSCOPE_MAKE_TRACE).
function makeTrace(trace, generatorArgs) {
  const tool = process.env.SOLSCOPE_MAKE_TRACE;
  if (!tool) throw new Error('set SOLSCOPE_MAKE_TRACE to build/<preset>/tests/solscope_make_synthetic_trace');
  execFileSync(tool, ['-o', trace, '--force', ...generatorArgs], { stdio: 'ignore' });
}

// ---------------------------------------------------------------- part 4: a slow client
// With a one-event client queue and 8 GPUs x 100 Hz the daemon drops events for the page (`event: dropped`); the
// page must then fetch the windows it may have missed, so what it shows still equals the daemon's windows.
async function droppedPart(browser, args) {
  const trace = path.join(args.workdir, 'busy.sqlite');
  makeTrace(trace, ['--devices', '8', '--hz', '100', '--seconds', '40', '--profile', 'phases']);
  const daemon = await startDaemon(args.solscope, ['--replay', trace, '--client-queue', '1']);
  const problems = [];
  const { context, page } = await openDashboard(browser, daemon, { width: 1280, height: 900 }, problems);
  try {
    let compared = 0;
    const seen = new Set();
    for (let i = 0; i < 10; ++i) {
      await sleep(500);
      for (const card of await readCards(page)) {
        if (!card.start || seen.has(`${card.gpu}/${card.start}`)) continue;
        seen.add(`${card.gpu}/${card.start}`);
        compareCard(card, await daemonWindow(daemon.url, card.gpu, card.start), 1e-6, 'slow client');
        ++compared;
      }
    }
    const dropped = Number(await page.evaluate(() => document.body.dataset.dropped || 0));
    check(dropped > 0, 'slow client: the daemon reported no dropped event to a page with a one-event queue');
    check(problems.length === 0, problems.join('\n'));
    console.log(`slow client: ${dropped} events dropped, ${compared} shown windows still equal the daemon's`);
  } finally {
    await context.close();
    const code = await daemon.stop();
    check(code === 0, `solscope serve exited with ${code} after SIGTERM`);
  }
}

// ---------------------------------------------------------------- part 2: the live stream
async function livePart(browser, args) {
  const trace = path.join(args.workdir, 'live.sqlite');
  makeTrace(trace, ['--devices', '2', '--hz', '100', '--seconds', '60', '--profile', 'phases', '--attainable-gpu', '1']);
  const daemon = await startDaemon(args.solscope, ['--replay', trace]);
  const problems = [];
  try {
    await sleep(3000);
    const { context, page } = await openDashboard(browser, daemon, { width: 1280, height: 900 }, problems);
    const seen = new Map();  // gpu -> set of window starts shown
    let compared = 0;
    for (let i = 0; i < 14; ++i) {
      await sleep(500);
      for (const card of await readCards(page)) {
        const starts = seen.get(card.gpu) || new Set();
        if (!starts.has(card.start) && card.start) {
          starts.add(card.start);
          // The page shows the windows the daemon streams: they must agree with its /api/v1/samples to rounding.
          compareCard(card, await daemonWindow(daemon.url, card.gpu, card.start), 1e-6, 'live');
          ++compared;
        }
        seen.set(card.gpu, starts);
      }
    }
    for (const [gpu, starts] of seen) {
      check(starts.size >= 4, `live: GPU ${gpu} showed only ${starts.size} windows in 7 s: the page does not follow the stream`);
    }
    const attainable = await page.evaluate(() => [...document.querySelectorAll('section.gpu')].map((c) =>
      [...c.querySelectorAll('.u-legend .u-series')].some((e) => /Attainable compute/.test(e.textContent))));
    check(attainable[0] === false && attainable[1] === true,
          `live: attainable lines drawn per GPU ${JSON.stringify(attainable)}, want only on GPU 1 (the trace's)`);
    await page.screenshot({ path: path.join(args.workdir, 'dashboard-live.png'), fullPage: true });
    await context.close();
    check(problems.length === 0, problems.join('\n'));
    console.log(`live: ${compared} streamed windows equal the daemon's`);
  } finally {
    const code = await daemon.stop();
    check(code === 0, `solscope serve exited with ${code} after SIGTERM`);
  }
}

// ---------------------------------------------------------------- part 5: a paused GPU
// The windows of GPU 0 come to the page as the daemon writes a window whose PM sampling was paused for a profiler
// (docs/http-api.md "SolSample and window JSON": pm_pause, the kSamplePmPaused flag, the source that stood in).
async function pausePart(browser, args, speedArgs) {
  const daemon = await startDaemon(args.solscope, ['--replay', args.trace, ...speedArgs]);
  const problems = [];
  try {
    await waitPlayed(daemon.url);  // played to its end: no window arrives by the stream after the back-fill
    const markPaused = async (route) => {
      const response = await route.fetch();
      const doc = await response.json();
      if (doc.device === 0) {
        for (const w of doc.samples || []) Object.assign(w, { pm_pause: 'profiler', source: 'gpm', flags: w.flags | 4 });
      }
      await route.fulfill({ response, json: doc });
    };
    const { context, page } = await openDashboard(browser, daemon, { width: 1280, height: 900 }, problems,
                                                  (p) => p.route((url) => url.pathname === '/api/v1/samples', markPaused));
    await page.waitForFunction(() => {
      const badge = document.querySelector('section.gpu[data-gpu="0"] [data-field="pm_pause"]');
      return badge && badge.dataset.value !== 'none';
    }, null, { timeout: 20000 });
    const cards = await readCards(page);
    for (const card of cards) {
      if (card.gpu === 0) {
        check(card.pause.visible && card.pause.value === 'profiler' && card.pause.text === 'PM paused (profiler) \u00b7 GPM',
              `pause: GPU 0 badge ${JSON.stringify(card.pause)}, want visible "PM paused (profiler) \u00b7 GPM"`);
      } else {
        check(!card.pause.visible && card.pause.value === 'none',
              `pause: GPU ${card.gpu} shows a pause badge ${JSON.stringify(card.pause)}, only GPU 0 is paused`);
      }
    }
    await page.screenshot({ path: path.join(args.workdir, 'dashboard-paused.png'), fullPage: true });
    await context.close();
    check(problems.length === 0, problems.join('\n'));
    console.log('pause: the paused GPU shows its reason and the source that stood in; the others no badge');
  } finally {
    const code = await daemon.stop();
    check(code === 0, `solscope serve exited with ${code} after SIGTERM`);
  }
}

// ---------------------------------------------------------------- part 6: workloads
// What the page shows of the workloads: each card's line, the process table's Workload column, the roll-up rows.
async function readWorkloads(page) {
  return page.evaluate(() => ({
    cards: [...document.querySelectorAll('section.gpu')].map((card) => {
      const line = card.querySelector('[data-field="workloads"]');
      return { gpu: Number(card.dataset.gpu), sharing: line.dataset.value, displays: line.dataset.displays,
               text: line.textContent.trim(),
               processes: [...card.querySelectorAll('[data-field="processes"] tr')].map((tr) => tr.lastElementChild.textContent) };
    }),
    rollupVisible: !document.querySelector('#workloads').hidden,
    rows: [...document.querySelectorAll('#workloads tr[data-workload]')].map((tr) => {
      const td = (f) => tr.querySelector(`[data-field="${f}"]`);
      return { workload: tr.dataset.workload, gpus: td('gpus').dataset.value, gpusText: td('gpus').textContent,
               sharing: td('sharing').textContent, compute: td('compute_sol_pct').dataset.value,
               computeText: td('compute_sol_pct').textContent, memory: td('memory_sol_pct').dataset.value,
               memoryText: td('memory_sol_pct').textContent };
    }),
  }));
}

// The fixture of tests/server/workload_dashboard_server.cpp, written out here.
const kWorkloadCards = [
  { gpu: 0, sharing: 'exclusive', displays: 'ml/train-0/trainer', text: 'ml/train-0/trainer \u00b7 exclusive',
    processes: ['ml/train-0/trainer'] },
  { gpu: 1, sharing: 'time_sliced', displays: 'ml/infer-a/server|web/front/srv',
    text: 'ml/infer-a/server 75.0\u202f%, web/front/srv 25.0\u202f% \u00b7 shared (time-sliced)',
    processes: ['ml/infer-a/server', 'web/front/srv'] },
  { gpu: 2, sharing: 'none', displays: '', text: 'none', processes: [] },
  { gpu: 3, sharing: 'exclusive', displays: 'ml/train-0/trainer', text: 'ml/train-0/trainer \u00b7 exclusive',
    processes: ['ml/train-0/trainer'] },
];
const kWorkloadRows = [  // Compute SOL 40 + 10 x GPU, Memory SOL 20 + 10 x GPU (percent)
  { workload: 'ml/train-0/trainer', gpus: '0,3', gpusText: 'GPU 0, GPU 3', sharing: 'exclusive', compute: [40, 70],
    memory: [20, 50], computeText: 'GPU 0 40.0\u202f% \u00b7 GPU 3 70.0\u202f%', memoryText: 'GPU 0 20.0\u202f% \u00b7 GPU 3 50.0\u202f%' },
  { workload: 'ml/infer-a/server', gpus: '1', gpusText: 'GPU 1', sharing: 'shared (time-sliced)', compute: [50],
    memory: [30], computeText: '50.0\u202f%', memoryText: '30.0\u202f%' },
  { workload: 'web/front/srv', gpus: '1', gpusText: 'GPU 1', sharing: 'shared (time-sliced)', compute: [50],
    memory: [30], computeText: '50.0\u202f%', memoryText: '30.0\u202f%' },
];

async function workloadPart(browser, args) {
  const daemon = await startListening(args['workload-server'], []);
  const problems = [];
  try {
    const doc = await getJson(daemon.url, '/api/v1/devices');
    check(doc.workloads.length === kWorkloadRows.length,
          `/api/v1/devices has ${doc.workloads.length} roll-up rows, the fixture ${kWorkloadRows.length}`);
    const { context, page } = await openDashboard(browser, daemon, { width: 1280, height: 900 }, problems);
    await page.waitForFunction(() => [...document.querySelectorAll('#workloads [data-field="compute_sol_pct"]')]
      .some((td) => td.dataset.value !== ''), null, { timeout: 20000 });
    const shown = await readWorkloads(page);
    check(shown.cards.length === kWorkloadCards.length, `workloads: ${shown.cards.length} cards, want 4`);
    for (const want of kWorkloadCards) {
      const card = shown.cards.find((c) => c.gpu === want.gpu);
      const api = doc.devices.find((d) => d.index === want.gpu).workloads;
      check(card.sharing === want.sharing && card.sharing === api.sharing && card.displays === want.displays &&
            card.text === want.text,
            `workloads: GPU ${want.gpu} line ${JSON.stringify(card)}, want ${JSON.stringify(want)} (API ${api.sharing})`);
      check(JSON.stringify(card.processes) === JSON.stringify(want.processes),
            `workloads: GPU ${want.gpu} Workload column ${JSON.stringify(card.processes)}, want ${JSON.stringify(want.processes)}`);
    }
    check(shown.rollupVisible, 'workloads: the roll-up table is hidden');
    check(shown.rows.length === kWorkloadRows.length, `workloads: ${shown.rows.length} roll-up rows, want 3`);
    const near = (got, want) => got.split(',').length === want.length &&
      got.split(',').every((v, i) => v !== '' && Math.abs(Number(v) - want[i]) <= 1e-9);
    kWorkloadRows.forEach((want, i) => {
      const row = shown.rows[i];
      check(row.workload === want.workload && row.gpus === want.gpus && row.gpusText === want.gpusText &&
            row.sharing === want.sharing && near(row.compute, want.compute) && near(row.memory, want.memory) &&
            row.computeText === want.computeText && row.memoryText === want.memoryText,
            `workloads: roll-up row ${i} ${JSON.stringify(row)}, want ${JSON.stringify(want)}`);
      // The SOL of each GPU of the row is that GPU's latest window, as the daemon has it.
      want.gpus.split(',').forEach((gpu, k) => {
        const latest = doc.devices.find((d) => d.index === Number(gpu)).latest_window;
        check(Math.abs(Number(row.compute.split(',')[k]) - latest.compute_sol_pct) <= 1e-9,
              `workloads: row ${want.workload} GPU ${gpu} Compute SOL ${row.compute}, the daemon's window ${latest.compute_sol_pct}`);
      });
    });
    await page.screenshot({ path: path.join(args.workdir, 'dashboard-workloads.png'), fullPage: true });
    await context.close();
    const phone = await openDashboard(browser, daemon, { width: 390, height: 844 }, problems);
    await phone.page.waitForSelector('#workloads tr[data-workload]', { timeout: 20000 });
    const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 1, `workloads: at 390 px the page is ${overflow} px wider than the screen`);
    await phone.context.close();
    check(problems.length === 0, problems.join('\n'));
    console.log(`workloads: ${shown.cards.length} cards name their workloads, ${shown.rows.length} roll-up rows ` +
                'with the latest SOL of their GPUs');
  } finally {
    const code = await daemon.stop();
    check(code === 0, `the workload server exited with ${code} after SIGTERM`);
  }
}

// ---------------------------------------------------------------- part 7: training iterations
// What the page shows of the iterations: each card's line and strip segments (part, bins, colour, width), and
// the roll-up's straggler cells.
async function readIterations(page) {
  return page.evaluate(() => {
    const css = getComputedStyle(document.documentElement);
    const rgbOf = (name) => {
      const hex = css.getPropertyValue(name).trim();
      return `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    };
    const colours = { compute: rgbOf('--bound-compute'), memory: rgbOf('--bound-memory'),
                      communication: rgbOf('--part-communication'), latency: rgbOf('--bound-latency'),
                      idle: rgbOf('--grid') };
    return {
      cards: [...document.querySelectorAll('section.gpu')].map((card) => {
        const line = card.querySelector('[data-field="iteration"]');
        const strip = card.querySelector('[data-field="iteration_strip"]');
        const inner = strip.clientWidth;
        return {
          gpu: Number(card.dataset.gpu), text: line.textContent.trim(), value: line.dataset.value,
          periodic: line.dataset.periodic, title: line.title, parts: strip.dataset.parts,
          stripVisible: !strip.hidden && strip.getBoundingClientRect().width > 0, stripWidth: inner,
          segments: [...strip.querySelectorAll('.seg')].map((s) => ({
            part: s.dataset.part, bins: Number(s.dataset.bins), width: s.getBoundingClientRect().width,
            colour: getComputedStyle(s).backgroundColor, want: colours[s.dataset.part] })),
        };
      }),
      stragglers: [...document.querySelectorAll('#workloads tr[data-workload]')].map((tr) => {
        const td = tr.querySelector('[data-field="straggler"]');
        return { workload: tr.dataset.workload, value: td.dataset.value, text: td.textContent };
      }),
    };
  });
}

// The iterations of tests/server/workload_dashboard_server.cpp, written out here: the line (compute = the
// compute, memory and latency parts) and the strip's runs (48 bins: each part's share, in part order).
const kIterationCards = [
  { gpu: 0, value: '0.5', text: '500.0\u202fms \u00b7 compute 50.0\u202f% \u00b7 communication 25.0\u202f% \u00b7 exposed 12.5\u202f%',
    segments: [['compute', 18], ['memory', 6], ['communication', 12], ['idle', 12]] },
  { gpu: 1, value: '', text: 'not periodic', title: 'no repeat found', segments: [] },
  { gpu: 2, value: '', text: 'not periodic', title: 'too few samples', segments: [] },
  { gpu: 3, value: '0.625', text: '625.0\u202fms \u00b7 compute 87.5\u202f% \u00b7 communication 25.0\u202f% \u00b7 exposed 12.5\u202f%',
    segments: [['compute', 36], ['memory', 6], ['communication', 6]] },
];

async function iterationPart(browser, args) {
  const daemon = await startListening(args['workload-server'], []);
  const problems = [];
  try {
    const doc = await getJson(daemon.url, '/api/v1/devices');
    const { context, page } = await openDashboard(browser, daemon, { width: 1280, height: 900 }, problems);
    await page.waitForFunction(() => [...document.querySelectorAll('[data-field="iteration"]')]
      .filter((el) => el.dataset.periodic === 'true').length === 2, null, { timeout: 20000 });
    const shown = await readIterations(page);
    for (const want of kIterationCards) {
      const card = shown.cards.find((c) => c.gpu === want.gpu);
      const api = doc.devices.find((d) => d.index === want.gpu).iteration;
      check(card && card.text === want.text && card.value === want.value,
            `iteration: GPU ${want.gpu} line ${JSON.stringify(card)}, want "${want.text}" (${want.value})`);
      check(card.periodic === String(api.periodic), `iteration: GPU ${want.gpu} periodic ${card.periodic}, API ${api.periodic}`);
      if (want.title) check(card.title === want.title, `iteration: GPU ${want.gpu} title "${card.title}", want "${want.title}"`);
      // The strip is the daemon's, drawn as runs of equal parts in proportion to their bins.
      check(card.parts === api.strip.join(','), `iteration: GPU ${want.gpu} strip ${card.parts}, API ${api.strip.join(',')}`);
      check(card.stripVisible === (want.segments.length > 0), `iteration: GPU ${want.gpu} strip visible ${card.stripVisible}`);
      check(JSON.stringify(card.segments.map((s) => [s.part, s.bins])) === JSON.stringify(want.segments),
            `iteration: GPU ${want.gpu} segments ${JSON.stringify(card.segments)}, want ${JSON.stringify(want.segments)}`);
      for (const s of card.segments) {
        check(s.colour === s.want, `iteration: GPU ${want.gpu} ${s.part} segment is ${s.colour}, want ${s.want}`);
        const wantWidth = (card.stripWidth * s.bins) / 48;
        check(Math.abs(s.width - wantWidth) <= 1.5,
              `iteration: GPU ${want.gpu} ${s.part} segment is ${s.width} px wide, want ${wantWidth.toFixed(1)} px`);
      }
    }
    // The job (pod train-0 on GPUs 0 and 3) names its straggler with the daemon's spread; a one-GPU workload none.
    const steps = doc.workloads.find((w) => w.display === 'ml/train-0/trainer').steps;
    check(steps && steps.straggler && steps.straggler.device === 3, `iteration: the API's straggler ${JSON.stringify(steps)}`);
    const wantText = `GPU 3 \u00b7 compute +${steps.spread_pct.toFixed(1)}\u202f% \u00b7 iterations 500.0\u202fms\u2013625.0\u202fms`;
    for (const row of shown.stragglers) {
      const job = row.workload === 'ml/train-0/trainer';
      check(row.value === (job ? '3' : '') && row.text === (job ? wantText : ''),
            `iteration: roll-up row ${row.workload} straggler ${JSON.stringify(row)}, want ${job ? wantText : '(none)'}`);
    }
    await (await page.$('section.gpu[data-gpu="0"]')).screenshot({ path: path.join(args.workdir, 'dashboard-iteration.png') });
    await context.close();
    check(problems.length === 0, problems.join('\n'));
    console.log('iteration: 2 periodic GPUs show their line and strip, 2 say not periodic; the job names its straggler');
  } finally {
    const code = await daemon.stop();
    check(code === 0, `the workload server exited with ${code} after SIGTERM`);
  }
}

async function main() {
  const args = parseArgs();
  const require = createRequire(import.meta.url);
  const pw = path.join(root, 'web/node_modules/playwright-core');
  if (!existsSync(pw)) { console.log('SKIP: playwright-core is not installed (npm ci --prefix web)'); process.exit(SKIP); }
  if (!existsSync(args.chromium)) { console.log(`SKIP: ${args.chromium} is not installed`); process.exit(SKIP); }
  mkdirSync(args.workdir, { recursive: true });
  const { chromium } = require(pw);
  const browser = await chromium.launch({ executablePath: args.chromium, headless: true,
                                          args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const speedArgs = serveHelp(args.solscope).includes('--speed') ? ['--speed', '0'] : [];
    await historyPart(browser, args, speedArgs);
    await livePart(browser, args);
    await reconnectPart(browser, args);
    await droppedPart(browser, args);
    if (speedArgs.length) await pausePart(browser, args, speedArgs);
    else console.log('pause: skipped (this solscope serve has no --speed, so the replay would go on streaming)');
    if (args['workload-server']) {
      await workloadPart(browser, args);
      await iterationPart(browser, args);
    } else {
      console.log('workloads, iteration: skipped (no --workload-server)');
    }
  } finally {
    await browser.close();
  }
  console.log('PASS');
}

main().catch((err) => {
  console.error(`FAIL: ${err instanceof Failure ? err.message : err.stack}`);
  process.exit(1);
});
