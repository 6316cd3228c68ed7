// Canvas drawing: a colour-blind-safe diverging colour table and small line charts.

import { powerOfTen, sig } from "./ui.js";

// ColorBrewer RdBu, reversed (as matplotlib's RdBu_r): -1 dark blue, 0 white, +1 dark red.
const RDBU_R = [
  "#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7",
  "#fddbc7", "#f4a582", "#d6604d", "#b2182b", "#67001f",
];
const LUT_SIZE = 256;

function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** 256 packed RGBA pixels (as a Uint32 in the machine's byte order) from -1 to +1. */
export const DIVERGING = (() => {
  const stops = RDBU_R.map(rgb);
  const bytes = new Uint8ClampedArray(LUT_SIZE * 4);
  for (let i = 0; i < LUT_SIZE; i++) {
    const t = (i / (LUT_SIZE - 1)) * (stops.length - 1);
    const k = Math.min(Math.floor(t), stops.length - 2), f = t - k;
    for (let c = 0; c < 3; c++) bytes[4 * i + c] = stops[k][c] + f * (stops[k + 1][c] - stops[k][c]);
    bytes[4 * i + 3] = 255;
  }
  return new Uint32Array(bytes.buffer);
})();

/** Packed pixel for value v in [-range, range]. */
export function colourIndex(v, range = 1) {
  const i = Math.round(((v / range + 1) / 2) * (LUT_SIZE - 1));
  return i < 0 ? 0 : i >= LUT_SIZE ? LUT_SIZE - 1 : i;
}

/**
 * Read the CSS size of every canvas in `root` at once, before anything is written,
 * so drawing never forces a layout in between (one layout per update, not one per canvas).
 */
export function measureCanvases(root) {
  for (const canvas of root.querySelectorAll("canvas")) canvas.cssSize = [canvas.clientWidth, canvas.clientHeight];
}

/** Canvas backing store sized to its measured CSS box times devicePixelRatio. */
export function fitCanvas(canvas) {
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  const [cssW, cssH] = canvas.cssSize || [canvas.clientWidth, canvas.clientHeight];
  const w = Math.max(1, Math.round(cssW * dpr)), h = Math.max(1, Math.round(cssH * dpr));
  if (canvas.width !== w || canvas.height !== h) [canvas.width, canvas.height] = [w, h];
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w: cssW, h: cssH, dpr };
}

/** Round tick values covering [lo, hi], about `count` of them. */
export function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(+t.toPrecision(12));
  return ticks;
}

/** Ticks 1, 2, 4, ... up to `top`, and `top` itself when it lies well between (e.g. 40)
 * in place of a power of two less than 1.5 times below it (their labels would touch),
 * as the static slow-down figures (posenc_docs.figures.part2_extension) label their axis. */
export function powerOfTwoTicks(top) {
  const ticks = [];
  for (let t = 1; t <= top * (1 + 1e-12); t *= 2) ticks.push(t);
  const last = ticks[ticks.length - 1];
  if (top / last > 1.1) {
    if (top / last < 1.5) ticks.pop();
    ticks.push(Math.round(top * 10) / 10);
  }
  return ticks;
}

/** A tick label: decades on a log axis as 10 with a superscript (10\u00b9, 10\u00b2, ...), as
 * matplotlib labels the static figures; anything else as a plain number. */
export function tickLabel(v, log = false) {
  const e = Math.log10(v);
  if (log && Math.abs(e - Math.round(e)) < 1e-9) return powerOfTen(Math.round(e));
  return sig(v, 4);
}

/** Ticks of one axis: the given values, decades on a log axis, else round numbers. */
function ticksFor(range, log, given, count) {
  if (given) return given;
  if (!log) return niceTicks(range[0], range[1], count);
  const lo = Math.ceil(Math.log10(range[0]) - 1e-9), hi = Math.floor(Math.log10(range[1]) + 1e-9);
  return niceTicks(lo, hi, count).filter(Number.isInteger).map((e) => 10 ** e);
}

/** Map [lo, hi] (log10 first if `log`) onto pixels [a, b]; linear axes get 4% padding. */
function scale([lo, hi], log, a, b, pad) {
  const f = log ? Math.log10 : (v) => v;
  const [u, v] = [f(lo), f(hi)], p = log || !pad ? 0 : (v - u) * 0.04;
  return (t) => a + ((f(t) - u + p) / (v - u + 2 * p || 1)) * (b - a);
}

/**
 * Axes with ticks in a canvas; returns the plot frame {x(v), y(v), left, right, top, bottom}.
 * opts: {w, h, x: [lo, hi], y: [lo, hi], logX, logY, xTicks, yTicks, xLabel, yLabel,
 * colours, top, marks, clear}. Given ticks are labelled as plain numbers (1, 2, 4, as the
 * static figures), log decades otherwise as 10^n. yLabel is written above the plot; `marks` reserves a strip
 * for markX labels. The canvas records what it drew (data-axis-x, data-axis-y,
 * data-scale-x, data-scale-y), so a test can hold the page's prose to it.
 */
