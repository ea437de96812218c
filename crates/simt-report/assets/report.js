// simt's run report. Everything is drawn from the JSON in #simt-data; the timeline
// draws only the columns in view, so a million issues pan and zoom as ten do.
"use strict";
(function () {
  const started = performance.now();
  const data = JSON.parse(document.getElementById("simt-data").textContent);

  // ---- Issues, unpacked: five words each (see the report crate's html.rs).
  function unpack(base64) {
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new Uint32Array(bytes.buffer, 0, bytes.length >> 2);
  }
  const words = unpack(data.issues);
  const values = unpack(data.values);
  const issueCount = data.issue_count;
  const EVENT_SPLIT = 1, EVENT_REJOIN = 2, EVENT_SWITCH = 4;
  const warpOf = (i) => words[i * 5];
  const pcOf = (i) => words[i * 5 + 1] >>> 3;
  const eventsOf = (i) => words[i * 5 + 1] & 7;
  const activeOf = (i) => words[i * 5 + 2];
  const executedOf = (i) => words[i * 5 + 3];
  const goneOf = (i) => words[i * 5 + 4];
  const lineOf = (i) => data.pcs[pcOf(i)].line;
  const popcount = (m) => { m -= (m >>> 1) & 0x55555555; m = (m & 0x33333333) + ((m >>> 2) & 0x33333333); return (((m + (m >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24; };

  // Where each kept issue's written values start.
  const valueStart = new Uint32Array(data.values_kept + 1);
  for (let i = 0; i < data.values_kept; i++) valueStart[i + 1] = valueStart[i] + data.pcs[pcOf(i)].writes.length * popcount(executedOf(i));

  const STATES = ["executed", "guarded off", "waiting", "exited"];
  const css = getComputedStyle(document.documentElement);
  const color = (name) => css.getPropertyValue("--" + name).trim();
  const STATE_COLORS = [color("executed"), color("guarded"), color("waiting"), color("exited")];
  function laneState(i, lane) {
    const bit = 1 << lane;
    if (executedOf(i) & bit) return 0;
    if (activeOf(i) & bit) return 1;
    if (goneOf(i) & bit) return 3;
    return 2;
  }

  // ---- Header.
  const dims = (d) => d.filter((x, k) => k === 0 || d[1] > 1 || d[2] > 1).join("×");
  document.getElementById("title").textContent = "kernel " + data.kernel + " — " + data.file;
  const summary = document.getElementById("summary");
  summary.textContent = "grid " + dims(data.grid) + ", block " + dims(data.block) + ", --simt " + data.simt + "; " + issueCount.toLocaleString() + " warp instructions recorded" +
    (data.truncated ? " (the first ones only: recording stopped, the launch ran on)" : "") + ".";

  // ---- Columns: the issues of the selected warp, or all.
  const warpFilter = document.getElementById("warp-filter");
  warpFilter.add(new Option("all " + data.warps.length + " warps", "-1"));
  data.warps.forEach((w, k) => warpFilter.add(new Option("block " + w[0] + ", warp " + w[1], String(k))));
  let columns = new Int32Array(0);
  function selectColumns() {
    const w = Number(warpFilter.value);
    if (w < 0) {
      columns = new Int32Array(issueCount);
      for (let i = 0; i < issueCount; i++) columns[i] = i;
    } else {
      let n = 0;
      for (let i = 0; i < issueCount; i++) if (warpOf(i) === w) n++;
      columns = new Int32Array(n);
      n = 0;
      for (let i = 0; i < issueCount; i++) if (warpOf(i) === w) columns[n++] = i;
    }
  }

  // ---- Source with its heat column.
  const sourcePane = document.getElementById("source");
  const lineInfo = new Map(data.lines.map((l) => [l.line, l]));
  const findingsAt = new Map();
  for (const f of data.findings) findingsAt.set(f.line, (findingsAt.get(f.line) || []).concat([f]));
  // Each metric's heat is 0 .. 1: counts against the largest, efficiencies against
  // perfect, costs against the ideal (4 times the ideal or worse is hottest).
  const overIdeal = (v) => Math.min(1, (v - 1) / 3);
  const METRICS = [
    { name: "issues", value: (l) => l.issues, text: (v) => String(v), heat: (v, max) => v / max },
    { name: "SIMD efficiency", value: (l) => (l.issues ? l.active_lanes / (32 * l.issues) : null), text: (v) => Math.round(100 * v) + "%", heat: (v) => 1 - v },
    { name: "sectors per request / ideal", value: (l) => (l.sectors ? l.sectors[0] / Math.max(l.sectors[1], 1e-9) : null), text: (v) => v.toFixed(1) + "×", heat: overIdeal },
    { name: "cache lines per request / ideal", value: (l) => (l.cache_lines ? l.cache_lines[0] / Math.max(l.cache_lines[1], 1e-9) : null), text: (v) => v.toFixed(1) + "×", heat: overIdeal },
    { name: "bank passes per request", value: (l) => (l.bank_passes ? l.bank_passes[0] : null), text: (v) => v.toFixed(1), heat: (v) => Math.min(1, (v - 1) / 7) },
    { name: "sanitizer findings", value: (l) => l.findings || null, text: (v) => String(v), heat: (v, max) => v / max },
  ];
  const heatMetric = document.getElementById("heat-metric");
  METRICS.forEach((m, k) => heatMetric.add(new Option(m.name, String(k))));
  const lineRows = new Map();
  const sourceLines = data.source.length ? data.source : [];
  const lastLine = Math.max(sourceLines.length, ...data.lines.map((l) => l.line), 0);
  for (let n = 1; n <= lastLine; n++) {
    const row = document.createElement("div");
    row.className = "line" + (lineInfo.has(n) ? "" : " nocode");
    row.dataset.line = String(n);
    row.setAttribute("role", "listitem");
    const heat = document.createElement("span"); heat.className = "heat";
    const number = document.createElement("span"); number.className = "number"; number.textContent = String(n);
    const text = document.createElement("span"); text.className = "text"; text.textContent = sourceLines[n - 1] || "";
    row.append(heat, number, text);
    if (lineInfo.has(n)) row.addEventListener("click", () => selectLine(n, false));
    sourcePane.append(row);
    lineRows.set(n, row);
  }
  function describeLine(l) {
    const parts = [l.issues + " issues recorded"];
    if (l.issues) parts.push("SIMD efficiency " + Math.round((100 * l.active_lanes) / (32 * l.issues)) + "%");
    if (l.sectors) parts.push("sectors/request " + l.sectors[0].toFixed(2) + " (ideal " + l.sectors[1].toFixed(2) + ")");
    if (l.cache_lines) parts.push("lines/request " + l.cache_lines[0].toFixed(2) + " (ideal " + l.cache_lines[1].toFixed(2) + ")");
    if (l.bank_passes) parts.push("bank passes/request " + l.bank_passes[0].toFixed(2) + " (ideal " + l.bank_passes[1].toFixed(2) + ")");
    for (const f of findingsAt.get(l.line) || []) parts.push(f.kind + ": " + f.message);
    return "line " + l.line + ": " + parts.join("; ");
  }
  function paintHeat() {
    const m = METRICS[Number(heatMetric.value)];
    let max = 0;
    for (const l of data.lines) { const v = m.value(l); if (v != null) max = Math.max(max, v); }
    for (const l of data.lines) {
      const cell = lineRows.get(l.line).querySelector(".heat");
      const v = m.value(l);
      cell.title = describeLine(l);
      if (v == null) { cell.textContent = ""; cell.style.background = ""; continue; }
      const t = Math.max(0, Math.min(1, m.heat(v, max || 1)));
      cell.textContent = m.text(v);
      cell.style.background = "rgba(214, 40, 40, " + (0.06 + 0.64 * t).toFixed(3) + ")";
    }
  }
  heatMetric.addEventListener("change", paintHeat);

  // ---- Legend.
  const legend = document.getElementById("legend");
  const swatch = (c, label, border) => { const s = document.createElement("span"); const b = document.createElement("i"); b.className = "swatch"; b.style.background = c; if (border) b.style.borderColor = border; s.append(b, label); return s; };
  STATES.forEach((s, k) => legend.append(swatch(STATE_COLORS[k], "lane " + s)));
  legend.append(swatch(color("split"), "split (a branch sent lanes two ways)"), swatch(color("rejoin"), "rejoin (waiting lanes issue again)"), swatch(color("switch"), "switch (another group of the warp's threads)"), swatch(color("highlight"), "issues of the selected line"));

  // ---- Timeline.
  const canvas = document.getElementById("timeline");
  const scroller = document.getElementById("timeline-scroll");
  const spacer = document.getElementById("timeline-spacer");
  const ctx = canvas.getContext("2d");
  const AXIS_LEFT = 46, STRIP = 16, LANE_H = 11, TOP = 8, AXIS_BOTTOM = 40;
  const lanesTop = TOP + STRIP;
  const lanesBottom = lanesTop + 32 * LANE_H;
  const MAX_SPACER = 30000000;
  let cellWidth = 8;
  let selectedLine = 0;
  // Warps by hue, away from the reds and blues of the events.
  const warpHue = (w) => "hsl(" + (150 + ((w * 47) % 150)) + ", 45%, 60%)";
  function plotWidth() { return Math.max(10, canvas.clientWidth - AXIS_LEFT - 8); }
  function firstColumn() { return scroller.scrollLeft / cellWidth; }
  function maxCellWidth() { return Math.min(32, MAX_SPACER / Math.max(1, columns.length)); }
  function fitWidth() { return Math.min(maxCellWidth(), plotWidth() / Math.max(1, columns.length)); }
  function layout() {
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(canvas.clientWidth * ratio);
    canvas.height = Math.round(canvas.clientHeight * ratio);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    scroller.style.left = AXIS_LEFT + "px";
    spacer.style.width = Math.ceil(columns.length * cellWidth) + "px";
  }
  function draw() {
    const w = canvas.clientWidth, h = canvas.clientHeight;
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, w, h);
    const first = firstColumn();
    const width = plotWidth();
    const visible = Math.min(columns.length - Math.floor(first), Math.ceil(width / cellWidth) + 1);
    // Zoomed out below a pixel a column, each pixel shows the first issue it covers.
    const step = cellWidth < 1 ? 1 / cellWidth : 1;
    const cw = Math.max(cellWidth, 1);
    for (let k = 0; k < visible; k += step) {
      const c = Math.floor(first + k);
      if (c >= columns.length) break;
      const i = columns[c];
      const x = AXIS_LEFT + (c - first) * cellWidth;
      if (data.warps.length > 1) {
        ctx.fillStyle = warpHue(warpOf(i));
        ctx.fillRect(x, TOP + 10, cw, 4);
      }
      const events = eventsOf(i);
      if (events) {
        ctx.fillStyle = color(events & EVENT_SPLIT ? "split" : events & EVENT_REJOIN ? "rejoin" : "switch");
        ctx.fillRect(x, TOP, cw, 9);
      }
      const active = activeOf(i), executed = executedOf(i), gone = goneOf(i);
      for (let lane = 0; lane < 32; lane++) {
        const bit = 1 << lane;
        ctx.fillStyle = STATE_COLORS[executed & bit ? 0 : active & bit ? 1 : gone & bit ? 3 : 2];
        ctx.fillRect(x, lanesTop + lane * LANE_H, cw - (cellWidth >= 4 ? 1 : 0), LANE_H - (cellWidth >= 4 ? 1 : 0));
      }
      if (selectedLine && lineOf(i) === selectedLine) {
        ctx.strokeStyle = color("highlight");
        ctx.lineWidth = 2;
        ctx.strokeRect(x + 1, lanesTop - 1, Math.max(cw - 2, 1), 32 * LANE_H + 2);
        ctx.fillStyle = color("highlight");
        ctx.fillRect(x, lanesBottom + 2, cw, 4);
      }
    }
    // Axes: lanes down the left, issue numbers along the bottom.
    ctx.fillStyle = "#1b1f24";
    ctx.font = "11px system-ui, sans-serif";
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const lane of [0, 8, 16, 24, 31]) ctx.fillText("lane " + lane, AXIS_LEFT - 4, lanesTop + lane * LANE_H + LANE_H / 2);
    if (data.warps.length > 1) ctx.fillText("warp", AXIS_LEFT - 4, TOP + 12);
    ctx.strokeStyle = "#8a939d";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(AXIS_LEFT - 0.5, lanesTop);
    ctx.lineTo(AXIS_LEFT - 0.5, lanesBottom + 8.5);
    ctx.lineTo(AXIS_LEFT + width, lanesBottom + 8.5);
    ctx.stroke();
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    const tick = niceStep(Math.max(1, 70 / cellWidth));
    for (let c = Math.ceil(first / tick) * tick; c < first + width / cellWidth && c < columns.length; c += tick) {
      const x = AXIS_LEFT + (c - first) * cellWidth + Math.min(cellWidth, 1) / 2;
      ctx.beginPath(); ctx.moveTo(x, lanesBottom + 8.5); ctx.lineTo(x, lanesBottom + 12.5); ctx.stroke();
      ctx.fillText(String(c), x, lanesBottom + 14);
    }
    ctx.textAlign = "left";
    ctx.fillText("issue (column) →  " + columns.length.toLocaleString() + " in all", AXIS_LEFT, h - 26);
  }
  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }
  let pending = false;
  function redraw() { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; draw(); }); } }
  function setZoom(width, anchorX) {
    const anchor = anchorX === undefined ? plotWidth() / 2 : anchorX;
    const column = firstColumn() + anchor / cellWidth;
    cellWidth = Math.max(Math.min(fitWidth(), 1), Math.min(maxCellWidth(), width));
    layout();
    scroller.scrollLeft = column * cellWidth - anchor;
    draw();
  }
  function cellAt(clientX, clientY) {
    const r = canvas.getBoundingClientRect();
    const x = clientX - r.left - AXIS_LEFT, y = clientY - r.top - lanesTop;
    if (x < 0 || y < 0 || y >= 32 * LANE_H) return null;
    const c = Math.floor(firstColumn() + x / cellWidth);
    if (c >= columns.length) return null;
    return { column: c, issue: columns[c], lane: Math.floor(y / LANE_H) };
  }

  // ---- Register values: what an issue wrote is kept; what it read is the last value
  // written to that register in its warp before it.
  function written(i, slot, lane) {
    if (i >= data.values_kept || !(executedOf(i) & (1 << lane))) return null;
    const executed = executedOf(i);
    const rank = popcount(executed & ((1 << lane) - 1) >>> 0);
    return values[valueStart[i] + slot * popcount(executed) + rank];
  }
  function readValue(i, reg, lane) {
    if (i > data.values_kept) return null;
    const warp = warpOf(i);
    for (let j = i - 1; j >= 0; j--) {
      if (warpOf(j) !== warp) continue;
      const slot = data.pcs[pcOf(j)].writes.indexOf(reg);
      if (slot >= 0 && executedOf(j) & (1 << lane)) return written(j, slot, lane);
    }
    return 0;
  }
  const show = (v) => (v === null ? "?" : v + (v > 9 ? " (0x" + v.toString(16) + ")" : ""));
  function describe(cell) {
    const i = cell.issue, pc = pcOf(i), info = data.pcs[pc], w = data.warps[warpOf(i)];
    const events = [];
    if (eventsOf(i) & EVENT_SPLIT) events.push("split");
    if (eventsOf(i) & EVENT_REJOIN) events.push("rejoin");
    if (eventsOf(i) & EVENT_SWITCH) events.push("switch");
    const lines = [
      "issue " + cell.column + (cell.column !== i ? " of this warp (" + i + " of all)" : "") + ": block " + w[0] + ", warp " + w[1],
      "pc " + pc + ", line " + info.line + (events.length ? ", " + events.join(", ") : ""),
      info.text,
      "lane " + cell.lane + ": " + STATES[laneState(i, cell.lane)] + " (" + popcount(activeOf(i)) + " of 32 lanes active)",
    ];
    if (laneState(i, cell.lane) === 0) {
      if (i < data.values_kept) {
        if (info.reads.length) lines.push("reads  " + info.reads.map((r) => "R" + r + " = " + show(readValue(i, r, cell.lane))).join(", "));
        if (info.writes.length) lines.push("writes " + info.writes.map((r, k) => "R" + r + " = " + show(written(i, k, cell.lane))).join(", "));
      } else {
        if (info.reads.length) lines.push("reads  " + info.reads.map((r) => "R" + r).join(", "));
        if (info.writes.length) lines.push("writes " + info.writes.map((r) => "R" + r).join(", "));
        lines.push("(values are kept for the first " + data.values_kept.toLocaleString() + " issues)");
      }
    }
    return lines.join("\n");
  }
  const tooltip = document.getElementById("tooltip");
  canvas.addEventListener("mousemove", (e) => {
    if (dragging) return;
    const cell = cellAt(e.clientX, e.clientY);
    if (!cell) { tooltip.hidden = true; return; }
    tooltip.textContent = describe(cell);
    tooltip.dataset.pc = String(pcOf(cell.issue));
    tooltip.dataset.issue = String(cell.issue);
    tooltip.hidden = false;
    const x = Math.min(e.clientX + 14, window.innerWidth - tooltip.offsetWidth - 4);
    tooltip.style.left = x + "px";
    tooltip.style.top = e.clientY + 14 + "px";
  });
  canvas.addEventListener("mouseleave", () => { tooltip.hidden = true; });
  let dragging = null;
  canvas.addEventListener("mousedown", (e) => { dragging = { x: e.clientX, scroll: scroller.scrollLeft, moved: false }; });
  window.addEventListener("mousemove", (e) => {
    if (!dragging) return;
    if (Math.abs(e.clientX - dragging.x) > 3) dragging.moved = true;
    scroller.scrollLeft = dragging.scroll - (e.clientX - dragging.x);
  });
  window.addEventListener("mouseup", (e) => {
    const d = dragging;
    dragging = null;
    if (d && !d.moved && e.target === canvas) {
      const cell = cellAt(e.clientX, e.clientY);
      if (cell) selectLine(lineOf(cell.issue), true);
    }
  });
  canvas.addEventListener("wheel", (e) => {
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      const r = canvas.getBoundingClientRect();
      setZoom(cellWidth * (e.deltaY < 0 ? 1.25 : 0.8), e.clientX - r.left - AXIS_LEFT);
    } else if (Math.abs(e.deltaX) > 0 || e.shiftKey) {
      e.preventDefault();
      scroller.scrollLeft += e.deltaX || e.deltaY;
    }
  }, { passive: false });
  scroller.addEventListener("scroll", redraw);
  document.getElementById("zoom-in").addEventListener("click", () => setZoom(cellWidth * 1.5));
  document.getElementById("zoom-out").addEventListener("click", () => setZoom(cellWidth / 1.5));
  document.getElementById("zoom-fit").addEventListener("click", () => setZoom(fitWidth(), 0));
  warpFilter.addEventListener("change", () => { selectColumns(); setZoom(Math.max(cellWidth, fitWidth()), 0); });
  window.addEventListener("resize", () => { layout(); draw(); });

  // ---- Selecting a line highlights its issues; selecting an issue highlights its line.
  const selection = document.getElementById("selection");
  function highlighted() {
    const out = [];
    if (!selectedLine) return out;
    for (let c = 0; c < columns.length; c++) if (lineOf(columns[c]) === selectedLine) out.push(c);
    return out;
  }
  function selectLine(n, fromTimeline) {
    const previous = lineRows.get(selectedLine);
    if (previous) previous.classList.remove("selected");
    selectedLine = n;
    const row = lineRows.get(n);
    if (row) {
      row.classList.add("selected");
      if (fromTimeline) row.scrollIntoView({ block: "nearest" });
    }
    const count = highlighted().length;
    selection.textContent = "line " + n + ": " + count + " issue" + (count === 1 ? "" : "s") + " highlighted";
    if (!fromTimeline && count) {
      // Bring the first highlighted issue into view if none is.
      const cols = highlighted();
      const first = firstColumn(), last = first + plotWidth() / cellWidth;
      if (!cols.some((c) => c >= first && c < last)) scroller.scrollLeft = Math.max(0, cols[0] * cellWidth - 20);
    }
    draw();
  }

  // ---- Tables: branches and findings.
  function table(parent, heading, head, rows) {
    const h = document.createElement("h2"); h.textContent = heading;
    const t = document.createElement("table");
    const tr = t.insertRow();
    head.forEach((name, k) => { const th = document.createElement("th"); th.textContent = name; if (k === head.length - 1) th.className = "text"; tr.append(th); });
    for (const row of rows) {
      const r = t.insertRow();
      row.forEach((v, k) => { const td = r.insertCell(); td.textContent = String(v); if (k === row.length - 1) td.className = "text"; });
    }
    parent.append(h, t);
  }
  if (data.branches.length) {
    table(document.getElementById("branches"), "Branches that can diverge", ["line", "reconverges at", "executions", "diverged", "SIMD width lost while diverged", "lanes that waited longest"],
      data.branches.map((b) => {
        const most = Math.max(...b.waits);
        const lanes = b.waits.map((n, l) => (n === most && most > 0 ? l : -1)).filter((l) => l >= 0);
        return [b.line, b.reconv_line ? "line " + b.reconv_line : "the exit", b.executions, b.diverged, Math.round(100 * b.simd_lost) + "%", most ? "lanes " + lanes.join(", ") + ": " + most + " issues" : "none"];
      }));
  }
  if (data.findings.length) {
    table(document.getElementById("findings"), "Sanitizer findings", ["line", "count", "finding"],
      data.findings.map((f) => [f.line, f.count === null ? "?" : f.count, f.kind + ": " + f.message]));
  }
  if (data.printed && data.printed.length) {
    const shown = data.printed.length < data.printed_total ? " (the first " + data.printed.length + " of " + data.printed_total + ")" : "";
    table(document.getElementById("printed"), "Printed (printf), in print order" + shown, ["line", "block", "thread", "text"],
      data.printed.map((p) => [p.line, p.block, "(" + p.thread.join(",") + ")", p.text.replace(/\n$/, "")]));
  }

  // ---- A timed run: warps' states and issue slots over cycles, occupancy.
  const REASON_COLORS = {
    issued: "#2e7d32", eligible: "#95d5b2", scoreboard: "#e76f51", unit_busy: "#f4a261", memory_throttle: "#9d4edd", "branch/reconvergence": "#457b9d",
    barrier: "#e9c46a", no_warp: "#d8dde3", done: "#adb5bd",
  };
  function chart(parent, heading, height, note) {
    const h = document.createElement("h2"); h.textContent = heading;
    const c = document.createElement("canvas"); c.className = "chart"; c.style.width = "100%"; c.style.height = height + "px";
    parent.append(h, c);
    if (note) { const p = document.createElement("p"); p.className = "note"; p.textContent = note; parent.append(p); }
    const ratio = window.devicePixelRatio || 1;
    c.width = Math.round(c.clientWidth * ratio); c.height = Math.round(height * ratio);
    const g = c.getContext("2d"); g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.font = "11px system-ui, sans-serif";
    return { g, width: c.clientWidth, height, canvas: c };
  }
  function cycleAxis(g, left, right, y, t) {
    g.strokeStyle = "#8a939d"; g.fillStyle = "#1b1f24"; g.beginPath(); g.moveTo(left, y + 0.5); g.lineTo(right, y + 0.5); g.stroke();
    g.textAlign = "center"; g.textBaseline = "top";
    const step = niceStep(t.cycles / 8);
    for (let c = 0; c <= t.cycles; c += step) { const x = left + ((right - left) * c) / t.cycles; g.beginPath(); g.moveTo(x, y); g.lineTo(x, y + 4); g.stroke(); g.fillText(c.toLocaleString(), x, y + 6); }
    g.textAlign = "right"; g.fillText("cycle →", right, y + 20);
  }
  function legendFor(parent, names) {
    const l = document.createElement("div"); l.className = "legend";
    names.forEach((n) => l.append(swatch(REASON_COLORS[n] || "#888", n)));
    parent.append(l);
  }
  function stacked(parent, heading, series, names, maxValue, yLabel, note) {
    const { g, width } = chart(parent, heading, 220, note);
    const left = 56, right = width - 10, top = 10, bottom = 180;
    const t = data.timing, bins = t.bins, bw = (right - left) / bins;
    for (let b = 0; b < bins; b++) {
      let y = bottom;
      names.forEach((n, k) => {
        const h = ((bottom - top) * series[k][b]) / maxValue;
        g.fillStyle = REASON_COLORS[n] || "#888";
        g.fillRect(left + b * bw, y - h, bw + 0.6, h);
        y -= h;
      });
    }
    g.fillStyle = "#1b1f24"; g.textAlign = "right"; g.textBaseline = "middle";
    g.strokeStyle = "#8a939d"; g.beginPath(); g.moveTo(left - 0.5, top); g.lineTo(left - 0.5, bottom); g.stroke();
    for (const f of [0, 0.5, 1]) g.fillText((maxValue * f).toLocaleString(undefined, { maximumFractionDigits: 1 }), left - 4, bottom - (bottom - top) * f);
    g.save(); g.translate(12, (top + bottom) / 2); g.rotate(-Math.PI / 2); g.textAlign = "center"; g.fillText(yLabel, 0, 0); g.restore();
    cycleAxis(g, left, right, bottom, t);
    legendFor(parent, names);
  }
  function rows(parent, heading, labels, cellColor, note) {
    const rowH = labels.length > 64 ? 3 : 10;
    const { g, width } = chart(parent, heading, labels.length * rowH + 50, note);
    const left = 90, right = width - 10, top = 6, t = data.timing, bw = (right - left) / t.bins;
    labels.forEach((label, r) => {
      for (let b = 0; b < t.bins; b++) { const c = cellColor(r, b); if (c) { g.fillStyle = c; g.fillRect(left + b * bw, top + r * rowH, bw + 0.6, rowH - (rowH > 4 ? 1 : 0)); } }
      if (rowH >= 10 || r % 16 === 0) { g.fillStyle = "#1b1f24"; g.textAlign = "right"; g.textBaseline = "middle"; g.fillText(label, left - 4, top + r * rowH + rowH / 2); }
    });
    cycleAxis(g, left, right, top + labels.length * rowH + 2, t);
  }
  if (data.timing) {
    const t = data.timing, section = document.getElementById("timing");
    const h = document.createElement("h2"); h.textContent = "Timed on " + t.machine;
    const p = document.createElement("p");
    p.textContent = (t.recorded_until !== null ? "The first " : "") + t.cycles.toLocaleString() + " cycles on " + t.sms_used + " of " + t.sms + " SMs (" + t.partitions_per_sm + " partitions each); each column is " + t.bin_cycles.toLocaleString() + " cycle" + (t.bin_cycles === 1 ? "" : "s") + "." +
      (t.recorded_until !== null ? " Recording stopped there: a timed run keeps at most a million records (docs/cli.md, Limits)." : "");
    section.append(h, p);
    const peak = Math.max(1, ...t.warp_average[0].map((_, b) => t.warp_average.reduce((s, st) => s + st[b], 0)));
    stacked(section, "Warps by state over cycles (stacked)", t.warp_average, t.warp_states, peak, "warps", "Average number of resident warps in each state per column: issued, eligible (ready, another warp was picked) or stalled, by reason.");
    rows(section, "Each warp's state over cycles", t.warps.map((w) => "b" + w.block + " w" + w.warp), (r, b) => { const s = t.warps[r].states[b]; return s < 0 ? null : REASON_COLORS[t.warp_states[s]]; },
      "Each row a warp (" + t.warps.length + " of " + t.warps_total + " shown), coloured by the state it spent most of the column in; blank where it was not resident.");
    legendFor(section, t.warp_states);
    const slots = Math.max(1, t.sms_used * t.partitions_per_sm * t.bin_cycles);
    stacked(section, "Issue slots of the busy SMs' partitions, by reason", t.slot_cycles.map((s) => s.map((v) => v / slots)), t.slot_reasons, 1, "share of slots",
      "Each cycle every partition's issue slot either issues or is accounted to the most telling reason of its warps; shares are of the " + t.sms_used + " SMs that ran blocks.");
    rows(section, "Issue-slot use per SM partition", t.partitions.map((q) => "SM " + q.sm + " p" + q.partition), (r, b) => { const v = t.partitions[r].issued[b]; return v > 0 ? "rgba(46, 125, 50, " + (0.15 + 0.85 * v).toFixed(3) + ")" : "#f1f3f5"; },
      "Darker is more of the column's cycles issuing (" + t.partitions.length + " partitions that issued).");
    const o = t.occupancy;
    const occ = document.createElement("p");
    occ.id = "occupancy";
    occ.textContent = "Occupancy: theoretical " + o.theoretical_percent.toFixed(1) + "% (" + o.blocks_per_sm + " blocks, " + o.warps_per_sm + " warps per SM, limited by " + String(o.limiter).replace(/_/g, " ") + "), achieved " + o.achieved_percent.toFixed(1) + "%.";
    section.append(occ);
  }

  // ---- First draw.
  selectColumns();
  paintHeat();
  cellWidth = Math.min(maxCellWidth(), 24, Math.max(4, fitWidth()));
  layout();
  draw();
  const loadMs = performance.now() - started;
  summary.textContent += " Drawn in " + Math.round(loadMs) + " ms.";

  // For tests and the curious: what the page shows, in numbers.
  window.simtReport = {
    loadMs,
    columns: () => columns.length,
    highlighted,
    selectLine: (n) => selectLine(n, false),
    selectWarp: (k) => { warpFilter.value = String(k); warpFilter.dispatchEvent(new Event("change")); },
    cellWidth: () => cellWidth,
    firstColumn,
    // The viewport point of a cell's centre, scrolling it into view first.
    cellPoint: (column, lane) => {
      const width = plotWidth() / cellWidth;
      if (column < firstColumn() || column >= firstColumn() + width - 1) { scroller.scrollLeft = Math.max(0, (column - 2) * cellWidth); draw(); }
      const r = canvas.getBoundingClientRect();
      return { x: r.left + AXIS_LEFT + (column - firstColumn()) * cellWidth + Math.max(cellWidth, 1) / 2, y: r.top + lanesTop + lane * LANE_H + LANE_H / 2 };
    },
    issueAt: (column) => ({ pc: pcOf(columns[column]), line: lineOf(columns[column]), warp: data.warps[warpOf(columns[column])] }),
  };
})();
