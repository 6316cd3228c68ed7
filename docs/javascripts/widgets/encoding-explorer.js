// Encoding explorer: the sinusoidal matrix as a heatmap (rows are positions, columns
// dimensions, as the static figure), two positions A and B compared dimension by
// dimension, the similarity curves for four starts, and tabs for RoPE, ALiBi and a
// learned table. Mounted into <div class="posenc-widget" data-widget="encoding-explorer">.

import {
  h, fixed, sig, show, numberField, integerParser, baseParser, startValue, rangeField, tabList,
  themeColours, hideFallback, legendItem, swatch,
} from "./ui.js";
import { DIVERGING, colourIndex, fitCanvas, measureCanvases, axes, declare, line, polyline, dotAt } from "./plot.js";
import {
  pairFrequencies, encodingTable, similarityCurve, offsetSimilarity, alibiSlopes, rotate, dot, fixedNormal,
} from "./numerics.js";

const LIMITS = { d: [8, 512], n: [2, 1024], heads: [1, 64], maxLen: [1, 8192] };
const SHIFT = 1000; // RoPE: both positions moved by this much give the same score
/** The rows of a learned table of `maxLen` rows, in words. */
function rowSpan(maxLen) {
  return maxLen === 1 ? "one row, position 0" : `rows 0\u2013${maxLen - 1}`;
}

/** How a head count that is not a power of two gets its last `extra` slopes. */
function oddPowers(extra, c) {
  if (extra === 1) return `one more, 2^(\u22124/${c}), steeper than ${c === 2 ? "both" : `all ${c}`}.`;
  return `the first ${extra} odd powers of 2^(\u22124/${c}): the first is steeper than all ${c}, the others fall between them.`;
}

const LEARNED_STD = 0.02; // N(0, 0.02^2) rows, as a freshly initialised GPT-2/BERT table
const FAR_START = 5000; // the similarity curves' fixed far start, as the static figure's
const TAP_SLOP = 10; // CSS px a finger may move between touching and lifting and still tap
// ALiBi head lines: Okabe-Ito colours with >= 3:1 contrast on each scheme's background,
// a new dash pattern each time the five colours repeat.
const HEAD_COLOURS = {
  light: ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000"],
  dark: ["#56B4E9", "#E69F00", "#009E73", "#CC79A7", "#F0E442"],
};
const HEAD_DASHES = [[], [6, 3], [2, 2], [9, 3, 2, 3]];

// The caption of the widget, numbered like the figures it replaces (index.js).
export const CAPTION = "One tab per scheme, recomputed for the settings you choose: the sinusoidal matrix, two positions A and B and the similarity against the offset; a RoPE score against the offset; the ALiBi bias of each head; and a learned table that ends at max_len.";