export function axes(ctx, opts) {
  const { w, h, colours } = opts, narrow = w < 420;
  const top = (opts.top || 0) + 10 + (opts.yLabel ? 16 : 0) + (opts.marks ? 16 : 0);
  const m = { left: narrow ? 40 : 52, right: 10, top, bottom: 34 };
  const X = scale(opts.x, opts.logX, m.left, w - m.right, false);
  const Y = scale(opts.y, opts.logY, h - m.bottom, m.top, true);
  if (opts.clear !== false) ctx.clearRect(0, 0, w, h);
  ctx.font = "11px system-ui, sans-serif";
  ctx.lineWidth = 1;
  ctx.fillStyle = colours.fg;
  ctx.strokeStyle = colours.grid;
  text(ctx, "right", "middle");
  for (const t of ticksFor(opts.y, opts.logY, opts.yTicks, 5)) {
    line(ctx, m.left, Y(t), w - m.right, Y(t));
    ctx.fillText(tickLabel(t, opts.logY && !opts.yTicks), m.left - 4, Y(t));
  }
  text(ctx, "center", "top");
  for (const t of ticksFor(opts.x, opts.logX, opts.xTicks, narrow ? 4 : 6)) ctx.fillText(tickLabel(t, opts.logX && !opts.xTicks), X(t), h - m.bottom + 4);
  ctx.fillText(opts.xLabel || "", (m.left + w - m.right) / 2, h - 14);
  text(ctx, "left", "top");
  if (opts.yLabel) ctx.fillText(opts.yLabel, 2, (opts.top || 0) + 4);
  ctx.strokeStyle = colours.muted;
  line(ctx, m.left, h - m.bottom, w - m.right, h - m.bottom);
  line(ctx, m.left, m.top, m.left, h - m.bottom);
  declare(ctx.canvas, { axisX: opts.xLabel, axisY: opts.yLabel, scaleX: opts.logX ? "log" : "linear",
    scaleY: opts.logY ? "log" : "linear", marks: "" });
  return { x: X, y: Y, left: m.left, right: w - m.right, top: m.top, bottom: h - m.bottom };
}

/** Record on a chart's element what it shows (data-* attributes; empty values removed). */
export function declare(node, fields) {
  for (const [key, value] of Object.entries(fields)) {
    if (value) node.dataset[key] = value;
    else delete node.dataset[key];
  }
}

function text(ctx, align, baseline) {
  ctx.textAlign = align;
  ctx.textBaseline = baseline;
}

/** A dashed vertical line at x = value, labelled in the strip above the plot (axes `marks`). */
export function markX(ctx, frame, value, label, colours) {
  const px = frame.x(value);
  ctx.save();
  ctx.strokeStyle = colours.fg;
  ctx.setLineDash([5, 3]);
  line(ctx, px, frame.top - 4, px, frame.bottom);
  ctx.restore();
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = colours.fg;
  const width = ctx.measureText(label).width, right = px + 4 + width <= frame.right;
  text(ctx, right ? "left" : "right", "bottom");
  ctx.fillText(label, px + (right ? 4 : -4), frame.top - 3);
  const marks = ctx.canvas.dataset.marks ? JSON.parse(ctx.canvas.dataset.marks) : [];
  ctx.canvas.dataset.marks = JSON.stringify([...marks, label]);
}

export function line(ctx, xa, ya, xb, yb) {
  ctx.beginPath();
  ctx.moveTo(xa, ya);
  ctx.lineTo(xb, yb);
  ctx.stroke();
}

/** Polyline through (xs(i), ys[i]) for i in [from, to); dash like [6, 3]. */
export function polyline(ctx, frame, count, xOf, yOf, style) {
  ctx.save();
  ctx.strokeStyle = style.colour;
  ctx.globalAlpha = style.alpha ?? 1;
  ctx.lineWidth = style.width || 1.5;
  ctx.setLineDash(style.dash || []);
  ctx.beginPath();
  for (let i = 0; i < count; i++) {
    const px = frame.x(xOf(i)), py = frame.y(yOf(i));
    if (i === 0) ctx.moveTo(px, py);
    else ctx.lineTo(px, py);
  }
  ctx.stroke();
  ctx.restore();
}

export function dotAt(ctx, px, py, colour, halo) {
  ctx.beginPath();
  ctx.arc(px, py, 4.5, 0, 2 * Math.PI);
  ctx.fillStyle = colour;
  ctx.strokeStyle = halo;
  ctx.lineWidth = 2;
  ctx.fill();
  ctx.stroke();
}
