// Canvas drawing: a colour-blind-safe diverging colour table and small line charts.

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

const SUPERSCRIPT = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079";

export function tickLabel(v, log = false) {
  if (log) {
    const e = Math.round(Math.log10(v));
    if (e < 3) return String(10 ** e);
    return `10${[...String(e)].map((c) => SUPERSCRIPT[c]).join("")}`;
  }
  return String(+v.toPrecision(4)).replace("-", "\u2212");
}

/**
 * Axes with ticks in a canvas; returns the plot frame {x(v), y(v), left, right, top, bottom}.
 * opts: {w, h, x: [lo, hi], y: [lo, hi], logY, xLabel, colours, top, clear}
 */
export function axes(ctx, opts) {
  const { w, h, colours } = opts;
  const narrow = w < 420;
  const m = { left: narrow ? 40 : 52, right: 10, top: (opts.top || 0) + 10, bottom: 34 };
  const [x0, x1] = opts.x, [ya, yb] = opts.logY ? opts.y.map(Math.log10) : opts.y;
  const pad = opts.logY ? 0 : (yb - ya) * 0.04, y0 = ya - pad, y1 = yb + pad;
  const X = (v) => m.left + ((v - x0) / (x1 - x0 || 1)) * (w - m.left - m.right);
  const Y = (v) => {
    const t = opts.logY ? Math.log10(v) : v;
    return h - m.bottom - ((t - y0) / (y1 - y0 || 1)) * (h - m.top - m.bottom);
  };
  if (opts.clear !== false) ctx.clearRect(0, 0, w, h);
  ctx.font = "11px system-ui, sans-serif";
  ctx.lineWidth = 1;
  ctx.fillStyle = colours.fg;
  const yTicks = opts.logY
    ? niceTicks(Math.ceil(y0), Math.floor(y1), 5).filter(Number.isInteger).map((e) => 10 ** e)
    : niceTicks(y0, y1, 5);
  const xTicks = niceTicks(x0, x1, narrow ? 4 : 6);
  ctx.strokeStyle = colours.grid;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const t of yTicks) {
    line(ctx, m.left, Y(t), w - m.right, Y(t));
    ctx.fillText(tickLabel(t, opts.logY), m.left - 4, Y(t));
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const t of xTicks) ctx.fillText(tickLabel(t), X(t), h - m.bottom + 4);
  ctx.fillText(opts.xLabel || "", (m.left + w - m.right) / 2, h - 14);
  ctx.strokeStyle = colours.muted;
  line(ctx, m.left, h - m.bottom, w - m.right, h - m.bottom);
  line(ctx, m.left, m.top, m.left, h - m.bottom);
  return { x: X, y: Y, left: m.left, right: w - m.right, top: m.top, bottom: h - m.bottom };
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