export function mount(root) {
  const ds = root.dataset;
  const parse = {
    d: integerParser("d", ...LIMITS.d, { even: true }), n: integerParser("Positions", ...LIMITS.n),
    base: baseParser(), position: integerParser("Position", 0, LIMITS.n[1] - 1),
    heads: integerParser("Heads", ...LIMITS.heads), maxLen: integerParser("max_len", ...LIMITS.maxLen),
  };
  const state = {
    d: startValue(ds.d, parse.d, 128), base: startValue(ds.base, parse.base, 10000),
    n: startValue(ds.positions, parse.n, 256), a: startValue(ds.a, parse.position, 20),
    b: startValue(ds.b, parse.position, 50), heads: startValue(ds.heads, parse.heads, 8),
    maxLen: startValue(ds.maxLen, parse.maxLen, 192), tab: "sinusoidal",
  };
  const w = build(root, state);
  let derived = null, colours = null, width = 0, tableTimer = 0;

  function recompute() {
    const { d, base, n } = state;
    const omega = pairFrequencies(d, base);
    const table = encodingTable(2 * n, d, omega); // rows 0 .. 2n-1: A + k for A, k < n
    const fromZero = similarityCurve(table, d, 0, n);
    const fromFar = similarityCurve(encodingTable(n, d, omega, FAR_START), d, 0, n);
    const q = Float64Array.from({ length: d }, (_, j) => fixedNormal(1, j));
    const key = q.map((x, j) => 0.8 * x + 0.6 * fixedNormal(2, j));
    const ropeFromZero = ropeScores(q, key, omega, 0, n);
    derived = { omega, table, fromZero, fromFar, q, key, ropeFromZero };
    w.rope.panel.dataset.q = JSON.stringify([...q]);
    w.rope.panel.dataset.k = JSON.stringify([...key]);
  }

  function clampPositions() {
    const notes = [];
    for (const which of ["a", "b"]) {
      if (state[which] > state.n - 1) {
        notes.push(`Position ${which.toUpperCase()} moved from ${state[which]} to ${state.n - 1}, the last of ${state.n} positions.`);
        state[which] = state.n - 1;
      }
    }
    w.positionsNote.textContent = notes.join(" ");
    w.sliderA.set(state.a, state.n - 1);
    w.sliderB.set(state.b, state.n - 1);
  }

  function render(full) {
    colours = themeColours(root);
    const { panel, heat } = w[state.tab];
    if (panel.hidden) return;
    measureCanvases(panel);
    if (full && heat) {
      heat.paint((c) => (state.tab === "learned" ? paintLearned(c, state, colours) : paintTable(c, derived.table, state.n, state.d)));
    }
    w.axisEnd.forEach((node) => { node.textContent = `${state.n - 1}`; });
    w.sin.legend.replaceChildren(...curveStarts(state).map(([, label, style]) => legendItem(label, style(colours))));
    w.dimEnd.forEach((node) => { node.textContent = `${state.d - 1}`; });
    ({ sinusoidal: renderSinusoidal, rope: renderRope, alibi: renderAlibi, learned: renderLearned })[state.tab]();
    root.dataset.state = JSON.stringify({ d: state.d, base: state.base, n: state.n, a: state.a, b: state.b });
  }

  function renderSinusoidal() {
    const { table } = derived, { d, a, b } = state;
    w.sin.heat.mark(state, colours);
    const dp = dot(table, table, a * d, b * d, d);
    show(w.sin.dot, dp, fixed(dp, 4));
    const closed = offsetSimilarity(b - a, derived.omega);
    show(w.sin.closed, closed, fixed(closed, 4));
    drawCompare(w.sin.compare, table, state, colours);
    drawCurve(w.sin.curve, derived, state, colours);
    // The table is a snapshot: laying out d rows of text costs more than a frame here,
    // so it follows 200 ms after the last change instead of on every drag step.
    clearTimeout(tableTimer);
    if (w.sin.details.open) tableTimer = setTimeout(fillTable, 200);
  }

  function fillTable() {
    if (w.sin.details.open) fillDimensionTable(w.sin.rows, w.sin.caption, derived.table, derived.omega, state);
  }

  function renderRope() {
    const { a, b, base } = state, { q, key, omega } = derived;
    const score = dot(rotate(q, b, omega), rotate(key, a, omega));
    const shifted = dot(rotate(q, b + SHIFT, omega), rotate(key, a + SHIFT, omega));
    show(w.rope.score, score, fixed(score, 4));
    show(w.rope.shifted, shifted, fixed(shifted, 4));
    // The chart's offsets start at 0: a query before its key has no dot on it.
    const offChart = b < a ? ", left of the chart" : "";
    w.rope.where.textContent = `Score, query at ${b}, key at ${a} (m\u00a0\u2212\u00a0n\u00a0=\u00a0${fixed(b - a, 0)}${offChart}):`;
    w.rope.whereShifted.textContent = `both moved by ${SHIFT}, query at ${b + SHIFT}, key at ${a + SHIFT}:`;
    w.rope.panel.dataset.base = base;
    drawRope(w.rope.canvas, derived, state, colours);
  }

  function renderAlibi() {
    const slopes = alibiSlopes(state.heads);
    const distance = Math.abs(state.b - state.a);
    w.alibi.distance.textContent = `${distance}`;
    const rows = slopes.map((m, i) => h("tr", { "data-head": i + 1 },
      h("td", {}, swatch(headStyle(i, colours)), String(i + 1)),
      h("td", { "data-slope": m, text: sig(m) }),
      h("td", { "data-bias": -m * distance, text: fixed(-m * distance, 4) })));
    w.alibi.rows.replaceChildren(...rows);
    const c = 2 ** Math.floor(Math.log2(state.heads));
    w.alibi.rule.textContent = c === state.heads
      ? `${state.heads} is a power of two: slopes 2^(\u22128k/${c}) for k\u00a0=\u00a01\u00a0\u2026\u00a0${c}.`
      : `${state.heads} is not a power of two: the ${c} slopes for ${c} heads, then ${oddPowers(state.heads - c, c)}`;
    drawAlibi(w.alibi.canvas, slopes, state, colours);
    w.alibi.legend.replaceChildren(...alibiLegend(slopes, colours));
  }

  function renderLearned() {
    const { maxLen, d } = state;
    w.learned.heat.mark(state, colours, (...args) => noRowLabel(...args, state, colours));
    show(w.learned.count, maxLen * d, fixed(maxLen * d, 0));
    for (const which of ["a", "b"]) {
      const p = state[which], node = w.learned[which], name = which.toUpperCase();
      node.dataset.row = p < maxLen ? "yes" : "no";
      node.dataset.position = p;
      const row = Array.from({ length: Math.min(d, 4) }, (_, j) => fixed(LEARNED_STD * fixedNormal(7, p * d + j), 4));
      node.textContent = p < maxLen
        ? `Position ${name}\u00a0=\u00a0${p}: ${maxLen === 1 ? "the table\u2019s only row" : `row ${p} of ${rowSpan(maxLen)}`}, starting ${row.join(", ")}, \u2026`
        : `No row for position ${name}\u00a0=\u00a0${p}: the table has max_len\u00a0=\u00a0${maxLen} (${rowSpan(maxLen)}). The lookup fails; nothing can be added to this token.`;
    }
  }

  // ---- controls ----
  const fields = {
    d: numberField({ label: "Dimension d", value: state.d, min: 8, max: 512, step: 2,
      parse: parse.d, onValue: (v) => setParam("d", v) }),
    base: numberField({ label: "Base", value: state.base, min: 1, step: "any",
      parse: parse.base, onValue: (v) => setParam("base", v) }),
    n: numberField({ label: "Positions", value: state.n, min: 2, max: 1024,
      parse: parse.n, onValue: (v) => setParam("n", v) }),
    heads: numberField({ label: "Heads", value: state.heads, min: 1, max: 64,
      parse: parse.heads, onValue: (v) => { state.heads = v; render(false); } }),
    maxLen: numberField({ label: "Rows in the table (max_len)", value: state.maxLen, min: 1, max: 8192,
      parse: parse.maxLen, onValue: (v) => { state.maxLen = v; render(true); } }),
  };
  function setParam(name, value) {
    if (state[name] === value) return;
    state[name] = value;
    if (name === "n") clampPositions();
    recompute();
    render(true);
  }
  w.sliderA = rangeField({ label: "Position A", value: state.a, min: 0, max: state.n - 1, steps: "A",
    onValue: (v) => setPosition("a", v) });
  w.sliderB = rangeField({ label: "Position B", value: state.b, min: 0, max: state.n - 1, steps: "B",
    onValue: (v) => setPosition("b", v) });
  function setPosition(which, p) {
    const v = Math.min(Math.max(Math.round(p), 0), state.n - 1);
    state[which] = v;
    (which === "a" ? w.sliderA : w.sliderB).set(v);
    w.positionsNote.textContent = "";
    render(false);
  }
  w.controls.append(fields.d.wrap, fields.base.wrap, fields.n.wrap, w.sliderA.wrap, w.sliderB.wrap, w.positionsNote);
  w.alibi.panel.prepend(fields.heads.wrap);
  w.learned.panel.prepend(fields.maxLen.wrap);
  for (const heat of [w.sin.heat, w.learned.heat]) heat.onPick = pick;
  function pick(p, start) {
    if (start) pick.which = Math.abs(p - state.a) <= Math.abs(p - state.b) ? "a" : "b";
    setPosition(pick.which, p);
  }
  w.sin.details.addEventListener("toggle", fillTable);

  const tabs = tabList("Encodings", ["sinusoidal", "rope", "alibi", "learned"].map((key) => ({
    key, label: w[key].title, panel: w[key].panel,
  })), (key) => { state.tab = key; if (derived) render(true); });
  w.tabSlot.replaceWith(tabs.list);

  clampPositions();
  recompute();
  hideFallback(root);
  width = root.clientWidth;
  tabs.select("sinusoidal");
  const resize = new ResizeObserver(() => {
    if (root.clientWidth !== width) { width = root.clientWidth; render(true); }
  });
  resize.observe(root);
  return { root, redraw: () => render(true), destroy: () => resize.disconnect() };
}

