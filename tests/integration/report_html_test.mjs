#!/usr/bin/env node
// Integration test: headless Chromium, driven by playwright-core, opens the file of `solscope report TRACE --html`
// from disk.
//
//   node report_html_test.mjs --solscope BIN --workdir DIR [--trace tests/data/demo-trace.sqlite]
//                             [--screenshot docs/screenshots/report.png] [--chromium /usr/bin/chromium]
//
// For each trace (the demo trace, SYNTHETIC, 4 GPUs; a SYNTHETIC trace with a kernels table from the project's
// generator, $SOLSCOPE_MAKE_TRACE; and that trace with one kernel renamed "</script><script>...", which must show
// as a name and run nothing) the page must
// show one section per GPU of `solscope report --json`, each with a uPlot chart whose canvas holds pixels of the
// Compute SOL colour and, for each phase class, pixels of its shaded band; a bound-class bar whose segments carry
// the report's seconds; and a kernel table whose rows are the report's kernels, in order. The console must stay
// free of errors and the only request is the file itself. Screenshots at 1280 px (kept in DIR and, for the
// kernel trace, at --screenshot) and at a phone width of 390 px, where nothing may overflow sideways. The
// Workloads section lists the report's workloads in order with their unrounded figures (the SYNTHETIC workloads
// scenario, $SOLSCOPE_MAKE_TRACE --workloads), or says that the trace holds none. The Training steps card has a row
// per GPU of the report's `training_steps`, the straggler, and per GPU with kernel-log iterations a strip whose
// segments are the report's, in order (the SYNTHETIC 4-rank data-parallel step, $SOLSCOPE_MAKE_TRACE --dp-step:
// 4 strips, straggler GPU 2).
// Exit status: 0 pass, 1 fail (with the reason), 77 skip (Chromium or playwright-core missing).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import {
  check, inlinedJson, launchChromium, openFilePage, parseArgs, root, runTest, solscope,
} from './file_page_support.mjs';

// ---------------------------------------------------------------- the report, as JSON and as a page
function makeReport(args, trace, name) {
  // Run beside the trace, so that the page names it without this machine's folders.
  const [dir, file, bin] = [path.dirname(trace), path.basename(trace), path.resolve(args.solscope)];
  const json = JSON.parse(solscope(bin, ['report', file, '--json'], dir));
  const html = path.resolve(args.workdir, `${name}.html`);
  solscope(bin, ['report', file, '--html', html, '--force'], dir);
  // The page holds the --json report, plus a series per GPU for its charts.
  const inlined = inlinedJson(html, 'report-data');
  const series = inlined.gpus.map((g) => g.series);
  for (const g of inlined.gpus) delete g.series;
  check(isDeepStrictEqual(inlined, json), `${html}: the inlined report differs from \`solscope report --json\``);
  json.gpus.forEach((g, i) => { g.series = series[i]; });
  return { json, html };
}

// ---------------------------------------------------------------- page checks
// What the page shows for each GPU: chart pixels of the Compute SOL colour and of each phase band, the bar and the
// kernel table.
async function readSections(page) {
  return page.evaluate(() => {
    const css = getComputedStyle(document.documentElement);
    const rgbOf = (name) => { const h = css.getPropertyValue(name).trim(); return [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)); };
    const near = (d, i, rgb, tol) => Math.abs(d[i] - rgb[0]) <= tol && Math.abs(d[i + 1] - rgb[1]) <= tol &&
                                     Math.abs(d[i + 2] - rgb[2]) <= tol;
    const compute = rgbOf('--compute');
    const alpha = Number(css.getPropertyValue('--shade-alpha'));
    const classes = ['compute', 'memory', 'latency', 'idle', 'unknown'];
    const shades = Object.fromEntries(classes.map((c) => [c, rgbOf(`--bound-${c}`)]));
    return [...document.querySelectorAll('section.gpu')].map((sec) => {
      let computePixels = 0;
      let painted = 0;
      const shadePixels = Object.fromEntries(classes.map((c) => [c, 0]));
      for (const canvas of sec.querySelectorAll('[data-chart] canvas')) {
        const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 0; i < d.length; i += 4) {
          if (d[i + 3] === 0) continue;
          ++painted;
          if (d[i + 3] > 200 && near(d, i, compute, 24)) ++computePixels;
          // A band alone: the class colour at the band's opacity (nothing drawn over it).
          if (Math.abs(d[i + 3] - 255 * alpha) <= 3) {
            for (const c of classes) if (near(d, i, shades[c], 8)) ++shadePixels[c];
          }
        }
      }
      const chart = sec.querySelector('[data-chart]');
      return {
        gpu: Number(sec.dataset.gpu),
        points: Number(chart.dataset.points),
        phasesDrawn: Number(chart.dataset.phasesDrawn),
        computePixels, painted, shadePixels,
        bar: [...sec.querySelectorAll('[data-boundbar] span')].map((s) => [s.dataset.class, Number(s.dataset.seconds)]),
        kernels: [...sec.querySelectorAll('tbody[data-kernels] tr')].map((tr) => ({
          name: tr.dataset.name, cells: [...tr.children].map((td) => td.textContent) })),
        phaseRows: sec.querySelectorAll('tbody[data-phases] tr').length,
        noTable: !sec.querySelector('[data-kernels-none]').hidden,
        noKernels: !sec.querySelector('[data-kernels-empty]').hidden,
        compute: sec.querySelector('[data-field="compute_sol_pct"]').dataset.value,
      };
    });
  });
}

