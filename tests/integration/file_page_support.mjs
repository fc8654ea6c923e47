// What the browser tests of solscope's self-contained HTML files (report_html_test.mjs for `report --html`,
// ceiling_sweep_html_test.mjs for `ceiling --serve --sweep --html`) share: their arguments, failures, the
// solscope runs, the inlined JSON of a written page, and opening the file in headless Chromium (playwright-core
// from web/node_modules) while recording every request, console error and page error.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Exit status of a skipped test (ctest's SKIP_RETURN_CODE). */
export const SKIP = 77;
/** The repository root. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A failed check: main() prints its message alone (no stack). */
export class Failure extends Error {}
export const check = (cond, message) => { if (!cond) throw new Failure(message); };

/** `--key value` pairs over `defaults` (chromium: /usr/bin/chromium); --solscope and --workdir are required. */
export function parseArgs(defaults = {}) {
  const out = { chromium: '/usr/bin/chromium', ...defaults };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  if (!out.solscope || !out.workdir) throw new Error('usage: --solscope BIN --workdir DIR');
  return out;
}

/** Runs solscope and returns its stdout; a non-zero exit is a Failure with its stderr. */
export function solscope(bin, args, cwd = root) {
  try {
    return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20, cwd });
  } catch (err) {
    throw new Failure(`solscope ${args.join(' ')} exited ${err.status}:\n${err.stderr}`);
  }
}

/** The JSON inlined in the written page `html` as <script type="application/json" id="ID">; the page may link
 *  no external URL, and with `noMarkers` hold no "@solscope:" template marker (a report's kernel may be named
 *  so). */
export function inlinedJson(html, id, { noMarkers = false } = {}) {
  const text = readFileSync(html, 'utf8');
  check(!/(src|href)\s*=\s*["']?\s*(https?:)?\/\//i.test(text), `${html} links an external URL`);
  check(!noMarkers || !text.includes('@solscope:'), `${html}: a template marker was left in the page`);
  const m = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(text);
  check(m, `${html} has no inlined ${id}`);
  return JSON.parse(m[1]);
}

/** Headless Chromium, or exit SKIP when Chromium or playwright-core is missing. */
export async function launchChromium(args) {
  const pw = path.join(root, 'web/node_modules/playwright-core');
  if (!existsSync(pw)) { console.log('SKIP: playwright-core is not installed (npm ci --prefix web)'); process.exit(SKIP); }
  if (!existsSync(args.chromium)) { console.log(`SKIP: ${args.chromium} is not installed`); process.exit(SKIP); }
  const { chromium } = createRequire(import.meta.url)(pw);
  return chromium.launch({ executablePath: args.chromium, headless: true,
                           args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** Opens the file `html` at `viewport` and waits for body[data-state] to say ready; every request other than
 *  the file, console error and page error is pushed to `problems`. Returns { context, page }. */
export async function openFilePage(browser, html, viewport, problems) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, colorScheme: 'light' });
  const page = await context.newPage();
  const url = pathToFileURL(html).href;
  page.on('request', (req) => { if (req.url() !== url) problems.push(`request other than the file: ${req.url()}`); });
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('body[data-state="ready"], body[data-state="error"]', { timeout: 20000 });
  check(await page.evaluate(() => document.body.dataset.state) === 'ready', `${html}: the page says it failed`);
  return { context, page };
}

/** Runs `main` and exits 1 with the failure's message (a stack for anything else). */
export function runTest(main) {
  main().catch((err) => {
    console.error(`FAIL: ${err instanceof Failure ? err.message : err.stack}`);
    process.exit(1);
  });
}
