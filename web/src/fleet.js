// solscope fleet view (docs/http-api.md "/api/v1/fleet"): one row per GPU of a Prometheus-backed fleet, served
// by `solscope serve --prometheus URL`. The table renders only the rows in view (thousands stay responsive),
// sorts by any column header, filters on host/GPU/model/job, highlights busy-but-idle GPU-hours and stragglers,
// and opens one GPU's history (uPlot) on a click or Enter. Plain JavaScript, no build step, no external URL; the
// API, page helpers and chart it shares with the dashboard are in common.js.
// Test hooks: body[data-state] (loading|live|error); table[data-rows] (rows after the filter) and
// [data-sort] ("column:asc|desc"); tr[data-host][data-gpu]; td[data-col][data-value] (unrounded, "" = unknown);
// #fleet-history[data-host][data-gpu][data-points]; #total-*[data-value].
'use strict';

(() => {
  const { $, isNum, fmtPct, showError, getJson } = solscope;
  const kRowPx = 30;            // fixed row height (fleet.css .fleet tbody tr)
  const kOverscanRows = 10;     // rows rendered above and below the visible ones
  const kMinRefreshMs = 5000;
  const kErrorRetryMs = 10000;

  const kColumns = [
    { key: 'host', label: 'Host', kind: 'text' },
    { key: 'gpu', label: 'GPU', kind: 'text' },
    { key: 'model_name', label: 'Model', kind: 'text' },
    { key: 'job', label: 'Job', kind: 'text' },
    { key: 'series', label: 'Series', kind: 'text' },  // solscope's own, or dcgm-exporter's (coarser SOL)
    { key: 'compute_sol_pct', label: 'Compute SOL', kind: 'pct' },
    { key: 'memory_sol_pct', label: 'Memory SOL', kind: 'pct' },
    { key: 'gpu_util_pct', label: 'Util', kind: 'pct' },
    { key: 'compute_sol_mean_pct', label: 'Compute SOL mean', kind: 'pct' },
    { key: 'memory_sol_mean_pct', label: 'Memory SOL mean', kind: 'pct' },
    { key: 'gpu_util_mean_pct', label: 'Util mean', kind: 'pct' },
    { key: 'busy_idle_gpu_hours', label: 'Busy-idle GPU\u2011h', kind: 'hours' },
    { key: 'straggler_gap_pct', label: 'Straggler gap', kind: 'gap' },
  ];

  const state = {
    rows: [],          // the snapshot's rows
    view: [],          // filtered and sorted
    sortKey: null,     // null = the snapshot's order (host, gpu)
    sortDesc: false,
    filter: '',
    timer: 0,
    renderQueued: false,
    chart: null,
    historyKey: null,  // "host\u0000gpu" of the open history
  };

  const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

  // ---------------------------------------------------------------- formatting (locale-independent)
  const fmtHours = (v) => (isNum(v) ? v.toFixed(2) : 'n/a');
  const fmtGap = (v) => (isNum(v) ? `${v > 0 ? '+' : ''}${v.toFixed(1)}\u202fpt` : '\u2013');
  const fmtTime = (ns) => new Date(ns / 1e6).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  function fmtSpan(ns) {
    const s = ns / 1e9;
    if (s >= 3600 && s % 3600 === 0) return `${s / 3600}\u202fh`;
    if (s >= 60 && s % 60 === 0) return `${s / 60}\u202fmin`;
    return `${s}\u202fs`;
  }
  function fmtCell(col, v) {
    if (col.kind === 'pct') return fmtPct(v);
    if (col.kind === 'hours') return fmtHours(v);
    if (col.kind === 'gap') return fmtGap(v);
    return v || '\u2013';
  }

  // ---------------------------------------------------------------- table
  function buildHead() {
    const tr = $('#fleet-head');
    for (const col of kColumns) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.dataset.col = col.key;
      th.setAttribute('aria-sort', 'none');
      if (col.kind !== 'text') th.classList.add('num');
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = col.label;
      button.addEventListener('click', () => sortBy(col.key));
      th.append(button);
      tr.append(th);
    }
  }

  function sortBy(key) {
    if (state.sortKey === key) {
      state.sortDesc = !state.sortDesc;
    } else {
      state.sortKey = key;
      const col = kColumns.find((c) => c.key === key);
      state.sortDesc = col.kind !== 'text';  // figures: highest first
    }
    for (const th of $('#fleet-head').children) {
      th.setAttribute('aria-sort', th.dataset.col !== key ? 'none' : state.sortDesc ? 'descending' : 'ascending');
    }
    applyView();
  }

  // Unknown figures sort last in either direction.
  function compareRows(a, b) {
    const key = state.sortKey;
    const va = a[key];
    const vb = b[key];
    const col = kColumns.find((c) => c.key === key);
    if (col.kind === 'text') {
      const c = collator.compare(va || '', vb || '');
      return state.sortDesc ? -c : c;
    }
    if (!isNum(va) || !isNum(vb)) return (isNum(va) ? 0 : 1) - (isNum(vb) ? 0 : 1);
    return state.sortDesc ? vb - va : va - vb;
  }

  function applyView() {
    const words = state.filter.toLowerCase().split(/\s+/).filter(Boolean);
    let view = state.rows;
    if (words.length) {
      view = view.filter((r) => {
        const text = `${r.host} ${r.gpu} ${r.model_name} ${r.job} ${r.series} ${r.uuid}`.toLowerCase();
        return words.every((w) => text.includes(w));
      });
    } else {
      view = view.slice();
    }
    if (state.sortKey) view.sort((a, b) => compareRows(a, b) || collator.compare(a.host, b.host) ||
                                           collator.compare(a.gpu, b.gpu));
    state.view = view;
    const table = $('#fleet-table');
    table.dataset.rows = String(view.length);
    table.dataset.sort = state.sortKey ? `${state.sortKey}:${state.sortDesc ? 'desc' : 'asc'}` : '';
    table.setAttribute('aria-rowcount', String(view.length + 1));
    $('#shown').textContent = `${view.length} of ${state.rows.length} GPUs`;
    $('#empty').hidden = view.length > 0 || state.rows.length === 0;
    scheduleRender();
  }

  function scheduleRender() {
    if (state.renderQueued) return;
    state.renderQueued = true;
    requestAnimationFrame(() => {
      state.renderQueued = false;
      renderRows();
    });
  }

  function spacer(px) {
    const tr = document.createElement('tr');
    tr.className = 'spacer';
    tr.setAttribute('aria-hidden', 'true');
    tr.style.height = `${px}px`;
    return tr;
  }

  function rowElement(r, index) {
    const tr = document.createElement('tr');
    tr.dataset.host = r.host;
    tr.dataset.gpu = r.gpu;
    tr.dataset.label = r.label || `GPU ${r.gpu}`;
    tr.tabIndex = 0;
    tr.setAttribute('aria-rowindex', String(index + 2));
    if (isNum(r.busy_idle_gpu_hours) && r.busy_idle_gpu_hours > 0) tr.classList.add('busy-idle');
    if (r.straggler) tr.classList.add('straggler');
    if (state.historyKey === `${r.host}\u0000${r.gpu}`) tr.classList.add('selected');
    for (const col of kColumns) {
      const td = document.createElement('td');
      const v = r[col.key];
      td.dataset.col = col.key;
      td.dataset.value = v === null || v === undefined ? '' : String(v);
      td.textContent = fmtCell(col, v);
      if (col.kind !== 'text') td.classList.add('num');
      if (col.key === 'series') {
        td.title = r.series === 'dcgm'
          ? "dcgm-exporter's series: Compute SOL = the busiest of the tensor/FP64/FP32/FP16 pipes, Memory SOL = DRAM"
          : "solscope's own series";
      }
      if (col.key === 'straggler_gap_pct' && r.straggler) {
        const badge = document.createElement('span');
        badge.className = 'badge straggler-badge';
        badge.textContent = 'straggler';
        td.append(' ', badge);
      }
      tr.append(td);
    }
    return tr;
  }

  // Only the rows in view (and a few either side) are in the DOM; spacer rows keep the scroll height.
  function renderRows() {
    const scroll = $('#fleet-scroll');
    const total = state.view.length;
    const visible = Math.ceil(scroll.clientHeight / kRowPx) || 30;
    const first = Math.max(0, Math.floor(scroll.scrollTop / kRowPx) - kOverscanRows);
    const last = Math.min(total, first + visible + 2 * kOverscanRows);
    const body = $('#fleet-body');
    const parts = [spacer(first * kRowPx)];
    for (let i = first; i < last; ++i) parts.push(rowElement(state.view[i], i));
    parts.push(spacer((total - last) * kRowPx));
    body.replaceChildren(...parts);
  }

  // ---------------------------------------------------------------- totals and header
  function setOutput(id, value, text) {
    const el = $(id);
    el.dataset.value = value === null || value === undefined ? '' : String(value);
    el.textContent = text;
  }

  function applySnapshot(doc) {
    state.rows = doc.rows || [];
    const t = doc.totals || {};
    setOutput('#total-gpus', t.gpus, isNum(t.gpus) ? String(t.gpus) : 'n/a');
    setOutput('#total-sol', t.compute_sol_mean_pct, fmtPct(t.compute_sol_mean_pct));
    setOutput('#total-busy-idle', t.busy_idle_gpu_hours, `${fmtHours(t.busy_idle_gpu_hours)}\u202fGPU-h`);
    setOutput('#total-stragglers', t.stragglers, isNum(t.stragglers) ? String(t.stragglers) : 'n/a');
    $('#source').textContent = doc.source || 'n/a';
    $('#window').textContent = isNum(doc.window_end_ns) && doc.window_end_ns > doc.window_start_ns
      ? `${fmtSpan(doc.window_end_ns - doc.window_start_ns)} to ${fmtTime(doc.window_end_ns)}, step ${fmtSpan(doc.step_ns)}`
      : 'n/a';
    $('#refreshed').textContent = isNum(doc.refreshed_ns) ? fmtTime(doc.refreshed_ns) : 'n/a';
    const notes = $('#notes');
    notes.replaceChildren(...(doc.notes || []).map((n) => {
      const li = document.createElement('li');
      li.textContent = n;
      return li;
    }));
    notes.hidden = !(doc.notes || []).length;
    applyView();
  }

  async function refresh() {
    clearTimeout(state.timer);
    let nextMs = kErrorRetryMs;
    try {
      const doc = await getJson('/api/v1/fleet');
      applySnapshot(doc);
      showError('');
      document.body.dataset.state = 'live';
      nextMs = Math.max(kMinRefreshMs, (isNum(doc.refresh_s) ? doc.refresh_s : 15) * 1000);
    } catch (err) {
      showError(err.status ? `the fleet cannot be read: ${err.message} [HTTP ${err.status}]`
                           : `cannot reach the daemon: ${err.message}`);
      document.body.dataset.state = 'error';
      $('#refreshed').textContent = 'failed';
      if (!$('#token-form').hidden) return;  // waits for the token
    }
    state.timer = setTimeout(refresh, nextMs);
  }

  // ---------------------------------------------------------------- history (uPlot)
  // `label`: how the row's GPU is named ("GPU 0", "GPU 3 \u00b7 MIG 1g.10gb #2": the API's label).
  async function openHistory(host, gpu, label) {
    const panel = $('#fleet-history');
    state.historyKey = `${host}\u0000${gpu}`;
    panel.hidden = false;
    panel.dataset.host = host;
    panel.dataset.gpu = gpu;
    panel.dataset.points = '0';
    $('#history-title').textContent = `${host} \u00b7 ${label}: loading`;
    scheduleRender();
    try {
      const doc = await getJson(`/api/v1/fleet/history?host=${encodeURIComponent(host)}&gpu=${encodeURIComponent(gpu)}`);
      if (state.historyKey !== `${host}\u0000${gpu}`) return;  // another row was opened meanwhile
      const pts = doc.points || [];
      const data = [pts.map((p) => p.t_ns / 1e9), pts.map((p) => p.compute_sol_pct),
                    pts.map((p) => p.memory_sol_pct), pts.map((p) => p.gpu_util_pct)];
      const model = doc.model_name ? ` (${doc.model_name})` : '';
      $('#history-title').textContent = `${host} \u00b7 ${label}${model}`;
      const notes = $('#history-notes');
      notes.textContent = (doc.notes || []).join(' ');
      notes.hidden = !(doc.notes || []).length;
      if (typeof uPlot === 'undefined') {
        showError('the chart library did not load: charts are off');
      } else {
        if (!state.chart) state.chart = solscope.makeChart($('#history-chart'), () => 240);
        state.chart.setData(data);
      }
      panel.dataset.points = String(pts.length);
      panel.scrollIntoView({ block: 'nearest' });
    } catch (err) {
      $('#history-title').textContent = `${host} \u00b7 ${label}: ${err.message}`;
    }
  }

  function closeHistory() {
    state.historyKey = null;
    $('#fleet-history').hidden = true;
    scheduleRender();
  }

  // ---------------------------------------------------------------- start
  function init() {
    buildHead();
    $('#fleet-scroll').addEventListener('scroll', scheduleRender, { passive: true });
    new ResizeObserver(scheduleRender).observe($('#fleet-scroll'));
    $('#filter').addEventListener('input', (e) => {
      state.filter = e.target.value;
      applyView();
    });
    const body = $('#fleet-body');
    body.addEventListener('click', (e) => {
      const tr = e.target.closest('tr[data-host]');
      if (tr) openHistory(tr.dataset.host, tr.dataset.gpu, tr.dataset.label);
    });
    body.addEventListener('keydown', (e) => {
      const tr = e.target.closest('tr[data-host]');
      if (tr && e.key === 'Enter') openHistory(tr.dataset.host, tr.dataset.gpu, tr.dataset.label);
    });
    $('#history-close').addEventListener('click', closeHistory);
    solscope.onTokenForm(refresh);
    refresh();
  }

  solscope.whenReady(init);
})();