function ropeScores(q, key, omega, keyPosition, count) {
  // (R_m q) . (R_n k) for m = n .. n + count - 1, n = keyPosition.
  const rotatedKey = rotate(key, keyPosition, omega);
  return Float64Array.from({ length: count }, (_, k) => dot(rotate(q, keyPosition + k, omega), rotatedKey));
}

// ---- DOM ----
function build(root, state) {
  const panel = (title, ...children) => ({ title, panel: h("div", { class: "pw-panel" }, ...children) });
  const readout = (label, attrs) => {
    const out = h("output", { ...attrs, "aria-live": "off" }); // read, not announced
    return [h("div", { class: "pw-readout" }, h("span", { text: label }), out), out];
  };
  const axisEnd = [], dimEnd = [];
  const heatBlock = (heat, caption, range = "1") => {
    const end = h("span", { text: state.n - 1 }), dEnd = h("span", { text: state.d - 1 });
    axisEnd.push(end);
    dimEnd.push(dEnd);
    const [rows, columns] = heat.vertical ? ["position", "dimension"] : ["dimension", "position"];
    const axis = (cls, name, arrow, last) => h("div", { class: cls }, h("span", { text: "0" }), h("span", { text: `${name} ${arrow}` }), last);
    const scaleBar = h("span", { class: "pw-scale", "aria-hidden": "true" }, h("span", { text: `\u2212${range}` }), h("i"), h("span", { text: `+${range}` }));
    const body = heat.vertical
      ? [h("div", { class: "pw-heat-grid" }, axis("pw-axis pw-axis-y", "position", "\u2193", end), heat.frame,
          h("span"), axis("pw-axis", "dimension", "\u2192", dEnd))]
      : [heat.frame, axis("pw-axis", "token position", "\u2192", end)];
    const rowsText = heat.vertical ? [" Rows: positions; columns: dimensions (pair i is dimensions 2i and 2i+1)."]
      : [" Rows: dimension 0 (top) to ", dEnd, " (bottom); columns: positions."];
    return h("figure", { class: "pw-heat", "data-axis-rows": rows, "data-axis-columns": columns }, ...body,
      h("figcaption", {}, caption, ...rowsText, scaleBar));
  };

  const sinHeat = makeHeat("Heatmap of the sinusoidal matrix: one row per position, one column per dimension; red is +1, blue \u22121. Use the sliders to move A and B.", true);
  const [dotRow, dotOut] = readout("PE(A) \u00b7 PE(B)\u00a0=", { "aria-label": "dot product", "data-readout": "dot" });
  const [closedRow, closedOut] = readout("\u03a3\u1d62 cos((B \u2212 A)\u03c9\u1d62)\u00a0=", { "data-readout": "offset-similarity" });
  const compare = h("canvas", { class: "pw-canvas pw-compare", role: "img", "aria-label": "The two encodings as colour strips, their product per dimension, and the running sum of products, which ends at PE(A)\u00b7PE(B)." });
  const curve = h("canvas", { class: "pw-canvas", role: "img", "aria-label": "Similarity PE(A) \u00b7 PE(A + k) against the offset k for four starts, 0, A, B and 5,000, each computed from the two vectors; the four curves lie on top of each other." });
  const curveLegend = h("ul", { class: "pw-legend" });
  const rows = h("tbody"), caption = h("caption");
  const details = h("details", { class: "pw-details" }, h("summary", { text: "Every dimension as a table" }),
    h("div", { class: "pw-scroll", tabindex: "0", role: "region", "aria-label": "Per-dimension values" },
      h("table", { class: "pw-table" }, caption, h("thead", {}, h("tr", {}, ...["j", "pair i", "\u03c9\u1d62", "PE(A)\u2c7c", "PE(B)\u2c7c", "product"].map((t) => h("th", { scope: "col", text: t })))), rows)));
  const sinusoidal = panel("Sinusoidal",
    h("p", { class: "pw-hint", text: "Click or tap a row of the heatmap to move the nearer of A and B there, drag with a mouse, or use the sliders (arrow keys move by one)." }),
    heatBlock(sinHeat, "Sinusoidal encoding, red +1, white 0, blue \u22121."),
    h("div", { class: "pw-readouts" }, dotRow, closedRow),
    h("p", { class: "pw-title", text: "PE(A) and PE(B), dimension by dimension" }),
    compare, details,
    h("p", { class: "pw-title", text: "Similarity PE(A) \u00b7 PE(A + k) against the offset k" }),
    curve, curveLegend,
    h("p", { class: "pw-hint", text: `Each curve is computed from the two vectors, for the starts 0, A, B and ${fixed(FAR_START, 0)}. They lie on top of each other: move A or B and its curve stays on the others. The dot is PE(A) \u00b7 PE(B), at k = |B \u2212 A|.` }));
  Object.assign(sinusoidal, { heat: sinHeat, dot: dotOut, closed: closedOut, compare, curve, legend: curveLegend, details, rows, caption });

  const ropeCanvas = h("canvas", { class: "pw-canvas", role: "img", "aria-label": "RoPE score of a fixed query and key against the offset m minus n, for the key at 0 and for the key at A; the two curves coincide." });
  const [scoreRow, scoreOut] = readout("", { "data-readout": "rope-score" });
  const [shiftRow, shiftOut] = readout("", { "data-readout": "rope-score-shifted" });
  const rope = panel("RoPE",
    h("p", { class: "pw-hint", text: "RoPE rotates a query q at position m and a key k at position n (pair i by angle m\u03c9\u1d62, same \u03c9 as above; q and k are fixed vectors). Their score (R\u2098q)\u00b7(R\u2099k) depends only on m \u2212 n." }),
    ropeCanvas, h("div", { class: "pw-readouts" }, scoreRow, shiftRow),
    h("p", { class: "pw-hint", text: "Grey: key at 0, query at k. Dashed: key at A, query at A + k. Same offset, same score." }));
  Object.assign(rope, { canvas: ropeCanvas, score: scoreOut, shifted: shiftOut,
    where: scoreRow.firstChild, whereShifted: shiftRow.firstChild });

  const alibiCanvas = h("canvas", { class: "pw-canvas", role: "img", "aria-label": "ALiBi bias against distance: one straight line per head, steeper for larger slopes." });
  const alibiRows = h("tbody"), distance = h("span"), rule = h("p", { class: "pw-hint" });
  const alibiLegend = h("ul", { class: "pw-legend", "aria-label": "Line of each head" });
  const alibi = panel("ALiBi",
    h("p", { class: "pw-hint", text: "ALiBi adds no vector to tokens: head h adds \u2212m\u2095\u00a0\u00d7\u00a0distance to each attention logit." }),
    rule, alibiCanvas, alibiLegend,
    h("div", { class: "pw-scroll", tabindex: "0", role: "region", "aria-label": "Slope of each head" },
      h("table", { class: "pw-table" }, h("thead", {}, h("tr", {},
        h("th", { scope: "col", text: "head" }), h("th", { scope: "col", text: "slope m\u2095" }),
        h("th", { scope: "col" }, "bias at |B \u2212 A| = ", distance))), alibiRows)));
  Object.assign(alibi, { canvas: alibiCanvas, rows: alibiRows, legend: alibiLegend, distance, rule });

  const learnedHeat = makeHeat("A learned table at initialisation: one column per row of the table, hatched where the table has no row.");
  const countOut = h("output", { "data-readout": "parameters", "aria-live": "off" });
  const learned = panel("Learned",
    h("p", { class: "pw-hint", text: "A learned table has one trainable row per position, max_len rows in all (shown untrained: random N(0, 0.02\u00b2) values). There is nothing past the last row." }),
    heatBlock(learnedHeat, "Learned table; hatched: no row.", "0.05"),
    h("p", { class: "pw-readout", "data-readout": "learned-a" }),
    h("p", { class: "pw-readout", "data-readout": "learned-b" }),
    h("div", { class: "pw-readout" }, h("span", { text: "Trainable numbers, max_len\u00a0\u00d7\u00a0d\u00a0=" }), countOut));
  Object.assign(learned, { heat: learnedHeat, count: countOut,
    a: learned.panel.querySelector('[data-readout="learned-a"]'),
    b: learned.panel.querySelector('[data-readout="learned-b"]') });

  const controls = h("div", { class: "pw-controls", role: "group", "aria-label": "Settings" });
  const tabSlot = h("div");
  const positionsNote = h("p", { class: "pw-note pw-wide", "aria-live": "polite" });
  const container = h("div", { class: "pw" }, controls, tabSlot, sinusoidal.panel, rope.panel, alibi.panel, learned.panel);
  root.append(container);
  return { controls, tabSlot, positionsNote, sinusoidal, sin: sinusoidal, rope, alibi, learned, axisEnd, dimEnd };
}

