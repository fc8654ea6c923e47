// solscope report page (report.html): draws the report of `solscope report TRACE --json` (docs/report.md), which
// the binary inlines into the page. Per GPU: the time-weighted figures, a bar of the time in each bound class, a
// uPlot chart of Compute SOL, Memory SOL and utilization over time with the phases shaded by class, the phase
// table and the top kernels. Plain JavaScript, no build step, no request: everything is in the one file.
// Test hooks: body[data-state] (loading|ready|error); section.gpu[data-gpu]; [data-chart][data-points] and
// [data-phases-drawn] (bands painted on the last draw); [data-boundbar] span[data-class][data-seconds];
// tbody[data-kernels] tr[data-name]; tbody[data-workloads] tr[data-workload] (section#workloads, with
// [data-workloads-note] when the trace holds none); section#training-steps tbody[data-steps] tr[data-gpu]
// [data-source], figure[data-strip] rect[data-kind][data-start-ms][data-end-ms], [data-straggler][data-value]; [data-field=NAME][data-value] holds each unrounded figure
// ("" = unknown).
'use strict';

(() => {
  const kClasses = ['compute', 'memory', 'latency', 'idle', 'unknown'];
  const kClassLabel = { compute: 'compute-bound', memory: 'memory-bound', latency: 'latency/launch-bound',
                        idle: 'idle', unknown: 'unknown' };

  const { $, isNum, el } = solscopePage;  // page.js

  // ---------------------------------------------------------------- formatting (locale-independent)
  const fmtPct = (v) => (isNum(v) ? `${v.toFixed(1)}\u202f%` : 'n/a');
  function fmtSeconds(s) {
    if (!isNum(s)) return 'n/a';
    const a = Math.abs(s);
    if (a >= 3600) return `${Math.floor(s / 3600)}\u202fh ${Math.round((s % 3600) / 60)}\u202fmin`;
    if (a >= 60) return `${Math.floor(s / 60)}\u202fmin ${(s % 60).toFixed(0)}\u202fs`;
    if (a >= 1) return `${s.toFixed(2)}\u202fs`;
    if (a >= 1e-3) return `${(s * 1e3).toFixed(2)}\u202fms`;
    if (a >= 1e-6) return `${(s * 1e6).toFixed(1)}\u202f\u00b5s`;
    return s === 0 ? '0\u202fs' : `${(s * 1e9).toFixed(0)}\u202fns`;
  }
  // An axis tick: "12.5 s" on short charts, "m:ss" from two minutes and "h:mm:ss" from two hours.
  function fmtTick(v, spanS) {
    if (spanS < 120) return `${Number(v.toFixed(3))}\u202fs`;
    const t = Math.round(v);
    const pad = (n) => String(n).padStart(2, '0');
    const h = Math.floor(t / 3600);
    const m = Math.floor((t % 3600) / 60);
    return spanS < 7200 ? `${Math.floor(t / 60)}:${pad(t % 60)}` : `${h}:${pad(m)}:${pad(t % 60)}`;
  }
  const fmtNs = (ns) => fmtSeconds(isNum(ns) ? ns / 1e9 : NaN);
  const fmtCount = (n) => (isNum(n) ? String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : 'n/a');
  const fmtUtc = (ns) => (isNum(ns) && ns > 0 ? new Date(ns / 1e6).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')
    : 'n/a');
  const fmtNum = (v, digits, unit) => (isNum(v) ? `${v.toFixed(digits)}\u202f${unit}` : 'n/a');
  const fmtSolWith = (v, what) => (isNum(v) && what ? `${fmtPct(v)} ${what}` : fmtPct(v));

  function setField(root, name, value, text) {
    for (const e of root.querySelectorAll(`[data-field="${name}"]`)) {
      e.dataset.value = value === null || value === undefined ? '' : String(value);
      e.textContent = text;
    }
  }

  function showBanner(id, text) {
    const b = $(id);
    b.textContent = text;
    b.hidden = false;
  }

  // ---------------------------------------------------------------- the trace
  function renderTrace(report) {
    const t = report.trace || {};
    const dl = $('#trace-meta');
    const add = (label, value) => {
      if (value === undefined || value === null || value === '') return;
      const d = el('div');
      d.append(el('dt', label), el('dd', value));
      dl.append(d);
    };
    const span = traceSpan(report);
    add('Trace', t.path);
    add('Host', t.host);
    add('Start', fmtUtc(span.start_ns));
    if (span.end_ns > span.start_ns) add('Length', fmtNs(span.end_ns - span.start_ns));
    if (t.command) add('Command', Array.isArray(t.command) ? t.command.join(' ') : t.command);
    if (isNum(t.exit_status)) add('Exit status', String(t.exit_status));
    add('Source', t.source_description);
    $('#synthetic-banner').hidden = !t.synthetic;
    const notes = [].concat(t.notes || [], report.notes || []).filter((n) => typeof n === 'string' && n);
    if (notes.length) showBanner('#note-banner', notes.join(' '));
    const gen = [t.tool_version ? `solscope ${t.tool_version}` : 'solscope'];
    if (isNum(report.report_version)) gen.push(`report version ${report.report_version}`);
    $('#generated').textContent = `Written by ${gen.join(', ')}.`;
  }

  // ---------------------------------------------------------------- one GPU
  function renderFigures(sec, gpu) {
    const f = gpu;
    setField(sec, 'compute_sol_pct', f.compute_sol_pct, fmtPct(f.compute_sol_pct));
    setField(sec, 'compute_pipe', f.compute_pipe, f.compute_pipe || '');
    setField(sec, 'memory_sol_pct', f.memory_sol_pct, fmtPct(f.memory_sol_pct));
    setField(sec, 'memory_path', f.memory_path, f.memory_path || '');
    setField(sec, 'gpu_util_pct', f.gpu_util_pct, fmtPct(f.gpu_util_pct));
    setField(sec, 'sm_active_pct', f.sm_active_pct, fmtPct(f.sm_active_pct));
    const facts = $('[data-facts]', sec);
    const add = (label, text) => {
      if (text === 'n/a') return;
      const d = el('div');
      d.append(el('dt', label), el('dd', text));
      facts.append(d);
    };
    add('Attainable compute SOL', fmtPct(f.attainable_compute_sol_pct));
    add('Attainable memory SOL', fmtPct(f.attainable_memory_sol_pct));
    add('Compute headroom', fmtNum(f.compute_headroom_pct, 1, 'points'));
    add('Memory headroom', fmtNum(f.memory_headroom_pct, 1, 'points'));
    add('Energy', fmtNum(f.energy_j, 0, 'J'));
    add('Mean power', fmtNum(f.mean_power_w, 1, 'W'));
    add('Sampled time', fmtSeconds(f.sampled_s));
    add('Samples', isNum(f.samples) ? fmtCount(f.samples) : 'n/a');
    add('Counter source', f.source || 'n/a');
    add('Shortest phase', fmtSeconds(f.min_phase_s));
    add('UUID', f.uuid || 'n/a');
  }

  function renderBoundBar(sec, gpu) {
    const times = gpu.bound_s || {};
    const total = kClasses.reduce((sum, c) => sum + (isNum(times[c]) ? times[c] : 0), 0);
    const bar = $('[data-boundbar]', sec);
    const legend = $('[data-boundlegend]', sec);
    for (const c of kClasses) {
      const s = isNum(times[c]) ? times[c] : 0;
      if (s <= 0 && c === 'unknown') continue;
      const share = total > 0 ? (100 * s) / total : 0;
      if (s > 0) {
        const seg = el('span', null, `class-${c}`);
        seg.dataset.class = c;
        seg.dataset.seconds = String(s);
        seg.style.width = `${share}%`;
        seg.title = `${kClassLabel[c]}: ${fmtSeconds(s)} (${share.toFixed(1)} %)`;
        bar.append(seg);
      }
      const li = el('li');
      li.dataset.class = c;
      li.append(el('span', null, `swatch class-${c}`), el('span', `${kClassLabel[c]} ${fmtSeconds(s)} ` +
                                                           `(${share.toFixed(1)}\u202f%)`));
      legend.append(li);
    }
    bar.setAttribute('aria-label', `Time by bound class: ${[...legend.children].map((l) => l.textContent).join(', ')}`);
  }

  function renderPhases(sec, gpu, t0Ns) {
    const phases = gpu.phases || [];
    setField(sec, 'phase_count', phases.length, String(phases.length));
    const body = $('[data-phases]', sec);
    for (const p of phases) {
      const tr = el('tr');
      tr.dataset.class = p.bound;
      tr.append(el('td', fmtNs(p.start_ns - t0Ns)), el('td', fmtNs(p.end_ns - p.start_ns)),
                el('td', kClassLabel[p.bound] || p.bound), el('td', fmtSolWith(p.compute_sol_pct, p.compute_pipe)),
                el('td', fmtSolWith(p.memory_sol_pct, p.memory_path)), el('td', fmtPct(p.gpu_util_pct)));
      body.append(tr);
    }
    $('[data-phases-box]', sec).hidden = phases.length === 0;
  }

  function renderKernels(sec, gpu, hasKernelTable) {
    const summary = gpu.kernels || {};
    const kernels = summary.top || [];
    $('[data-kernels-empty]', sec).hidden = kernels.length > 0 || !hasKernelTable;
    $('[data-kernels-none]', sec).hidden = kernels.length > 0 || hasKernelTable;
    if (kernels.length) {
      setField(sec, 'kernel_summary', summary.calls, `${kernels.length} of ${fmtCount(summary.names)} kernels, ` +
               `${fmtCount(summary.calls)} calls, ${fmtSeconds(summary.total_s)} of GPU time`);
    }
    $('[data-kernels-wrap]', sec).hidden = kernels.length === 0;
    const body = $('[data-kernels]', sec);
    kernels.forEach((k, i) => {
      const tr = el('tr');
      tr.dataset.name = k.name;
      const compute = el('td', fmtPct(k.compute_sol_pct));
      if (k.compute_pipe && isNum(k.compute_sol_pct)) compute.append(el('span', k.compute_pipe, 'pipe'));
      const memory = el('td', fmtPct(k.memory_sol_pct));
      if (k.memory_path && isNum(k.memory_sol_pct)) memory.append(el('span', k.memory_path, 'pipe'));
      tr.append(el('td', String(i + 1)), el('td', k.name), el('td', fmtCount(k.calls)),
                el('td', fmtSeconds(k.total_s)), el('td', fmtPct(k.time_share_pct)), compute, memory,
                el('td', k.overlapped ? `shared (${fmtCount(k.overlapped_calls)})` : ''));
      body.append(tr);
    });
  }

  // ---------------------------------------------------------------- the chart
  function palette() {
    const css = getComputedStyle(document.documentElement);
    const get = (name) => css.getPropertyValue(name).trim();
    const shade = {};
    for (const c of kClasses) shade[c] = get(`--bound-${c}`);
    return { fg: get('--fg'), grid: get('--grid'), compute: get('--compute'), memory: get('--memory'),
             util: get('--util'), shade, alpha: Number(get('--shade-alpha')) || 0.16 };
  }

  // Columns for uPlot: x in seconds from the trace's start, then each series (null = unknown, a gap).
  function chartData(series, t0Ns) {
    const t = series.t_ns || [];
    const col = (name) => (series[name] || []).map((v) => (isNum(v) ? v : null));
    return [t.map((ns) => (ns - t0Ns) / 1e9), col('compute_sol_pct'), col('memory_sol_pct'), col('gpu_util_pct')];
  }

  // Paints each phase as a band of its class colour behind the series (uPlot's drawClear hook).
  function shadePhases(u, phases, t0Ns, c, chartEl) {
    const ctx = u.ctx;
    const { top, height } = u.bbox;
    let drawn = 0;
    ctx.save();
    ctx.globalAlpha = c.alpha;
    for (const p of phases) {
      const x0 = u.valToPos((p.start_ns - t0Ns) / 1e9, 'x', true);
      const x1 = u.valToPos((p.end_ns - t0Ns) / 1e9, 'x', true);
      const left = Math.max(x0, u.bbox.left);
      const right = Math.min(x1, u.bbox.left + u.bbox.width);
      if (!(right > left)) continue;
      ctx.fillStyle = c.shade[p.bound] || c.shade.unknown;
      ctx.fillRect(left, top, right - left, height);
      ++drawn;
    }
    ctx.restore();
    chartEl.dataset.phasesDrawn = String(drawn);
  }

  const seriesValue = (u, v) => (v === null || v === undefined ? '\u2013' : `${v.toFixed(1)} %`);

  function renderChart(sec, gpu, t0Ns) {
    const chartEl = $('[data-chart]', sec);
    const data = chartData(gpu.series || {}, t0Ns);
    chartEl.dataset.points = String(data[0].length);
    if (data[0].length === 0) {
      chartEl.append(el('p', 'No samples to chart.', 'empty'));
      return;
    }
    const phases = gpu.phases || [];
    const endS = isNum(gpu.end_ns) ? (gpu.end_ns - t0Ns) / 1e9 : 0;
    const c = palette();
    const axis = { stroke: c.fg, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 } };
    const size = () => ({ width: Math.max(chartEl.clientWidth, 280), height: chartEl.clientWidth < 500 ? 200 : 260 });
    const opts = {
      ...size(),
      scales: { x: { time: false, range: (u, min, max) => [0, Math.max(endS, max)] },
                y: { range: (u, min, max) => [0, Math.max(100, Math.ceil(isNum(max) ? max : 0))] } },
      axes: [{ ...axis, values: (u, vals) => vals.map((v) => fmtTick(v, u.scales.x.max - u.scales.x.min)) },
             { ...axis, size: 48, values: (u, vals) => vals.map((v) => `${v}%`) }],
      series: [
        { label: 'Time', value: (u, v) => (v === null || v === undefined ? '\u2013' : fmtSeconds(v)) },
        { label: 'Compute SOL', stroke: c.compute, width: 2, value: seriesValue },
        { label: 'Memory SOL', stroke: c.memory, width: 2, value: seriesValue },
        { label: 'Utilization', stroke: c.util, width: 1.5, value: seriesValue },
      ],
      cursor: { drag: { x: true, y: false } },
      hooks: { drawClear: [(u) => shadePhases(u, phases, t0Ns, c, chartEl)] },
    };
    const chart = new uPlot(opts, data, chartEl);
    new ResizeObserver(() => {
      const s = size();
      if (s.width !== chart.width) chart.setSize(s);
    }).observe(chartEl);
  }

  function renderGpu(report, gpu, t0Ns) {
    const sec = $('#gpu-section').content.firstElementChild.cloneNode(true);
    sec.dataset.gpu = String(gpu.index);
    $('[data-fact="index"]', sec).textContent = gpu.label || `GPU ${gpu.index}`;  // core::device_label
    $('[data-fact="name"]', sec).textContent = gpu.name || '';
    $('#gpus').append(sec);
    renderFigures(sec, gpu);
    renderBoundBar(sec, gpu);
    renderPhases(sec, gpu, t0Ns);
    renderKernels(sec, gpu, Boolean((report.trace || {}).kernel_log));
    renderChart(sec, gpu, t0Ns);
  }

  // The per-workload totals (docs/report.md "Workloads"): null = the trace holds no workload information.
  function renderWorkloads(report) {
    const sec = $('#workloads');
    const rows = report.workloads;
    const note = $('[data-workloads-note]', sec);
    sec.hidden = false;
    if (!Array.isArray(rows) || rows.length === 0) {
      note.textContent = Array.isArray(rows)
        ? 'No workload was seen on the GPUs while recording.'
        : 'No workload information: the trace was recorded before trace schema 5, or without a process list.';
      note.hidden = false;
      return;
    }
    $('[data-workloads-wrap]', sec).hidden = false;
    const body = $('[data-workloads]', sec);
    const cell = (name, value, text) => {
      const td = el('td', text);
      td.dataset.field = name;
      td.dataset.value = value === null || value === undefined ? '' : String(value);
      return td;
    };
    const sharing = { exclusive: 'exclusive', time_sliced: 'shared (time-sliced)', concurrent: 'shared (concurrent)' };
    for (const w of rows) {
      const tr = el('tr');
      tr.dataset.workload = w.workload;
      tr.append(el('td', w.workload), el('td', sharing[w.sharing] || w.sharing),
                el('td', (w.gpus || []).join(', ')), cell('gpu_s', w.gpu_s, fmtSeconds(w.gpu_s)),
                cell('compute_sol_pct', w.compute_sol_pct, fmtPct(w.compute_sol_pct)),
                cell('memory_sol_pct', w.memory_sol_pct, fmtPct(w.memory_sol_pct)),
                cell('energy_j', w.energy_j, fmtNum(w.energy_j, 1, 'J')),
                cell('idle_s', w.idle_s, fmtSeconds(w.idle_s)));
      body.append(tr);
    }
  }

  // ---------------------------------------------------------------- training steps
  // docs/report.md "Training steps": a row per GPU, the straggler, and the median iteration of each GPU as a strip
  // of segments (inline SVG, one rect per segment, x in per mille of the iteration).
  const kStripKinds = ['compute', 'overlapped_communication', 'exposed_communication', 'idle'];
  const kStripLabel = { compute: 'compute', overlapped_communication: 'communication under compute',
                        exposed_communication: 'exposed communication', idle: 'idle' };
  const fmtMs = (v) => fmtNum(v, 3, 'ms');

  function stepCells(g) {
    if (g.source === 'kernel_log') {
      const share = (s) => `${fmtMs(s.p50_ms)} (${fmtPct(s.share_pct)})`;
      const mix = Object.entries(g.collectives_pct || {}).map(([c, v]) => `${c} ${fmtPct(v)}`).join(', ');
      const from = g.boundary === 'nvtx' ? `NVTX \u201c${g.nvtx_range}\u201d` : 'kernel sequence';
      return [from, fmtCount(g.iteration_count), fmtMs(g.iteration.p50_ms), fmtMs(g.iteration.p90_ms),
              fmtMs(g.iteration.p99_ms), share(g.compute), share(g.communication), share(g.exposed_communication),
              mix || 'none'];
    }
    const e = g.from_samples;
    if (g.source === 'samples' && e && e.periodic) {
      return [`samples (confidence ${isNum(e.confidence) ? e.confidence.toFixed(2) : 'n/a'})`, '', fmtMs(e.period_ms),
              `jitter ${fmtMs(e.jitter_ms)}`, '', fmtPct(e.compute_pct), fmtPct(e.communication_pct),
              fmtPct(e.exposed_communication_pct), ''];
    }
    const why = g.source === 'samples' ? `samples: not periodic${e && e.note ? ` (${e.note})` : ''}`
      : `no iterations${g.note ? `: ${g.note}` : ''}`;
    return [why, '', '', '', '', '', '', '', ''];
  }

  function svgNode(tag, attrs) {
    const n = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    return n;
  }

  function renderStrip(g) {
    const lengthMs = g.median_length_ms;
    const fig = el('figure', null, 'strip');
    fig.dataset.strip = String(g.index);
    fig.append(el('figcaption', `${g.label}: iteration #${g.median_iteration + 1}, ${fmtMs(lengthMs)}`));
    const svg = svgNode('svg', { viewBox: '0 0 1000 10', preserveAspectRatio: 'none', role: 'img',
                                 'aria-label': `${g.label}: the median iteration` });
    for (const seg of g.strip) {
      const x = lengthMs > 0 ? (1000 * seg.start_ms) / lengthMs : 0;
      const w = lengthMs > 0 ? (1000 * (seg.end_ms - seg.start_ms)) / lengthMs : 0;
      const rect = svgNode('rect', { x, y: 0, width: w, height: 10, class: `seg-${seg.kind}`,
                                     'data-kind': seg.kind, 'data-start-ms': seg.start_ms,
                                     'data-end-ms': seg.end_ms });
      const title = svgNode('title', {});
      title.textContent = `${kStripLabel[seg.kind] || seg.kind}: ${fmtMs(seg.start_ms)} \u2013 ${fmtMs(seg.end_ms)}`;
      rect.append(title);
      svg.append(rect);
    }
    const axis = el('div', null, 'strip-axis');
    for (let i = 0; i <= 4; ++i) axis.append(el('span', `${Number(((lengthMs * i) / 4).toFixed(3))}\u202fms`));
    fig.append(svg, axis);
    return fig;
  }

  function renderTrainingSteps(report) {
    const steps = report.training_steps;
    const sec = $('#training-steps');
    if (!steps || !(steps.gpus || []).length) return;
    sec.hidden = false;
    const body = $('[data-steps]', sec);
    for (const g of steps.gpus) {
      const tr = el('tr');
      tr.dataset.gpu = String(g.index);
      tr.dataset.source = g.source;
      tr.append(el('td', g.label), ...stepCells(g).map((t) => el('td', t)));
      body.append(tr);
    }
    $('[data-steps-wrap]', sec).hidden = false;
    const s = steps.straggler;
    if (s) {
      const p = $('[data-straggler]', sec);
      p.textContent = `Straggler: ${s.label}, its compute ${fmtNum(s.spread_pct, 2, '%')} above the GPUs' median; ` +
        `iterations differ by ${fmtNum(s.iteration_spread_pct, 2, '%')}.`;
      p.dataset.value = String(s.index);
      p.hidden = false;
    }
    const strips = steps.gpus.filter((g) => g.source === 'kernel_log' && (g.strip || []).length);
    if (!strips.length) return;
    $('[data-strips-box]', sec).hidden = false;
    for (const g of strips) $('[data-strips]', sec).append(renderStrip(g));
    for (const k of kStripKinds) {
      const li = el('li');
      li.append(el('span', null, `swatch seg-${k}`), el('span', kStripLabel[k]));
      $('[data-striplegend]', sec).append(li);
    }
  }

  // The span of the samples of every GPU (the time origin of the charts and phase starts).
  function traceSpan(report) {
    let start = Infinity;
    let end = -Infinity;
    for (const g of report.gpus || []) {
      if (!(g.samples > 0)) continue;
      start = Math.min(start, g.start_ns);
      end = Math.max(end, g.end_ns);
    }
    return Number.isFinite(start) ? { start_ns: start, end_ns: end } : { start_ns: 0, end_ns: 0 };
  }

  function main() {
    let report;
    try {
      report = JSON.parse($('#report-data').textContent);
    } catch (err) {
      showBanner('#error-banner', `The report's data could not be read: ${err.message}`);
      document.body.dataset.state = 'error';
      return;
    }
    if (typeof uPlot === 'undefined') {
      showBanner('#error-banner', 'The chart library is missing from this file: charts are off.');
    }
    renderTrace(report);
    const t0Ns = traceSpan(report).start_ns;
    for (const gpu of report.gpus || []) {
      if (typeof uPlot === 'undefined') gpu.series = {};
      renderGpu(report, gpu, t0Ns);
    }
    if (!(report.gpus || []).length) $('#gpus').append(el('p', 'The trace has no samples of any GPU.', 'empty'));
    renderWorkloads(report);
    renderTrainingSteps(report);
    document.body.dataset.state = 'ready';
  }

  main();
})();
