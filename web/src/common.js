// What the dashboard (app.js) and the fleet view (fleet.js) share: the daemon's API with its bearer token, the
// page helpers and the SOL chart. Plain JavaScript, no build step, no external URL; loaded (deferred) before the
// page's own script, it defines one global, `solscope`. Colours come from common.css.
'use strict';

const solscope = (() => {
  const kTokenKey = 'solscope.token';  // sessionStorage: the token this tab was given
  let token = sessionStorage.getItem(kTokenKey) || '';

  const $ = (sel, root = document) => root.querySelector(sel);
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  const fmtPct = (v) => (isNum(v) ? `${v.toFixed(1)}\u202f%` : 'n/a');

  // Runs `init` once the page is parsed.
  function whenReady(init) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
    else init();
  }

  // The page's error banner (#error-banner); an empty text hides it.
  function showError(text) {
    const el = $('#error-banner');
    el.textContent = text;
    el.hidden = !text;
  }

  // ---------------------------------------------------------------- the daemon's API (docs/http-api.md)
  const hasToken = () => token !== '';
  const authHeaders = () => (token ? { Authorization: `Bearer ${token}` } : {});

  // Shows the token form (#token-form), and `why` in the error banner when given.
  function askToken(why) {
    $('#token-form').hidden = false;
    if (why) showError(why);
  }

  // Wires the token form: a submitted token is kept for this tab, the form hides and `start` runs again.
  function onTokenForm(start) {
    $('#token-form').addEventListener('submit', (e) => {
      e.preventDefault();
      token = $('#token-input').value.trim();
      sessionStorage.setItem(kTokenKey, token);
      $('#token-form').hidden = true;
      showError('');
      start();
    });
  }

  // Resolves to the JSON body of GET `path`. Rejects with an Error whose message is the daemon's error and hint
  // ("HTTP n" when it sent none) and whose `status` is the HTTP status; on 401 or 403 (no `status`) it first
  // asks for the token.
  async function getJson(path) {
    const res = await fetch(path, { headers: authHeaders(), cache: 'no-store' });
    if (res.status === 401 || res.status === 403) {
      askToken(res.status === 403 ? 'The token was refused.' : '');
      throw new Error(res.status === 403 ? 'the token was refused' : 'this daemon requires a bearer token');
    }
    let body;
    try { body = await res.json(); } catch (e) { body = undefined; }
    if (!res.ok) {
      const what = body && body.error ? body.error : `HTTP ${res.status}`;
      const hint = body && body.hint ? ` (${body.hint})` : '';
      const err = new Error(`${what}${hint}`);
      err.status = res.status;
      throw err;
    }
    if (body === undefined) throw new Error(`${path}: the answer is not JSON`);
    return body;
  }

  // ---------------------------------------------------------------- charts (uPlot)
  // The chart colours: common.css's custom properties.
  function palette() {
    const css = getComputedStyle(document.documentElement);
    const get = (name) => css.getPropertyValue(name).trim();
    return { fg: get('--fg'), grid: get('--grid'), compute: get('--compute'), memory: get('--memory'),
             util: get('--util') };
  }

  // A series' value in the legend: percent, one decimal; a dash when unknown.
  const seriesValue = (u, v) => (v === null || v === undefined ? '\u2013' : `${v.toFixed(1)} %`);

  // A uPlot chart in `el` of Compute SOL, Memory SOL and the classic utilization in percent (y from 0 to at least
  // 100) over Unix seconds, as wide as `el` (at least 240 px) and heightOf(width) px high, resized with `el`;
  // empty until setData().
  function makeChart(el, heightOf) {
    const c = palette();
    const axis = { stroke: c.fg, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 } };
    const size = () => {
      const width = Math.max(el.clientWidth, 240);
      return { width, height: heightOf(width) };
    };
    const chart = new uPlot({
      ...size(),
      scales: { x: { time: true },
                y: { range: (u, min, max) => [0, Math.max(100, Math.ceil(isNum(max) ? max : 0))] } },
      axes: [axis, { ...axis, size: 48, values: (u, vals) => vals.map((v) => `${v}%`) }],
      series: [
        { label: 'Time' },
        { label: 'Compute SOL', stroke: c.compute, width: 2, value: seriesValue },
        { label: 'Memory SOL', stroke: c.memory, width: 2, value: seriesValue },
        { label: 'Classic util', stroke: c.util, width: 1.5, value: seriesValue },
      ],
      cursor: { drag: { x: true, y: false } },
    }, [[], [], [], []], el);
    new ResizeObserver(() => {
      const s = size();
      if (s.width !== chart.width) chart.setSize(s);
    }).observe(el);
    return chart;
  }

  return { $, isNum, fmtPct, whenReady, showError, hasToken, authHeaders, askToken, onTokenForm, getJson,
           palette, seriesValue, makeChart };
})();