/**
 * A heatmap canvas with an overlay for the A/B markers, picked or dragged with a pointer.
 * vertical: positions run down the rows (marker lines across), else along the columns.
 */
function makeHeat(label, vertical = false) {
  const base = h("canvas", { class: "pw-heat-base", role: "img", "aria-label": label });
  const overlay = h("canvas", { class: "pw-heat-overlay", "aria-hidden": "true" });
  const frame = h("div", { class: `pw-heat-frame${vertical ? " pw-vertical" : ""}` }, base, overlay);
  const heat = { frame, vertical, onPick: null };
  const positionAt = (e) => {
    const box = overlay.getBoundingClientRect();
    const t = vertical ? (e.clientY - box.top) / box.height : (e.clientX - box.left) / box.width;
    return Math.floor(t * heat.n);
  };
  // A finger on the heatmap may be starting a page scroll (touch-action: pan-y gives
  // a vertical swipe to the page, which then sends pointercancel): it picks when it
  // lifts, only if it barely moved and was not cancelled. A mouse or pen picks at
  // once and drags.
  let touch = null;
  overlay.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "touch") {
      touch = { id: e.pointerId, x: e.clientX, y: e.clientY };
      return;
    }
    overlay.setPointerCapture(e.pointerId);
    heat.onPick(positionAt(e), true);
  });
  overlay.addEventListener("pointermove", (e) => {
    if (e.pointerType !== "touch" && overlay.hasPointerCapture(e.pointerId)) heat.onPick(positionAt(e), false);
  });
  overlay.addEventListener("pointerup", (e) => {
    const tap = touch && touch.id === e.pointerId && Math.hypot(e.clientX - touch.x, e.clientY - touch.y) < TAP_SLOP;
    touch = null;
    if (tap) heat.onPick(positionAt(e), true);
  });
  overlay.addEventListener("pointercancel", () => { touch = null; });
  heat.paint = (draw) => {
    fitCanvas(base);
    draw(base);
  };
  // after(ctx, w, h, at): draws on top of the markers, `at` their pixel offsets
  heat.mark = ({ a, b, n }, colours, after) => {
    heat.n = n;
    const { ctx, w, h: height } = fitCanvas(overlay);
    ctx.clearRect(0, 0, w, height);
    const at = [a, b].map((p) => ((p + 0.5) / n) * (vertical ? height : w));
    for (const [x, name, colour, text] of [[at[0], "A", colours.a, colours.onA], [at[1], "B", colours.b, colours.onB]]) {
      const ends = vertical ? [0, x, w, x] : [x, 0, x, height];
      for (const [stroke, width] of [["#fff", 4], ["#000", 1.5]]) {
        ctx.strokeStyle = stroke;
        ctx.lineWidth = width;
        line(ctx, ...ends);
      }
      const [left, top] = vertical ? [w - 20, Math.min(Math.max(x - 8, 0), height - 16)] : [Math.min(Math.max(x - 9, 0), w - 18), 2];
      ctx.fillStyle = colour;
      ctx.fillRect(left, top, 18, 16);
      ctx.fillStyle = text;
      ctx.font = "bold 12px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(name, left + 9, top + 8);
    }
    if (after) after(ctx, w, height, at);
  };
  return heat;
}