function compareSection(sec, gpu, hasKernelLog, what) {
  const tag = `${what} GPU ${sec.gpu}`;
  const series = gpu.series || {};
  const points = (series.t_ns || []).length;
  check(points > 0 || !(gpu.samples > 0), `${tag}: no series for a GPU with ${gpu.samples} samples`);
  check(sec.points === points, `${tag}: the chart has ${sec.points} points, the report ${points}`);
  if (points > 1 && (series.compute_sol_pct || []).some((v) => typeof v === 'number')) {
    check(sec.computePixels > 100, `${tag}: the chart has ${sec.computePixels} pixels of the Compute SOL line`);
  }
  const phases = gpu.phases || [];
  check(sec.phaseRows === phases.length, `${tag}: ${sec.phaseRows} phase rows, the report has ${phases.length}`);
  check(sec.phasesDrawn === phases.length, `${tag}: ${sec.phasesDrawn} bands painted for ${phases.length} phases`);
  for (const cls of new Set(phases.map((p) => p.bound))) {
    check(sec.shadePixels[cls] > 200, `${tag}: ${sec.shadePixels[cls]} pixels of the ${cls} band on the chart`);
  }
  const wantBar = Object.entries(gpu.bound_s || {}).filter(([, s]) => s > 0);
  check(sec.bar.length === wantBar.length && wantBar.every(([c, s]) => sec.bar.some(([bc, bs]) => bc === c && bs === s)),
        `${tag}: the bound-class bar ${JSON.stringify(sec.bar)}, the report ${JSON.stringify(gpu.bound_s)}`);
  const kernels = (gpu.kernels && gpu.kernels.top) || [];
  check(sec.noTable === (kernels.length === 0 && !hasKernelLog),
        `${tag}: "no kernel table" shown=${sec.noTable}, the trace's kernel_log is ${hasKernelLog}`);
  check(sec.noKernels === (kernels.length === 0 && hasKernelLog),
        `${tag}: "no kernel of this GPU" shown=${sec.noKernels} with ${kernels.length} kernels`);
  check(sec.kernels.length === kernels.length, `${tag}: ${sec.kernels.length} kernel rows, the report has ${kernels.length}`);
  kernels.forEach((k, i) => {
    const row = sec.kernels[i];
    check(row.name === k.name && row.cells[1] === k.name,
          `${tag}: kernel row ${i + 1} is "${row.cells[1]}", the report's is "${k.name}"`);
    check(row.cells[2] === String(k.calls).replace(/\B(?=(\d{3})+(?!\d))/g, ','),
          `${tag}: kernel "${k.name}" shows ${row.cells[2]} calls, the report ${k.calls}`);
  });
  const want = typeof gpu.compute_sol_pct === 'number' ? String(gpu.compute_sol_pct) : '';
  check(sec.compute === want, `${tag}: Compute SOL ${sec.compute}, the report ${want}`);
}

