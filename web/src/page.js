// What the self-contained pages of the command line (report.html, sweep.html) share, inlined by the binary
// before each page's own script (src/cli/report/html_page.hpp): DOM helpers, no request, no state. Defines one
// global, `solscopePage`. (The daemon's pages share common.js instead.)
'use strict';

const solscopePage = (() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  // A new element with `text` (when not null) and class `cls`.
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  };
  return { $, isNum, el };
})();