/** Box-average the (n x d) table into the canvas's device pixels: rows are positions. */
function paintTable(canvas, table, n, d) {
  const W = canvas.width, H = canvas.height;
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(W, H), pixels = new Uint32Array(image.data.buffer);
  const rows = new Float64Array(H * d); // (H, d): positions averaged into each pixel row
  for (let r = 0; r < H; r++) {
    const p0 = Math.floor((r * n) / H), p1 = Math.max(p0 + 1, Math.floor(((r + 1) * n) / H));
    for (let p = p0; p < p1; p++) for (let j = 0; j < d; j++) rows[r * d + j] += table[p * d + j];
    for (let j = 0; j < d; j++) rows[r * d + j] /= p1 - p0;
  }
  for (let c = 0; c < W; c++) {
    const j0 = Math.floor((c * d) / W), j1 = Math.max(j0 + 1, Math.floor(((c + 1) * d) / W));
    for (let r = 0; r < H; r++) {
      let sum = 0;
      for (let j = j0; j < j1; j++) sum += rows[r * d + j];
      pixels[r * W + c] = DIVERGING[colourIndex(sum / (j1 - j0))];
    }
  }
  ctx.putImageData(image, 0, 0);
}

function paintLearned(canvas, { n, d, maxLen }, colours) {
  const W = canvas.width, H = canvas.height, ctx = canvas.getContext("2d");
  const image = ctx.createImageData(W, H), pixels = new Uint32Array(image.data.buffer);
  const rowsEnd = Math.min(n, maxLen);
  const split = Math.round((rowsEnd / n) * W);
  for (let c = 0; c < split; c++) {
    const p = Math.floor(((c + 0.5) * n) / W);
    for (let r = 0; r < H; r++) {
      const j = Math.floor(((r + 0.5) * d) / H);
      pixels[r * W + c] = DIVERGING[colourIndex(LEARNED_STD * fixedNormal(7, p * d + j), 0.05)];
    }
  }
  ctx.putImageData(image, 0, 0);
  if (split >= W) return;
  const { dpr } = fitCanvas(canvas);
  const x0 = split / dpr, w = W / dpr, height = H / dpr;
  ctx.save();
  ctx.beginPath();
  ctx.rect(x0, 0, w - x0, height);
  ctx.clip();
  ctx.strokeStyle = colours.muted;
  for (let x = x0 - height; x < w; x += 8) line(ctx, x, height, x + height, 0);
  ctx.restore();
}

