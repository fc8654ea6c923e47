// solscope web dashboard: who uses the GPUs (docs/http-api.md "/api/v1/devices", Workloads). The workload line
// of each GPU card and the per-workload roll-up table, drawn from what the daemon sends computed: each device's
// `workloads` (sharing, each workload's `display` name and share) and the node's roll-up `workloads` (one row per
// workload with its GPUs, and a job's ranks compared: its `steps`). The page groups and counts nothing itself; the roll-up's SOL cells show, for each of
// the workload's GPUs, the figure of that GPU's latest window, as its card shows it. Loaded (deferred) after
// common.js and iteration.js and before app.js; defines one global, `solscopeWorkloads`.
// Test hooks: [data-field="workloads"][data-value] (the GPU's sharing: none, exclusive, time_sliced, concurrent)
// with data-displays (the workloads' display names, joined by '|'); #workloads tr[data-workload] (its display)
// with td[data-field] gpus, sharing, compute_sol_pct and memory_sol_pct, each data-value joined by ',' per GPU
// ('' = unknown), and straggler (a job's straggler: iteration.js).
'use strict';

const solscopeWorkloads = (() => {
  const { $, isNum, fmtPct } = solscope;

  // ---------------------------------------------------------------- the GPU card's workload line
  // "ml/train-0/trainer · exclusive", "ml/a/server 75.0 %, web/b/srv 25.0 % · shared (time-sliced)", "none".
  function cardText(w) {
    const items = (w && w.items) || [];
    if (!items.length) return 'none';
    const names = items.map((i) => (w.sharing === 'time_sliced' && isNum(i.fraction)
      ? `${i.display} ${fmtPct(i.fraction * 100)}` : i.display));
    return w.sharing_label ? `${names.join(', ')} \u00b7 ${w.sharing_label}` : names.join(', ');
  }

  // Sets the workload line of the card `el` from a device's `workloads` (absent from a daemon older than it).
  function setCard(el, w) {
    const out = $('[data-field="workloads"]', el);
    if (!out) return;
    const items = (w && w.items) || [];
    out.dataset.value = w && w.sharing ? w.sharing : 'none';
    out.dataset.displays = items.map((i) => i.display).join('|');
    out.textContent = cardText(w);
    out.title = w && w.note ? w.note : '';
  }

  // The process table's workload cell: the process's workload as the daemon names it.
  const processText = (p) => (p && p.workload && p.workload.display ? p.workload.display : '');

  // ---------------------------------------------------------------- the roll-up
  let rows = [];  // the daemon's roll-up rows, as sent

  function cell(field, text, value) {
    const td = document.createElement('td');
    td.dataset.field = field;
    td.dataset.value = value;
    td.textContent = text;
    return td;
  }

  // Replaces the roll-up's rows (a /api/v1/devices answer's `workloads`); the table hides when there is none.
  function setRollup(list) {
    rows = Array.isArray(list) ? list : [];
    const section = $('#workloads');
    if (!section) return;
    section.hidden = rows.length === 0;
    $('[data-field="workload_rows"]', section).replaceChildren(...rows.map((r) => {
      const tr = document.createElement('tr');
      tr.dataset.workload = r.display;
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = r.display;
      th.title = `origin: ${r.origin}`;
      const gpus = r.gpus || [];
      const straggler = solscopeIteration.stragglerCell(r.steps);
      const stragglerTd = cell('straggler', straggler.text, straggler.value);
      stragglerTd.title = straggler.title;
      tr.append(th,
                cell('gpus', gpus.map((g) => g.label).join(', '), gpus.map((g) => g.device).join(',')),
                cell('sharing', r.sharing || '', r.sharing || ''),
                cell('compute_sol_pct', '', ''), cell('memory_sol_pct', '', ''), stragglerTd);
      return tr;
    }));
  }

  // Fills the SOL cells from each GPU's latest window: latestOf(device index) -> window JSON or null.
  function renderRollup(latestOf) {
    const body = $('#workloads [data-field="workload_rows"]');
    if (!body) return;
    rows.forEach((r, i) => {
      const tr = body.children[i];
      if (!tr) return;
      const gpus = r.gpus || [];
      for (const field of ['compute_sol_pct', 'memory_sol_pct']) {
        const values = gpus.map((g) => {
          const w = latestOf(g.device);
          return w && isNum(w[field]) ? w[field] : null;
        });
        const td = $(`[data-field="${field}"]`, tr);
        td.dataset.value = values.map((v) => (v === null ? '' : String(v))).join(',');
        td.textContent = gpus.length === 1 ? fmtPct(values[0])
          : gpus.map((g, k) => `${g.label} ${fmtPct(values[k])}`).join(' \u00b7 ');
      }
    });
  }

  return { setCard, processText, setRollup, renderRollup };
})();
