// solscope ceiling sweep page (sweep.html): draws the sweep of `solscope ceiling --serve --sweep --json`
// (README "solscope ceiling"), which the binary inlines into the page: the throughput-versus-interactivity curve
// (output tokens/s per GPU against tokens/s per user), the activity curve over concurrency and the table of
// points. Plain JavaScript, no build step, no request: everything is in the one file.
// Test hooks: body[data-state] (loading|ready|error); #tradeoff-chart[data-points] and #activity-chart[data-points]
// (points drawn); #points tr[data-concurrency] (one row per point; class best / over).
'use strict';

(() => {
  const { $, isNum, el } = solscopePage;  // page.js
  const fmt = (v, digits, unit = '') => (isNum(v) ? `${v.toFixed(digits)}${unit ? `\u202f${unit}` : ''}` : 'n/a');
  const fmtCount = (n) => (isNum(n) ? String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : 'n/a');

  function palette() {
    const css = getComputedStyle(document.documentElement);
    const get = (name) => css.getPropertyValue(name).trim();
    return { fg: get('--fg'), grid: get('--grid'), compute: get('--compute'), memory: get('--memory'),
             mfu: get('--mfu'), over: get('--over') };
  }

  function renderMeta(sweep) {
    const meta = $('#sweep-meta');
    const t = sweep.traffic || {};
    const limits = [];
    if (isNum((sweep.limits || {}).max_tpot_s)) limits.push(`TPOT \u2264 ${sweep.limits.max_tpot_s * 1e3} ms`);
    if (isNum((sweep.limits || {}).max_ttft_s)) limits.push(`TTFT \u2264 ${sweep.limits.max_ttft_s * 1e3} ms`);
    const facts = [
      ['Model', (sweep.model || {}).name],
      ['GPU', `${(sweep.gpu || {}).id}${t.gpus > 1 ? ` \u00d7 ${t.gpus}` : ''}`],
      ['Traffic', `isl ${t.isl}, osl ${t.osl}, budget ${fmtCount(t.max_batched_tokens)} tokens/step`],
      ['Memory limit', sweep.max_fitting_concurrency > 0 ? `${fmtCount(sweep.max_fitting_concurrency)} requests`
        : 'one request does not fit'],
      ['Limits', limits.length ? limits.join(', ') : 'none'],
    ];
    for (const [k, v] of facts) {
      const d = el('div');
      d.append(el('dt', k), el('dd', v));
      meta.append(d);
    }
    const best = (sweep.points || []).find((p) => p.best);
    $('[data-field="best"]').textContent = best
      ? `Best: concurrency ${best.concurrency}, ${fmt(best.output_tokens_per_s_per_gpu, 0)} tokens/s per GPU at ` +
        `${fmt(best.tokens_per_s_per_user, 1)} tokens/s per user.`
      : 'No point keeps the limits.';
  }

  function renderTable(points) {
    const body = $('#points');
    for (const p of points) {
      const tr = el('tr');
      tr.dataset.concurrency = String(p.concurrency);
      if (p.best) tr.classList.add('best');
      else if (p.fits && !p.within_limits) tr.classList.add('over');
      const cells = [fmtCount(p.concurrency), fmt(p.output_tokens_per_s_per_gpu, 0), fmt(p.tokens_per_s_per_user, 1),
        fmt(p.ttft_s * 1e3, 1, 'ms'), fmt(p.tpot_s === null ? NaN : p.tpot_s * 1e3, 2, 'ms'),
        fmt(p.compute_sol_pct, 1, '%'), fmt(p.useful_compute_sol_pct, 1, '%'), fmt(p.memory_sol_pct, 1, '%'),
        p.limiter, p.fits ? 'yes' : 'no', p.best ? 'best' : (p.fits && !p.within_limits ? 'over the limits' : '')];
      for (const c of cells) tr.append(el('td', c));
      body.append(tr);
    }
  }

  function sizeOf(chartEl) {
    return { width: Math.max(chartEl.clientWidth, 280), height: chartEl.clientWidth < 500 ? 220 : 300 };
  }

  function follow(chartEl, chart) {
    new ResizeObserver(() => {
      const s = sizeOf(chartEl);
      if (s.width !== chart.width) chart.setSize(s);
    }).observe(chartEl);
  }

  // x = tokens/s per user, ascending (uPlot wants x sorted); one line through every point, and the points outside the
  // limits (or memory) marked again in their own colour, without a line.
  function renderTradeoff(points, c) {
    const chartEl = $('#tradeoff-chart');
    const drawn = points.filter((p) => isNum(p.tokens_per_s_per_user) && isNum(p.output_tokens_per_s_per_gpu))
      .sort((a, b) => a.tokens_per_s_per_user - b.tokens_per_s_per_user);
    chartEl.dataset.points = String(drawn.length);
    if (drawn.length === 0) {
      chartEl.append(el('p', 'No point has a TPOT (osl 1): nothing to chart.', 'empty'));
      return;
    }
    const ok = (p) => p.fits && p.within_limits;
    const data = [drawn.map((p) => p.tokens_per_s_per_user), drawn.map((p) => p.output_tokens_per_s_per_gpu),
      drawn.map((p) => (ok(p) ? null : p.output_tokens_per_s_per_gpu))];
    const axis = { stroke: c.fg, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 } };
    const tokens = (u, v) => (v === null || v === undefined ? '\u2013' : `${v.toFixed(0)} tok/s`);
    const opts = {
      ...sizeOf(chartEl),
      scales: { x: { time: false }, y: { range: (u, min, max) => [0, isNum(max) ? max * 1.05 : 1] } },
      axes: [{ ...axis, label: 'tokens/s per user', values: (u, vals) => vals.map((v) => `${v}`) },
             { ...axis, size: 64, label: 'output tokens/s per GPU', values: (u, vals) => vals.map((v) => `${v}`) }],
      series: [
        { label: 'tokens/s per user', value: (u, v) => (v === null || v === undefined ? '\u2013' : v.toFixed(1)) },
        { label: 'output tokens/s per GPU', stroke: c.compute, width: 2, points: { show: true, size: 6 },
          value: tokens },
        { label: 'over the limits', stroke: c.over, width: 2, paths: () => null,
          points: { show: true, size: 9, fill: c.over }, value: tokens },
      ],
      cursor: { drag: { x: true, y: false } },
    };
    follow(chartEl, new uPlot(opts, data, chartEl));
  }

  function renderActivity(points, c) {
    const chartEl = $('#activity-chart');
    chartEl.dataset.points = String(points.length);
    const col = (name) => points.map((p) => (isNum(p[name]) ? p[name] : null));
    const data = [points.map((p) => p.concurrency), col('compute_sol_pct'), col('useful_compute_sol_pct'),
      col('memory_sol_pct')];
    const axis = { stroke: c.fg, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 } };
    const pct = (u, v) => (v === null || v === undefined ? '\u2013' : `${v.toFixed(1)} %`);
    const single = points.length < 2;
    const opts = {
      ...sizeOf(chartEl),
      scales: { x: single ? { time: false, range: (u, min, max) => [min - 1, max + 1] } : { time: false, distr: 3 },
                y: { range: (u, min, max) => [0, Math.max(100, Math.ceil(isNum(max) ? max : 0))] } },
      // A log axis passes null for the ticks it leaves unlabelled.
      axes: [{ ...axis, label: 'concurrency (requests in flight)',
               values: (u, vals) => vals.map((v) => (v === null || v === undefined ? '' : `${v}`)) },
             { ...axis, size: 48, values: (u, vals) => vals.map((v) => `${v}%`) }],
      series: [
        { label: 'concurrency', value: (u, v) => (v === null || v === undefined ? '\u2013' : String(v)) },
        { label: 'activity (attainable Compute SOL)', stroke: c.compute, width: 2, points: { show: true, size: 5 },
          value: pct },
        { label: 'MFU (useful Compute SOL)', stroke: c.mfu, width: 2, points: { show: true, size: 5 }, value: pct },
        { label: 'Memory SOL', stroke: c.memory, width: 2, points: { show: true, size: 5 }, value: pct },
      ],
      cursor: { drag: { x: true, y: false } },
    };
    follow(chartEl, new uPlot(opts, data, chartEl));
  }

  function main() {
    let sweep;
    try {
      sweep = JSON.parse($('#sweep-data').textContent);
    } catch (err) {
      $('#error-banner').textContent = `The sweep's data could not be read: ${err.message}`;
      $('#error-banner').hidden = false;
      document.body.dataset.state = 'error';
      return;
    }
    const points = sweep.points || [];
    renderMeta(sweep);
    renderTable(points);
    if (typeof uPlot === 'undefined') {
      $('#error-banner').textContent = 'The chart library is missing from this file: charts are off.';
      $('#error-banner').hidden = false;
    } else if (points.length > 0) {
      const c = palette();
      renderTradeoff(points, c);
      renderActivity(points, c);
    }
    document.body.dataset.state = 'ready';
  }

  main();
})();