/**
 * Label the hatched part of the learned table "no row for position >= max_len", boxed,
 * in the widest gap between the markers, so no marker line runs through it.
 */
function noRowLabel(ctx, w, height, at, { n, maxLen }, colours) {
  const x0 = (Math.min(n, maxLen) / n) * w;
  const edges = [x0, ...at.filter((x) => x > x0).sort((p, q) => p - q), w];
  let gap = [0, 0];
  for (let i = 1; i < edges.length; i++) if (edges[i] - edges[i - 1] > gap[1] - gap[0]) gap = [edges[i - 1], edges[i]];
  ctx.font = "bold 12px system-ui, sans-serif";
  const text = [`no row for position \u2265 ${maxLen}`, "no row"].find((t) => ctx.measureText(t).width + 16 <= gap[1] - gap[0]);
  ctx.canvas.dataset.label = text ? JSON.stringify({ text, left: gap[0], right: gap[1] }) : "";
  if (!text) return;
  const width = ctx.measureText(text).width + 10, mid = (gap[0] + gap[1]) / 2;
  ctx.fillStyle = colours.bg;
  ctx.strokeStyle = colours.muted;
  ctx.fillRect(mid - width / 2, height / 2 - 11, width, 22);
  ctx.strokeRect(mid - width / 2, height / 2 - 11, width, 22);
  ctx.fillStyle = colours.fg;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(text, mid, height / 2);
}

