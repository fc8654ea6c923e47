// solscope web dashboard (docs/http-api.md): per GPU, live charts of Compute SOL, Memory SOL and the classic
// utilization (and the attainable SOL when known), the latest 1 s window, the bound class and the GPU's facts.
// Plain JavaScript, no build step, no external URL: the daemon serves it from assets built into its binary; the
// API, page helpers and chart it shares with the fleet view are in common.js.
// Flow: /api/v1/devices -> /api/v1/stream; on each `hello`, back-fill 15 min of 1 s windows from /api/v1/samples,
// then add each window the daemon sends as it completes (`event: window`: its figures and bound class, computed
// by the daemon's core). After `event: dropped` (a slow page) the windows it may have missed are fetched.
// With a fleet (serve --prometheus: /api/v1/devices says "fleet": true), a link to the fleet view (fleet.html).
// A window whose PM sampling was paused (`pm_pause`) gets a badge with the reason and the source that stood in.
// Who uses each GPU (its workload line, the process table's Workload column) and the per-workload roll-up come
// computed from the daemon (workloads.js), as do each GPU's training iteration line and strip and a job's straggler
// (iteration.js).
// Test hooks: body[data-state] (loading|live|reconnecting|error); section.gpu[data-gpu][data-window-start-ns];
// [data-field=NAME][data-value] holds each unrounded figure ("" = unknown); [data-chart][data-points].
'use strict';

