#!/usr/bin/env node
// Integration test: headless Chromium, driven by playwright-core, opens the file of
// `solscope ceiling --serve --sweep --html FILE` from disk.
//
//   node ceiling_sweep_html_test.mjs --solscope BIN --workdir DIR [--chromium /usr/bin/chromium]
//
// For Llama-3.1-8B on H100 (isl 1024, osl 256, --max-tpot-ms 30) the page must hold the document of
// `--sweep --json` as its data, draw both uPlot charts (the throughput-versus-interactivity curve and the activity
// curve) with one point per sweep point and pixels of the Compute SOL colour on each canvas, list every point in
// its table with the best point and the points over the limits marked as the JSON says, keep the console free of
// errors and request nothing but the file itself; at a phone width of 390 px nothing may overflow sideways.
// Exit status: 0 pass, 1 fail (with the reason), 77 skip (Chromium or playwright-core missing).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { check, inlinedJson, launchChromium, openFilePage, parseArgs, runTest, solscope } from './file_page_support.mjs';

// The sweep as JSON and as a page; the page's inlined data must be that JSON.
function makeSweep(args) {
  const bin = path.resolve(args.solscope);
  const common = ['ceiling', '--gpu', 'H100', '--model', 'tests/data/hf_configs/llama-3.1-8b', '--serve', '--isl', '1024',
    '--osl', '256', '--max-tpot-ms', '30', '--sweep'];
  const json = JSON.parse(solscope(bin, [...common, '--json']));
  const html = path.resolve(args.workdir, 'sweep.html');
  solscope(bin, [...common, '--html', html, '--force']);
  const inlined = inlinedJson(html, 'sweep-data', { noMarkers: true });
  check(isDeepStrictEqual(inlined, json), `${html}: the inlined sweep differs from \`--sweep --json\``);
  return { json, html };
}

// Per chart: the points it says it drew, and the pixels of the Compute SOL colour on its canvases.
async function readPage(page) {
  return page.evaluate(() => {
    const css = getComputedStyle(document.documentElement);
    const hex = css.getPropertyValue('--compute').trim();
    const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const chart = (id) => {
      const e = document.getElementById(id);
      let pixels = 0;
      for (const canvas of e.querySelectorAll('canvas')) {
        const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 0; i < d.length; i += 4) {
          if (d[i + 3] > 200 && Math.abs(d[i] - rgb[0]) <= 24 && Math.abs(d[i + 1] - rgb[1]) <= 24 &&
              Math.abs(d[i + 2] - rgb[2]) <= 24) ++pixels;
        }
      }
      return { points: Number(e.dataset.points), canvases: e.querySelectorAll('canvas').length, pixels };
    };
    const rows = [...document.querySelectorAll('#points tr')];
    return {
      tradeoff: chart('tradeoff-chart'),
      activity: chart('activity-chart'),
      rows: rows.map((tr) => Number(tr.dataset.concurrency)),
      best: rows.filter((tr) => tr.classList.contains('best')).map((tr) => Number(tr.dataset.concurrency)),
      over: rows.filter((tr) => tr.classList.contains('over')).map((tr) => Number(tr.dataset.concurrency)),
      title: document.title,
    };
  });
}

function compare(shown, json) {
  const points = json.points;
  check(points.length === 30, `the sweep has ${points.length} points, not 30`);
  const withTpot = points.filter((p) => typeof p.tokens_per_s_per_user === 'number').length;
  check(shown.tradeoff.points === withTpot, `throughput chart: ${shown.tradeoff.points} points, the sweep ${withTpot}`);
  check(shown.activity.points === points.length,
        `activity chart: ${shown.activity.points} points, the sweep ${points.length}`);
  for (const [name, c] of [['throughput', shown.tradeoff], ['activity', shown.activity]]) {
    check(c.canvases > 0, `${name} chart: no canvas`);
    check(c.pixels > 100, `${name} chart: ${c.pixels} pixels of the Compute SOL colour`);
  }
  check(isDeepStrictEqual(shown.rows, points.map((p) => p.concurrency)),
        `table rows ${JSON.stringify(shown.rows)}, the sweep ${JSON.stringify(points.map((p) => p.concurrency))}`);
  check(isDeepStrictEqual(shown.best, [json.best_concurrency]), `best row ${shown.best}, the sweep ${json.best_concurrency}`);
  const over = points.filter((p) => p.fits && !p.within_limits).map((p) => p.concurrency);
  check(over.length > 0, 'no point is over the 30 ms TPOT limit: the test lost its purpose');
  check(isDeepStrictEqual(shown.over, over), `rows over the limits ${shown.over}, the sweep ${over}`);
  check(shown.title === 'solscope ceiling sweep', `the page's title became "${shown.title}"`);
}

async function main() {
  const args = parseArgs();
  mkdirSync(args.workdir, { recursive: true });
  const { json, html } = makeSweep(args);
  const browser = await launchChromium(args);
  try {
    const problems = [];
    const wide = await openFilePage(browser, html, { width: 1280, height: 900 }, problems);
    compare(await readPage(wide.page), json);
    await wide.page.screenshot({ path: path.join(args.workdir, 'sweep.png'), fullPage: true });
    await wide.context.close();
    const phone = await openFilePage(browser, html, { width: 390, height: 844 }, problems);
    const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 1, `at 390 px the page is ${overflow} px wider than the screen`);
    await phone.context.close();
    check(problems.length === 0, problems.join('\n'));
  } finally {
    await browser.close();
  }
  console.log(`ceiling sweep page: 30 points on both charts, best ${json.best_concurrency}, no request, no console error`);
  console.log('PASS');
}

runTest(main);