function drawCompare(canvas, table, { a, b, d }, colours) {
  const { ctx, w, h: height, dpr } = fitCanvas(canvas);
  ctx.clearRect(0, 0, w, height);
  const left = w < 420 ? 40 : 52, right = 10, strip = 14;
  const products = new Float64Array(d);
  for (let j = 0; j < d; j++) products[j] = table[a * d + j] * table[b * d + j];
  const series = [[table.subarray(a * d, a * d + d), "A"], [table.subarray(b * d, b * d + d), "B"], [products, "A\u00d7B"]];
  ctx.font = "11px system-ui, sans-serif";
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  series.forEach(([values, name], k) => {
    const top = 4 + k * (strip + 4);
    ctx.fillStyle = colours.fg;
    ctx.fillText(name, left - 4, top + strip / 2);
    const W = Math.round((w - left - right) * dpr), Hs = Math.round(strip * dpr);
    const image = ctx.createImageData(W, Hs), pixels = new Uint32Array(image.data.buffer);
    for (let c = 0; c < W; c++) {
      const j0 = Math.floor((c * d) / W), j1 = Math.max(j0 + 1, Math.floor(((c + 1) * d) / W));
      let sum = 0;
      for (let j = j0; j < j1; j++) sum += values[j];
      const colour = DIVERGING[colourIndex(sum / (j1 - j0))];
      for (let r = 0; r < Hs; r++) pixels[r * W + c] = colour;
    }
    ctx.putImageData(image, Math.round(left * dpr), Math.round(top * dpr));
  });
  const running = new Float64Array(d);
  let sum = 0, lo = 0, hi = 1;
  for (let j = 0; j < d; j++) {
    sum += products[j];
    running[j] = sum;
    lo = Math.min(lo, sum);
    hi = Math.max(hi, sum);
  }
  const frame = axes(ctx, { w, h: height, x: [0, d - 1], y: [lo, hi], colours, top: 3 * (strip + 4) + 8,
    clear: false, xLabel: "dimension j; line: running sum of A\u00d7B up to j" });
  ctx.strokeStyle = colours.muted;
  line(ctx, frame.left, frame.y(0), frame.right, frame.y(0));
  polyline(ctx, frame, d, (j) => j, (j) => running[j], { colour: colours.fg, width: 1.5 });
  dotAt(ctx, frame.x(d - 1), frame.y(sum), colours.a, colours.bg);
}

/** The similarity curves' starts, with a legend label and a line style for each. */
function curveStarts({ a, b }) {
  return [
    [0, "start 0", (c) => ({ colour: c.muted, width: 7, alpha: 0.6 })],
    [a, `start A = ${fixed(a, 0)}`, (c) => ({ colour: c.a, width: 1.8, dash: [4, 3] })],
    [b, `start B = ${fixed(b, 0)}`, (c) => ({ colour: c.b, width: 1.8, dash: [4, 5] })],
    [FAR_START, `start ${fixed(FAR_START, 0)}`, (c) => ({ colour: c.series[2], width: 1.8, dash: [4, 7] })],
  ];
}