// The Workloads section against the report's `workloads` (null or [] = a note and no row).
async function checkWorkloads(page, json, name) {
  const shown = await page.evaluate(() => {
    const note = document.querySelector('[data-workloads-note]');
    const value = (tr, field) => tr.querySelector(`[data-field="${field}"]`).dataset.value;
    return {
      visible: !document.querySelector('#workloads').hidden,
      note: note.hidden ? '' : note.textContent,
      rows: [...document.querySelectorAll('tbody[data-workloads] tr')].map((tr) => ({
        name: tr.dataset.workload, gpu_s: value(tr, 'gpu_s'), compute: value(tr, 'compute_sol_pct'),
        energy: value(tr, 'energy_j'), idle: value(tr, 'idle_s') })),
    };
  });
  const want = json.workloads || [];
  const text = (v) => (typeof v === 'number' ? String(v) : '');
  check(shown.visible, `${name}: the Workloads section is hidden`);
  check((shown.note !== '') === (want.length === 0), `${name}: Workloads note "${shown.note}" with ${want.length} rows`);
  check(shown.rows.length === want.length, `${name}: ${shown.rows.length} workload rows, the report has ${want.length}`);
  want.forEach((w, i) => {
    const row = shown.rows[i] || {};
    check(row.name === w.workload && row.gpu_s === text(w.gpu_s) && row.compute === text(w.compute_sol_pct) &&
          row.energy === text(w.energy_j) && row.idle === text(w.idle_s),
          `${name}: workload row ${i + 1} ${JSON.stringify(row)}, the report's ${JSON.stringify(w)}`);
  });
  return want.length;
}

// The Training steps card against the report's `training_steps`; returns the number of strips drawn.
async function checkTrainingSteps(page, json, name) {
  const shown = await page.evaluate(() => ({
    visible: !document.querySelector('#training-steps').hidden,
    rows: [...document.querySelectorAll('tbody[data-steps] tr')].map((tr) => ({
      gpu: Number(tr.dataset.gpu), source: tr.dataset.source })),
    straggler: (() => { const p = document.querySelector('[data-straggler]'); return p.hidden ? null : Number(p.dataset.value); })(),
    strips: [...document.querySelectorAll('figure[data-strip]')].map((f) => ({
      gpu: Number(f.dataset.strip),
      segments: [...f.querySelectorAll('rect')].map((r) => ({
        kind: r.dataset.kind, start_ms: Number(r.dataset.startMs), end_ms: Number(r.dataset.endMs),
        width: r.getBoundingClientRect().width })),
    })),
  }));
  const steps = json.training_steps || { gpus: [] };
  check(shown.visible === steps.gpus.length > 0, `${name}: Training steps visible=${shown.visible}`);
  check(isDeepStrictEqual(shown.rows, steps.gpus.map((g) => ({ gpu: g.index, source: g.source }))),
        `${name}: the Training steps rows ${JSON.stringify(shown.rows)} differ from the report's GPUs`);
  check(shown.straggler === (steps.straggler ? steps.straggler.index : null),
        `${name}: straggler shown ${shown.straggler}, the report says ${JSON.stringify(steps.straggler)}`);
  const withStrip = steps.gpus.filter((g) => g.source === 'kernel_log' && (g.strip || []).length);
  check(shown.strips.length === withStrip.length, `${name}: ${shown.strips.length} strips for ${withStrip.length} GPUs`);
  withStrip.forEach((g, i) => {
    const strip = shown.strips[i];
    check(strip.gpu === g.index, `${name}: strip ${i} is of GPU ${strip.gpu}, not ${g.index}`);
    check(isDeepStrictEqual(strip.segments.map(({ kind, start_ms, end_ms }) => ({ kind, start_ms, end_ms })),
                            g.strip.map(({ kind, start_ms, end_ms }) => ({ kind, start_ms, end_ms }))),
          `${name}: GPU ${g.index}'s strip differs from the report's`);
    check(strip.segments.every((s) => s.width > 0), `${name}: GPU ${g.index} has a segment drawn 0 px wide`);
  });
  if (name === 'report-dp-step') {
    check(shown.strips.length === 4 && shown.straggler === 2,
          `${name}: ${shown.strips.length} strips and straggler ${shown.straggler}; the scenario has 4 and GPU 2`);
  }
  return shown.strips.length;
}