(() => {
  const { $, isNum, fmtPct, showError, askToken, getJson, palette, seriesValue } = solscope;
  // "(+12.3 pts)": a gap in percentage points with its sign, as the terminal view writes it; '' when unknown.
  const fmtPts = (v) => (isNum(v) ? `(${v < 0 ? '-' : '+'}${Math.abs(v).toFixed(1)} pts)` : '');
  // The source names of the API (core::to_string(SourceKind)) as the terminal view writes them.
  const kSourceLabels = { pm_sampling: 'PM sampling', gpm: 'GPM', nvml: 'NVML only', dcgm: 'DCGM', replay: 'replay',
                          nsys: 'Nsight Systems' };
  // The pause badge of a window (its `pm_pause`, docs/http-api.md): null while PM sampling runs (or from a daemon
  // older than the field); else its reason, "PM paused (profiler) · GPM" (the source that stands in) and a tooltip.
  function pauseBadge(w) {
    const reason = w && typeof w.pm_pause === 'string' && w.pm_pause !== 'none' ? w.pm_pause : null;
    if (!reason) return null;
    const source = kSourceLabels[w.source] || w.source || '';
    return {
      reason,
      text: `PM paused (${reason.replace('_', ' ')})${source ? ` \u00b7 ${source}` : ''}`,
      title: `PM sampling is paused (${reason}): the performance counters are left to a profiler` +
             (source ? `; these figures come from ${source}` : ''),
    };
  }
  const kHistorySeconds = 15 * 60;   // back-fill span and chart length
  const kDevicesRefreshMs = 10000;   // processes, notes and the lost flag change slowly
  const kMaxRetryMs = 30000;
  const kCatchUpMs = 500;            // after dropped events, the stream goes on this long before a fetch
  // How the device is named: the API's `label` ("GPU 0", "GPU 0 \u00b7 MIG 3g.40gb #1": core::device_label).
  const deviceLabel = (d) => d.label || `GPU ${d.index}`;

  const state = {
    windowNs: 1e9,
    gpus: new Map(),      // index -> Gpu
    stream: null,         // EventSource, or an AbortController for the fetch reader (token)
    buffer: null,         // events held while a back-fill is in flight
    generation: 0,        // bumped on every (re)connect; stale async work checks it
    retryMs: 1000,
    retryTimer: 0,
    renderQueued: false,
  };

  // ---------------------------------------------------------------- formatting (locale-independent)
  function fmtBytes(v) {
    if (!isNum(v) || v <= 0) return 'n/a';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; ++i; }
    return `${v.toFixed(v >= 100 || i === 0 ? 0 : 1)}\u202f${units[i]}`;
  }
  const fmtRate = (v) => (isNum(v) && v > 0 ? `${(v / 1e12).toFixed(2)}\u202fTB/s` : 'n/a');
  const fmtClock = (v) => (isNum(v) && v > 0 ? `${v}\u202fMHz` : 'n/a');
  const fmtTime = (ns) => new Date(ns / 1e6).toLocaleTimeString([], { hour12: false });

  function setField(root, name, value, text) {
    for (const el of root.querySelectorAll(`[data-field="${name}"]`)) {
      el.dataset.value = value === null || value === undefined ? '' : String(value);
      el.textContent = text;
    }
  }
  function setFact(root, name, text) {
    const el = $(`[data-fact="${name}"]`, root);
    if (!el) return;
    el.textContent = text;
    if (el.classList.contains('note')) el.hidden = !text;
  }

  function setConn(text, bodyState) {
    $('#conn').textContent = text;
    if (bodyState) document.body.dataset.state = bodyState;
  }

  // ---------------------------------------------------------------- windows
  // A window's index on the sample clock (the daemon's: the window that holds the midpoint); the chart's x.
  const windowKey = (s) => Math.floor((s.t_start_ns + (s.t_end_ns - s.t_start_ns) / 2) / state.windowNs);

  // The complete windows of a /api/v1/samples answer: on its last page the last window is the open one.
  const completeWindows = (doc) => {
    const windows = doc.samples || [];
    return doc.next_since_ns === null || doc.next_since_ns === undefined ? windows.slice(0, -1) : windows;
  };

  // ---------------------------------------------------------------- one GPU card
  class Gpu {
    constructor(device) {
      this.index = device.index;
      this.label = deviceLabel(device);
      this.windows = new Map();  // window key (Unix s) -> window JSON
      this.lastKey = null;       // newest key in `windows`
      this.missed = null;        // after dropped events: { afterKey } (null key = from the start), else null
      this.catchUpTimer = 0;
      this.chart = null;
      this.hasAttainable = false;
      this.el = $('#gpu-card').content.firstElementChild.cloneNode(true);
      this.el.dataset.gpu = String(device.index);
      const title = $('.gpu-title', this.el);
      title.id = `gpu-${device.index}-title`;
      this.el.setAttribute('aria-labelledby', title.id);
      for (const out of this.el.querySelectorAll('.value output')) {  // name each figure by its label
        const label = $('.label', out.parentElement);
        label.id = `gpu-${device.index}-${out.dataset.field}-label`;
        out.setAttribute('aria-labelledby', label.id);
      }
      this.chartEl = $('[data-chart]', this.el);
      this.chartEl.setAttribute('aria-label', `${deviceLabel(device)}: Compute SOL, Memory SOL and classic ` +
                                `utilization over the last ${kHistorySeconds / 60} minutes`);
      this.setFacts(device);
    }
    setFacts(d) {
      const facts = {
        index: deviceLabel(d), name: d.name || 'unknown GPU', chip: d.chip || 'n/a',
        sm_count: isNum(d.sm_count) && d.sm_count > 0 ? String(d.sm_count) : 'n/a',
        memory_total: fmtBytes(d.memory_total_bytes), max_sm_clock: fmtClock(d.max_sm_clock_mhz),
        dram_peak: fmtRate(d.dram_peak_bytes_per_s), pci_bus_id: d.pci_bus_id || 'n/a', uuid: d.uuid || 'n/a',
        source: d.source || 'n/a', source_note: d.source_note || '', workload_note: d.workload_note || '',
      };
      for (const [name, text] of Object.entries(facts)) setFact(this.el, name, text);
      const lost = $('[data-field="lost"]', this.el);
      lost.hidden = !d.lost;
      lost.dataset.value = d.lost ? '1' : '0';
      this.setProcesses(d.processes || []);
      solscopeWorkloads.setCard(this.el, d.workloads);
      solscopeIteration.setCard(this.el, d.iteration);
    }
    setProcesses(procs) {
      setField(this.el, 'process_count', procs.length, String(procs.length));
      const body = $('[data-field="processes"]', this.el);
      body.replaceChildren(...procs.map((p) => {
        const tr = document.createElement('tr');
        for (const text of [String(p.pid), p.user || '?', fmtBytes(p.gpu_memory_bytes), p.command || '',
                            p.container_id ? p.container_id.slice(0, 12) : '', solscopeWorkloads.processText(p)]) {
          const td = document.createElement('td');
          td.textContent = text;
          tr.append(td);
        }
        return tr;
      }));
    }
    // `origin`: where the window came from (backfill, stream, refetch), shown as data-window-origin.
    addWindow(w, origin) {
      if (!w || !isNum(w.t_start_ns) || !isNum(w.t_end_ns)) return;
      const key = windowKey(w);
      this.windows.set(key, { ...w, origin });
      if (this.lastKey === null || key > this.lastKey) this.lastKey = key;
      this.dirty = true;
    }
    trim() {
      if (this.lastKey === null || this.windows.size <= kHistorySeconds) return;
      const oldest = this.lastKey - kHistorySeconds;
      for (const k of this.windows.keys()) if (k <= oldest) this.windows.delete(k);
    }
    clearWindows() {
      this.windows.clear();
      this.lastKey = null;
    }
    resetStream() {
      this.missed = null;
      clearTimeout(this.catchUpTimer);
      this.catchUpTimer = 0;
    }
    // Events were dropped: windows after the newest one shown now may be missing.
    markDropped() {
      if (!this.missed) this.missed = { afterKey: this.lastKey };
    }
    render() {
      const w = this.lastKey === null ? null : this.windows.get(this.lastKey);
      this.renderValues(w);
      this.renderChart();
    }
    renderValues(w) {
      const v = (f) => (w && isNum(w[f]) ? w[f] : null);
      this.el.dataset.windowStartNs = w ? String(w.t_start_ns) : '';
      this.el.dataset.windowEndNs = w ? String(w.t_end_ns) : '';
      this.el.dataset.windowOrigin = w ? w.origin : '';
      for (const f of ['compute_sol_pct', 'memory_sol_pct', 'gpu_util_pct', 'attainable_compute_sol_pct',
                       'attainable_memory_sol_pct']) {
        setField(this.el, f, v(f), fmtPct(v(f)));
      }
      // The gap to the live figure (attainable - live, points) and the limiter come computed from the daemon.
      for (const f of ['attainable_compute_gap_pts', 'attainable_memory_gap_pts']) {
        setField(this.el, f, v(f), fmtPts(v(f)));
      }
      const limiter = w && w.attainable_limiter ? w.attainable_limiter : null;
      setField(this.el, 'attainable_limiter', limiter, limiter ? `limited by ${limiter.replace('_', ' ')}` : '');
      const pipe = w && w.compute_pipe ? w.compute_pipe : null;
      const path = w && w.memory_path ? w.memory_path : null;
      setField(this.el, 'compute_pipe', pipe, pipe ? `pipe ${pipe}` : '');
      setField(this.el, 'memory_path', path, path ? `path ${path}` : '');
      const pause = pauseBadge(w);
      const badge = $('[data-field="pm_pause"]', this.el);
      badge.hidden = !pause;
      badge.dataset.value = pause ? pause.reason : 'none';
      badge.textContent = pause ? pause.text : '';
      badge.title = pause ? pause.title : '';
      const bound = w && w.bound ? w.bound : 'unknown';
      setField(this.el, 'bound', w ? bound : null, w ? `${bound} bound` : 'no data');
      $('[data-field="bound"]', this.el).className = `badge bound bound-${bound}`;
      const time = $('[data-field="window"]', this.el);
      time.textContent = w ? `${fmtTime(w.t_start_ns)} \u2013 ${fmtTime(w.t_end_ns)}` : 'none yet';
      time.dateTime = w ? new Date(w.t_start_ns / 1e6).toISOString() : '';
    }
    chartData() {
      this.trim();
      const keys = [...this.windows.keys()].sort((a, b) => a - b);
      const cols = [[], [], [], [], [], []];
      const fields = ['compute_sol_pct', 'memory_sol_pct', 'gpu_util_pct', 'attainable_compute_sol_pct',
                      'attainable_memory_sol_pct'];
      let prev = null;
      for (const k of keys) {
        if (prev !== null && k - prev > 1) {  // a gap: break the lines
          cols[0].push(prev + 1);
          for (let i = 1; i < cols.length; ++i) cols[i].push(null);
        }
        const w = this.windows.get(k);
        cols[0].push(k);
        fields.forEach((f, i) => cols[i + 1].push(isNum(w[f]) ? w[f] : null));
        prev = k;
      }
      if (!this.hasAttainable && (cols[4].some(isNum) || cols[5].some(isNum))) this.addAttainableSeries();
      return { data: this.hasAttainable ? cols : cols.slice(0, 4), points: keys.length };
    }
    renderChart() {
      if (typeof uPlot === 'undefined') return;
      if (!this.chart) this.chart = makeChart(this.chartEl);
      const { data, points } = this.chartData();
      this.chart.setData(data);
      this.chartEl.dataset.points = String(points);
    }
    addAttainableSeries() {
      if (!this.chart) this.chart = makeChart(this.chartEl);
      const c = palette();
      this.chart.addSeries({ label: 'Attainable compute', stroke: c.compute, width: 1.5, dash: [6, 4],
                             value: seriesValue });
      this.chart.addSeries({ label: 'Attainable memory', stroke: c.memory, width: 1.5, dash: [6, 4],
                             value: seriesValue });
      this.hasAttainable = true;
    }
  }

  // ---------------------------------------------------------------- charts (uPlot)
  const makeChart = (el) => solscope.makeChart(el, (width) => (width < 500 ? 180 : 220));

  function scheduleRender() {
    if (state.renderQueued) return;
    state.renderQueued = true;
    requestAnimationFrame(() => {
      state.renderQueued = false;
      for (const g of state.gpus.values()) {
        if (!g.dirty) continue;
        g.dirty = false;
        g.render();
      }
      solscopeWorkloads.renderRollup((index) => {
        const g = state.gpus.get(index);
        return g && g.lastKey !== null ? g.windows.get(g.lastKey) : null;
      });
    });
  }
  const markDirty = (g) => { g.dirty = true; scheduleRender(); };

  // ---------------------------------------------------------------- devices and back-fill
  // Facts of every GPU (the back-fill and the stream bring its windows).
  function applyDevices(doc) {
    state.windowNs = isNum(doc.window_ns) && doc.window_ns > 0 ? doc.window_ns : 1e9;
    $('#host').textContent = doc.host || 'n/a';
    $('#source').textContent = doc.source || 'n/a';
    $('#synthetic-banner').hidden = !doc.synthetic;
    document.body.dataset.synthetic = doc.synthetic ? 'true' : 'false';
    $('#views').hidden = !doc.fleet;  // serve --prometheus: the fleet view is linked
    $('#empty-fleet').hidden = !doc.fleet;
    const main = $('#gpus');
    const seen = new Set();
    for (const d of doc.devices || []) {
      seen.add(d.index);
      let g = state.gpus.get(d.index);
      if (!g) {
        g = new Gpu(d);
        state.gpus.set(d.index, g);
        main.append(g.el);
      } else {
        g.setFacts(d);
      }
      markDirty(g);
    }
    for (const [index, g] of state.gpus) {
      if (seen.has(index)) continue;
      g.el.remove();
      state.gpus.delete(index);
    }
    $('#empty').hidden = state.gpus.size > 0;
    solscopeWorkloads.setRollup(doc.workloads);
    scheduleRender();
  }

  // The complete windows of the last 15 minutes (the open one comes as an `event: window` once it completes).
  async function backfill(g, since) {
    const doc = await getJson(`/api/v1/samples?device=${g.index}&since=${since}&window=1s`);
    for (const w of completeWindows(doc)) g.addWindow(w, 'backfill');
    markDirty(g);
  }

  // Fetches the daemon's complete windows after the newest one the page had when events were dropped, and adds
  // those it lacks.
  async function catchUp(g, generation) {
    g.catchUpTimer = 0;
    const missed = g.missed;
    g.missed = null;
    if (!missed || generation !== state.generation) return;
    const after = missed.afterKey === null ? null : g.windows.get(missed.afterKey);
    const since = after ? String(after.t_end_ns) : `-${kHistorySeconds / 60}m`;
    try {
      const doc = await getJson(`/api/v1/samples?device=${g.index}&since=${since}&window=1s`);
      if (generation !== state.generation) return;
      for (const w of completeWindows(doc)) if (!g.windows.has(windowKey(w))) g.addWindow(w, 'refetch');
      markDirty(g);
    } catch (err) {
      showError(`could not fetch the windows of ${g.label}: ${err.message}`);
    }
  }

  // ---------------------------------------------------------------- the stream
  async function onHello(hello) {
    const generation = ++state.generation;
    state.buffer = [];
    if (isNum(hello.window_ns) && hello.window_ns > 0) state.windowNs = hello.window_ns;
    try {
      const doc = await getJson('/api/v1/devices');
      if (generation !== state.generation) return;
      // A new connection may be a restarted daemon (or a replay that began again): start from its history.
      for (const g of state.gpus.values()) g.clearWindows();
      applyDevices(doc);
      for (const g of state.gpus.values()) g.resetStream();
      await Promise.all([...state.gpus.values()].map((g) => backfill(g, `-${kHistorySeconds / 60}m`)));
      if (generation !== state.generation) return;
      showError('');
      setConn('live', 'live');
    } catch (err) {
      showError(`back-fill failed: ${err.message}`);
      setConn('live (no history)', 'live');
    }
    const held = state.buffer || [];
    state.buffer = null;
    for (const item of held) {
      if (item.dropNotice) onDropped(item.dropNotice);
      else onWindow(item);
    }
  }

  // One window of a GPU, complete, as the daemon aggregated it.
  function onWindow(w) {
    if (state.buffer) { state.buffer.push(w); return; }
    const g = state.gpus.get(w.device);
    if (!g) return;
    g.addWindow(w, 'stream');
    scheduleRender();
  }

  function onDropped(info) {
    if (state.buffer) { state.buffer.push({ dropNotice: info }); return; }  // keep its place among the windows
    const generation = state.generation;
    for (const g of state.gpus.values()) {
      g.markDropped();
      if (!g.catchUpTimer) g.catchUpTimer = setTimeout(() => catchUp(g, generation), kCatchUpMs);
    }
    const n = info && isNum(info.dropped) ? info.dropped : 0;
    document.body.dataset.dropped = String(Number(document.body.dataset.dropped || 0) + n);
    setConn(`live (this page was too slow: ${n} events dropped)`, 'live');
  }

  function dispatch(type, data) {
    try {
      if (type === 'hello') onHello(JSON.parse(data));
      else if (type === 'window') onWindow(JSON.parse(data));
      else if (type === 'dropped') onDropped(JSON.parse(data));
    } catch (err) {
      showError(`bad ${type} event: ${err.message}`);
    }
  }

  function scheduleReconnect(reason) {
    closeStream();
    setConn(`reconnecting in ${Math.round(state.retryMs / 1000)} s (${reason})`, 'reconnecting');
    clearTimeout(state.retryTimer);
    state.retryTimer = setTimeout(connect, state.retryMs);
    state.retryMs = Math.min(state.retryMs * 2, kMaxRetryMs);
  }

  function closeStream() {
    if (!state.stream) return;
    if (state.stream instanceof EventSource) state.stream.close();
    else state.stream.abort();
    state.stream = null;
  }

  function connect() {
    closeStream();
    setConn('connecting', document.body.dataset.state === 'live' ? 'reconnecting' : 'loading');
    if (solscope.hasToken()) { connectWithToken(); return; }
    const es = new EventSource('/api/v1/stream');
    state.stream = es;
    es.onopen = () => { state.retryMs = 1000; };
    for (const type of ['hello', 'window', 'dropped']) es.addEventListener(type, (e) => dispatch(type, e.data));
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) scheduleReconnect('the stream was refused');
      else setConn('reconnecting', 'reconnecting');  // the browser retries by itself and sends a new hello
    };
  }

  // EventSource cannot send an Authorization header: with a token, read the stream through fetch.
  async function connectWithToken() {
    const ctrl = new AbortController();
    state.stream = ctrl;
    try {
      const res = await fetch('/api/v1/stream', { headers: { ...solscope.authHeaders(), Accept: 'text/event-stream' },
                                                  cache: 'no-store', signal: ctrl.signal });
      if (res.status === 401 || res.status === 403) { askToken('The token was refused.'); return; }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      state.retryMs = 1000;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value.replace(/\r\n?/g, '\n');
        let end;
        while ((end = text.indexOf('\n\n')) >= 0) {
          parseEvent(text.slice(0, end));
          text = text.slice(end + 2);
        }
      }
      if (state.stream === ctrl) scheduleReconnect('the stream ended');
    } catch (err) {
      if (state.stream === ctrl) scheduleReconnect(err.message);
    }
  }

  function parseEvent(block) {
    let type = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length) dispatch(type, data.join('\n'));
  }

  // ---------------------------------------------------------------- start
  async function refreshDevices() {
    try {
      applyDevices(await getJson('/api/v1/devices'));
    } catch (err) {
      showError(`cannot reach the daemon: ${err.message}`);
    }
  }

  async function start() {
    clearTimeout(state.retryTimer);
    try {
      applyDevices(await getJson('/api/v1/devices'));
    } catch (err) {
      showError(`cannot reach the daemon: ${err.message}`);
      setConn('offline', 'error');
      if ($('#token-form').hidden) state.retryTimer = setTimeout(start, 5000);
      return;
    }
    connect();
  }

  function init() {
    solscope.onTokenForm(start);
    if (typeof uPlot === 'undefined') showError('the chart library did not load: charts are off');
    setInterval(refreshDevices, kDevicesRefreshMs);
    start();
  }

  solscope.whenReady(init);
})();