function drawCurve(canvas, { table, fromZero, fromFar }, state, colours) {
  const { ctx, w, h: height } = fitCanvas(canvas);
  const { a, b, d, n } = state, near = Math.min(a, b);
  const curves = [fromZero, similarityCurve(table, d, a, n), similarityCurve(table, d, b, n), fromFar];
  const lo = Math.min(0, ...curves.map((c) => Math.min(...c)));
  const frame = axes(ctx, { w, h: height, x: [0, n - 1], y: [lo, d / 2], colours,
    xLabel: "offset k (dot: k = |B \u2212 A|)", yLabel: "PE(A) \u00b7 PE(A + k)" });
  curveStarts(state).forEach(([, , style], i) => polyline(ctx, frame, n, (k) => k, (k) => curves[i][k], style(colours)));
  const k = Math.abs(b - a);
  dotAt(ctx, frame.x(k), frame.y(curves[near === a ? 1 : 2][k]), colours.a, colours.bg);
}

function drawRope(canvas, { omega, ropeFromZero, q, key }, { a, b, n }, colours) {
  const { ctx, w, h: height } = fitCanvas(canvas);
  let lo = Infinity, hi = -Infinity;
  for (const v of ropeFromZero) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
  const frame = axes(ctx, { w, h: height, x: [0, n - 1], y: [lo, hi], colours,
    xLabel: "offset m \u2212 n", yLabel: "score (R\u2098q) \u00b7 (R\u2099k)" });
  polyline(ctx, frame, n, (k) => k, (k) => ropeFromZero[k], { colour: "#8c8c8c", width: 3 });
  const count = n - a;
  const fromA = ropeScores(q, key, omega, a, count);
  polyline(ctx, frame, count, (k) => k, (k) => fromA[k], { colour: colours.b, width: 1.5, dash: [6, 4] });
  if (b >= a) dotAt(ctx, frame.x(b - a), frame.y(fromA[b - a]), colours.a, colours.bg);
}

/** Line style of ALiBi head i (0-based). */
function headStyle(i, colours) {
  const palette = HEAD_COLOURS[colours.dark ? "dark" : "light"];
  // Colour and dash cycle at different periods (5 and 4): no two of the first 20
  // heads share both, and any four heads in a row differ by dash alone.
  return { colour: palette[i % palette.length], width: 1.5, dash: HEAD_DASHES[i % HEAD_DASHES.length] };
}

function drawAlibi(canvas, slopes, { a, b, n }, colours) {
  const { ctx, w, h: height } = fitCanvas(canvas);
  const far = n - 1, distance = Math.abs(b - a);
  const steepest = Math.max(...slopes); // head 1 only for a power of two
  const frame = axes(ctx, { w, h: height, x: [0, far], y: [-steepest * far, 0], colours,
    xLabel: "distance i \u2212 j (marker: |B \u2212 A|)", yLabel: "bias \u2212m\u2095\u00b7(i \u2212 j)" });
  declare(canvas, { yFrom: String(-steepest * far) }); // every line ends inside
  slopes.forEach((m, i) => polyline(ctx, frame, 2, (t) => t * far, (t) => -m * t * far, headStyle(i, colours)));
  ctx.strokeStyle = colours.muted;
  ctx.setLineDash([3, 3]);
  line(ctx, frame.x(distance), frame.top, frame.x(distance), frame.bottom);
  ctx.setLineDash([]);
  for (const m of slopes) dotAt(ctx, frame.x(distance), frame.y(-m * distance), colours.a, colours.bg);
}

/** The ALiBi legend: one entry per head up to 16 heads, else a pointer to the table. */
function alibiLegend(slopes, colours) {
  if (slopes.length > 16) return [h("li", { text: `${slopes.length} heads: each row of the table below shows its head's line.` })];
  return slopes.map((m, i) => legendItem(`head ${i + 1}, m = ${sig(m)}`, headStyle(i, colours)));
}

function fillDimensionTable(tbody, caption, table, omega, { a, b, d, base }) {
  // One innerHTML write: a single parse and layout instead of 3 d separate updates.
  const cell = (v) => `<td data-value="${v}">${fixed(v, 4)}</td>`;
  let html = "";
  for (let j = 0; j < d; j++) {
    const x = table[a * d + j], y = table[b * d + j];
    html += `<tr data-dim="${j}"><td>${j}</td><td>${j >> 1}</td><td>${sig(omega[j >> 1], 4)}</td>${cell(x)}${cell(y)}${cell(x * y)}</tr>`;
  }
  tbody.innerHTML = html;
  caption.textContent = `PE(A) and PE(B) at A = ${a}, B = ${b}, d = ${d}`;
  Object.assign(caption.dataset, { a, b, d, base });
}