async function checkTrace(browser, args, trace, name, screenshot) {
  const { json, html } = makeReport(args, trace, name);
  const problems = [];
  const { context, page } = await openFilePage(browser, html, { width: 1280, height: 900 }, problems);
  const sections = await readSections(page);
  check(sections.length === json.gpus.length, `${name}: ${sections.length} GPU sections for ${json.gpus.length} GPUs`);
  for (const sec of sections) {
    const gpu = json.gpus.find((g) => g.index === sec.gpu);
    check(gpu, `${name}: a section for GPU ${sec.gpu}, which the report does not list`);
    compareSection(sec, gpu, Boolean(json.trace.kernel_log), name);
  }
  const workloads = await checkWorkloads(page, json, name);
  const strips = await checkTrainingSteps(page, json, name);
  if (name === 'report-workloads') check(workloads === 3, `${name}: ${workloads} workload rows, the scenario has 3`);
  check(await page.title() === 'solscope report', `${name}: the page's title became "${await page.title()}"`);
  const synthetic = await page.locator('#synthetic-banner').isVisible();
  check(synthetic === Boolean(json.trace && json.trace.synthetic), `${name}: SYNTHETIC banner visible=${synthetic}`);
  const shot = path.join(args.workdir, `${name}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  if (screenshot) {
    mkdirSync(path.dirname(screenshot), { recursive: true });
    copyFileSync(shot, screenshot);
  }
  await context.close();

  const phone = await openFilePage(browser, html, { width: 390, height: 844 }, problems);
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 1, `${name}: at 390 px the page is ${overflow} px wider than the screen`);
  await phone.page.screenshot({ path: path.join(args.workdir, `${name}-phone.png`), fullPage: true });
  await phone.context.close();
  check(problems.length === 0, `${name}:\n${problems.join('\n')}`);
  const kernels = json.gpus.reduce((n, g) => n + ((g.kernels && g.kernels.top) || []).length, 0);
  if (name === 'report-kernels' || name === 'report-hostile') {
    check(kernels > 0, `${name}: the report of a trace with a kernels table lists no kernel`);
  }
  if (name === 'report-hostile') {
    check(json.gpus.some((g) => g.kernels.top.some((k) => k.name === kHostileName)),
          `${name}: the renamed kernel is not in the report`);
  }
  const phases = json.gpus.reduce((n, g) => n + (g.phases || []).length, 0);
  console.log(`${name}: ${sections.length} GPUs, ${phases} phases shaded, ${kernels} kernel rows, ${workloads} ` +
              `workload rows, ${strips} iteration strips, no request, no console error; screenshot ${shot}`);
}

// Two SYNTHETIC traces with a kernels table (solscope_make_synthetic_trace --kernels): as generated, and with one
// kernel's name made hostile by Python's sqlite3 (the harness's Python 3). Null without the generator.
const kHostileName = '</script><script>document.title="injected"</script><!-- \u2028';
function makeKernelTraces(workdir) {
  const tool = process.env.SOLSCOPE_MAKE_TRACE;
  if (!tool) return null;
  const make = (trace) => execFileSync(tool, ['-o', trace, '--force', '--devices', '2', '--hz', '100', '--seconds',
    '60', '--profile', 'phases', '--kernels'], { stdio: 'ignore' });
  const plain = path.join(workdir, 'kernels.sqlite');
  const hostile = path.join(workdir, 'hostile.sqlite');
  make(plain);
  make(hostile);
  const workloads = path.join(workdir, 'workloads.sqlite');
  execFileSync(tool, ['-o', workloads, '--force', '--workloads'], { stdio: 'ignore' });
  const dpStep = path.join(workdir, 'dp-step.sqlite');
  execFileSync(tool, ['-o', dpStep, '--force', '--dp-step'], { stdio: 'ignore' });
  execFileSync('python3', ['-c', `import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
name = db.execute('SELECT name FROM kernels ORDER BY id LIMIT 1').fetchone()[0]
db.execute('UPDATE kernels SET name = ? WHERE name = ?', (sys.argv[2], name))
db.commit()`, hostile, kHostileName], { stdio: 'inherit' });
  return { plain, hostile, workloads, dpStep };
}

async function main() {
  const args = parseArgs({ trace: path.join(root, 'tests/data/demo-trace.sqlite') });
  mkdirSync(args.workdir, { recursive: true });
  const browser = await launchChromium(args);
  try {
    const traces = makeKernelTraces(args.workdir);
    await checkTrace(browser, args, args.trace, 'report', traces ? null : args.screenshot);
    if (traces) {
      await checkTrace(browser, args, traces.plain, 'report-kernels', args.screenshot);
      await checkTrace(browser, args, traces.hostile, 'report-hostile', null);
      await checkTrace(browser, args, traces.workloads, 'report-workloads', null);
      await checkTrace(browser, args, traces.dpStep, 'report-dp-step', null);
    } else {
      console.log('note: $SOLSCOPE_MAKE_TRACE is not set: the kernel-table part is left out');
    }
  } finally {
    await browser.close();
  }
  console.log('PASS');
}

runTest(main);
