// solscope web dashboard: training iterations (docs/http-api.md "/api/v1/devices", Training iterations). Each GPU
// card's iteration line (the period, the compute, communication and exposed communication shares, or "not
// periodic") and its one-iteration strip chart (the daemon's strip: its parts as coloured segments), and the
// roll-up's Straggler cell of a job (a workload on several GPUs: the daemon's `steps`). All figures come computed
// from the daemon (core::IterationEstimate, core::job_steps); the page only formats and draws them. Loaded
// (deferred) after common.js and before workloads.js; defines one global, `solscopeIteration`.
// Test hooks: [data-field="iteration"][data-value] (the period in seconds, '' when not periodic) with
// data-periodic ('true'|'false'); [data-field="iteration_strip"][data-parts] (the strip's part names joined by ',')
// holding one span.seg[data-part][data-bins] per run of equal parts; #workloads td[data-field="straggler"]
// [data-value] (the straggler's device, '' when none).
'use strict';

const solscopeIteration = (() => {
  const { $, isNum, fmtPct } = solscope;

  // "500.0 ms" below a second, "1.250 s" from one.
  const fmtSeconds = (v) => (!isNum(v) ? 'n/a' : v < 1 ? `${(v * 1000).toFixed(1)}\u202fms` : `${v.toFixed(3)}\u202fs`);

  // "500.0 ms · compute 50.0 % · communication 25.0 % · exposed 12.5 %", or "not periodic".
  function lineText(it) {
    if (!it || !it.periodic) return 'not periodic';
    const pct = (v) => fmtPct(isNum(v) ? v * 100 : null);
    return [fmtSeconds(it.period_s), `compute ${pct(it.compute_ratio)}`,
            `communication ${pct(it.communication_ratio)}`, `exposed ${pct(it.exposed_communication_ratio)}`]
      .join(' \u00b7 ');
  }

  // The strip's runs of equal parts: [{ part, bins }].
  function runs(strip) {
    const out = [];
    for (const part of strip) {
      if (out.length && out[out.length - 1].part === part) ++out[out.length - 1].bins;
      else out.push({ part, bins: 1 });
    }
    return out;
  }

  // Sets the iteration line and strip of the card `el` from a device's `iteration` (absent from a daemon older than
  // it: then "not periodic" without a note).
  function setCard(el, it) {
    const line = $('[data-field="iteration"]', el);
    const stripEl = $('[data-field="iteration_strip"]', el);
    if (!line || !stripEl) return;
    const periodic = !!(it && it.periodic);
    line.dataset.value = periodic && isNum(it.period_s) ? String(it.period_s) : '';
    line.dataset.periodic = periodic ? 'true' : 'false';
    line.textContent = lineText(it);
    line.title = periodic
      ? `confidence ${fmtPct(it.confidence * 100)}, jitter ${fmtSeconds(it.jitter_s)}; compute: the SMs at work ` +
        '(compute-, memory- and latency-bound); communication: the interconnect busy; exposed: busy while the SMs wait'
      : (it && it.note) || '';
    const strip = periodic && Array.isArray(it.strip) ? it.strip : [];
    stripEl.hidden = strip.length === 0;
    stripEl.dataset.parts = strip.join(',');
    const segments = runs(strip);
    stripEl.setAttribute('aria-label', `one iteration: ${segments.map((s) => `${s.part} ${s.bins}/${strip.length}`)
      .join(', ')}`);
    stripEl.replaceChildren(...segments.map((s) => {
      const seg = document.createElement('span');
      seg.className = 'seg';
      seg.dataset.part = s.part;
      seg.dataset.bins = String(s.bins);
      seg.style.flexGrow = String(s.bins);
      seg.title = `${s.part}: ${fmtPct((s.bins / strip.length) * 100)} of the iteration`;
      return seg;
    }));
  }

  // The roll-up's Straggler cell of a workload's `steps` (null: not a job): { text, value, title }.
  function stragglerCell(steps) {
    if (!steps) return { text: '', value: '', title: '' };
    const ranks = steps.ranks || [];
    const title = ranks.map((r) => `${r.rank} ${fmtSeconds(r.iteration_s)} (compute ${fmtSeconds(r.compute_s)})`)
      .concat((steps.not_periodic || []).map((d) => `GPU ${d} not periodic`)).join(' \u00b7 ');
    if (!steps.straggler) return { text: ranks.length ? 'none (one periodic rank)' : 'not periodic', value: '', title };
    const iterations = ranks.map((r) => r.iteration_s).filter(isNum);
    const span = iterations.length
      ? `iterations ${fmtSeconds(Math.min(...iterations))}\u2013${fmtSeconds(Math.max(...iterations))}` : '';
    const spread = isNum(steps.spread_pct) ? `compute +${steps.spread_pct.toFixed(1)}\u202f%` : '';
    return { text: [steps.straggler.rank, spread, span].filter((t) => t).join(' \u00b7 '),
             value: String(steps.straggler.device), title };
  }

  return { setCard, stragglerCell, lineText };
})();
