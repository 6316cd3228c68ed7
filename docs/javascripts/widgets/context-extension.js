// Context-extension explorer: per rotary pair, the wavelength against the training
// length, and the slow-down theta_i / theta'_i that each method applies against the
// pair's original wavelength, on log axes with the training length marked, as in the
// page's static figures (numbers as in posenc_docs.scaling).
// Mounted into <div class="posenc-widget" data-widget="context-extension">.

import {
  h, fixed, sig, show, numberField, integerParser, baseParser, startValue, rangeField, themeColours, hideFallback, legendItem,
} from "./ui.js";
import { fitCanvas, measureCanvases, axes, declare, line, markX, polyline, powerOfTwoTicks } from "./plot.js";
import {
  pairFrequencies, wavelengths, scalePerPair, unturnedPairs, linear, ntk, ntkBase, yarn, llama3,
} from "./numerics.js";

const METHODS = [
  { key: "linear", name: "PI (linear)", dash: [] },
  { key: "ntk", name: "NTK-aware", dash: [7, 3] },
  { key: "yarn", name: "YaRN", dash: [2, 2] },
  { key: "llama3", name: "Llama 3.1", dash: [9, 3, 2, 3] },
];
const HIGH_FREQ_FACTOR = 4, LOW_FREQ_FACTOR = 1; // Llama 3.1's published values
const LENGTH_STEPS = [4, 23]; // training-length slider: powers of two, 16 to 8,388,608 tokens
const FACTORS = [1, 64]; // factor slider: whole factors (published ones are 2 to 40)

// The caption of the widget, numbered like the figure it replaces (index.js).
export const CAPTION = "The wavelength of each rotary pair, and the slow-down each method applies to it against that wavelength, for the head size, base, training length and factor you set. It starts at the static figure\u2019s settings, Llama 2 7B stretched four times.";

export function mount(root) {
  const ds = root.dataset;
  const parse = {
    d: integerParser("Head dim", 8, 512, { even: true }), base: baseParser(),
    step: integerParser("Training length step", ...LENGTH_STEPS), s: integerParser("Factor", ...FACTORS),
  };
  const state = {
    d: startValue(ds.d, parse.d, 128), base: startValue(ds.base, parse.base, 500000),
    L0: 2 ** startValue(ds.trainingLength && String(Math.log2(ds.trainingLength)), parse.step, 13),
    s: startValue(ds.factor, parse.s, 8),
  };
  const w = build(root);
  let result = null, width = 0;

  function compute() {
    const { d, base, L0, s } = state;
    const theta = pairFrequencies(d, base);
    // NTK's new base b s^(d/(d-2)) overflows float64 near the largest bases (1e308):
    // posenc_docs.scaling.ntk raises there, so NTK is left out, as YaRN without a ramp.
    const ntkFinite = Number.isFinite(ntkBase(d, base, s));
    const methods = { linear: linear(d, base, s), ntk: ntkFinite ? ntk(d, base, s) : null, yarn: yarn(d, base, s, L0), llama3: llama3(d, base, s, L0, LOW_FREQ_FACTOR, HIGH_FREQ_FACTOR) };
    const scale = {};
    for (const [key, m] of Object.entries(methods)) scale[key] = m && scalePerPair(m.invFreq, theta);
    result = { theta, wavelength: wavelengths(theta), methods, scale };
  }

  function render() {
    const colours = themeColours(root);
    measureCanvases(root);
    const { d, base, L0, s } = state, { wavelength, methods, scale } = result;
    const beyond = unturnedPairs(wavelength, L0);
    show(w.beyond, beyond, `${beyond} of ${d / 2}`);
    if (methods.ntk) {
      const nb = ntkBase(d, base, s);
      show(w.ntkBase, nb, fixed(nb, 2));
      w.ntkError.textContent = "";
    } else {
      show(w.ntkBase, "", "\u2014");
      w.ntkError.textContent = "NTK-aware scaling is left out: its new base, b\u00b7s to the power d/(d\u22122), is beyond the largest float64 number (posenc_docs.scaling.ntk refuses it too).";
    }
    if (methods.yarn) {
      const { low, high } = methods.yarn.bounds;
      show(w.yarnLow, low, String(low));
      show(w.yarnHigh, high, String(high));
      // Hugging Face clamps the bounds to d - 1, not d/2 - 1: say so when it shows
      w.yarnPast.textContent = high > d / 2 - 1 ? ` (past the last pair, d/2\u00a0\u2212\u00a01\u00a0=\u00a0${d / 2 - 1})` : "";
      show(w.yarnAttention, methods.yarn.attentionFactor, fixed(methods.yarn.attentionFactor, 4));
      w.yarnError.textContent = "";
    } else {
      for (const node of [w.yarnLow, w.yarnHigh, w.yarnAttention]) show(node, "", "\u2014");
      w.yarnPast.textContent = "";
      w.yarnError.textContent = "YaRN has no ramp for these settings: its bounds cross (posenc_docs.scaling.yarn raises ValueError), so it is left out.";
    }
    const tokens = (v) => fixed(v, Number.isInteger(v) ? 0 : 1); // 2,048, not 2,048.0
    show(w.bandFast, L0 / HIGH_FREQ_FACTOR, tokens(L0 / HIGH_FREQ_FACTOR));
    show(w.bandSlow, L0 / LOW_FREQ_FACTOR, tokens(L0 / LOW_FREQ_FACTOR));
    fillTable(w.rows, result, state);
    drawWavelengths(w.wavelengths, wavelength, state, colours);
    drawScales(w.scales, wavelength, scale, state, colours);
    w.legend.replaceChildren(...METHODS.map((m, i) => scale[m.key] && legendItem(m.name, { colour: colours.series[i], width: 2, dash: m.dash })).filter(Boolean));
    root.dataset.state = JSON.stringify(state);
  }

  const update = (name) => (value) => {
    if (state[name] === value) return;
    state[name] = value;
    compute();
    render();
  };
  const fields = [
    numberField({ label: "Head dim", value: state.d, min: 8, max: 512, step: 2,
      parse: parse.d, onValue: update("d") }),
    numberField({ label: "Base", value: state.base, min: 1, step: "any",
      parse: parse.base, onValue: update("base") }),
    rangeField({ label: "Training length", value: Math.log2(state.L0), min: LENGTH_STEPS[0], max: LENGTH_STEPS[1],
      format: (e) => fixed(2 ** e, 0), onValue: (e) => update("L0")(2 ** e) }),
    rangeField({ label: "Factor", value: state.s, min: FACTORS[0], max: FACTORS[1],
      format: (v) => `${v}\u00d7`, onValue: update("s") }),
  ];
  w.controls.append(...fields.map((f) => f.wrap));
  compute();
  hideFallback(root);
  width = root.clientWidth;
  render();
  const resize = new ResizeObserver(() => {
    if (root.clientWidth !== width) { width = root.clientWidth; render(); }
  });
  resize.observe(root);
  return { root, redraw: render, destroy: () => resize.disconnect() };
}

function build(root) {
  const out = (key) => h("output", { "data-readout": key, "aria-live": "off" }); // read, not announced
  const w = {
    controls: h("div", { class: "pw-controls", role: "group", "aria-label": "Settings" }),
    wavelengths: h("canvas", { class: "pw-canvas", role: "img", "aria-label": "Wavelength of each rotary pair on a log scale, with the trained context and the extended context as horizontal lines." }),
    scales: h("canvas", { class: "pw-canvas pw-tall", role: "img", "aria-label": "Slow-down of each rotary pair under linear interpolation, NTK-aware scaling, YaRN and Llama 3.1 against the pair's original wavelength, both on log axes, with L\u2080, the length the model was trained on, as a dashed vertical line; 1 means unchanged." }),
    legend: h("ul", { class: "pw-legend" }),
    rows: h("tbody"),
    yarnError: h("p", { class: "pw-note", "aria-live": "polite" }),
    ntkError: h("p", { class: "pw-note", "aria-live": "polite" }),
    yarnPast: h("span", { "data-note": "yarn-past" }),
  };
  for (const key of ["beyond", "ntkBase", "yarnLow", "yarnHigh", "yarnAttention", "bandFast", "bandSlow"]) w[key] = out(key);
  const headers = ["pair i", "\u03bb\u1d62", "turns in L\u2080", ...METHODS.map((m) => m.name)];
  // A label ends "operand\u00a0=", and the value does not wrap: "= 1.1386" never
  // starts a line alone.
  const row = (...parts) => h("p", { class: "pw-readout" }, ...parts);
  root.append(h("div", { class: "pw" }, w.controls,
    h("p", { class: "pw-title", text: "Wavelength \u03bb\u1d62 = 2\u03c0/\u03b8\u1d62 of each pair against the training length L\u2080" }),
    w.wavelengths,
    row("Pairs that never complete a turn within L\u2080:", w.beyond),
    h("p", { class: "pw-title", text: "Slow-down \u03b8\u1d62 / \u03b8\u2032\u1d62 each method applies, against the pair\u2019s original wavelength (1 = unchanged; left of the dashed line the pair turned during training)" }),
    w.scales, w.legend, w.ntkError, w.yarnError,
    row("NTK-aware base b\u00b7s", h("sup", { text: "d/(d\u22122)" }), "\u00a0=", w.ntkBase),
    row("YaRN ramp between pair indices", w.yarnLow, " and", w.yarnHigh, w.yarnPast, "; attention factor 0.1\u00b7ln\u00a0s\u00a0+\u00a01\u00a0=", w.yarnAttention),
    row("Llama 3.1 keeps pairs with \u03bb below L\u2080/4\u00a0=", w.bandFast, " and divides by s those above L\u2080\u00a0=", w.bandSlow),
    h("details", { class: "pw-details" }, h("summary", { text: "Every pair as a table" }),
      h("div", { class: "pw-scroll", tabindex: "0", role: "region", "aria-label": "Per-pair values" },
        h("table", { class: "pw-table" }, h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", { scope: "col", text: t })))), w.rows)))));
  return w;
}

function fillTable(tbody, { wavelength, scale }, { d, L0 }) {
  const rows = [];
  for (let i = 0; i < d / 2; i++) {
    const cells = [h("td", { text: i }), h("td", { "data-value": wavelength[i], text: fixed(wavelength[i], 1) }),
      h("td", { text: sig(L0 / wavelength[i], 4) })];
    for (const m of METHODS) {
      const v = scale[m.key] ? scale[m.key][i] : NaN;
      cells.push(h("td", { "data-method": m.key, "data-value": v, text: Number.isNaN(v) ? "\u2014" : fixed(v, 4) }));
    }
    rows.push(h("tr", { "data-pair": i }, ...cells));
  }
  tbody.replaceChildren(...rows);
}

function drawWavelengths(canvas, wavelength, { d, L0, s }, colours) {
  const { ctx, w, h: height } = fitCanvas(canvas);
  const n = d / 2, top = Math.max(wavelength[n - 1], s * L0) * 2, bottom = Math.min(wavelength[0], L0) / 2;
  const frame = axes(ctx, { w, h: height, x: [0, n - 1], y: [bottom, top], logY: true, colours,
    xLabel: "pair index i", yLabel: "wavelength \u03bb\u1d62 = 2\u03c0/\u03b8\u1d62, tokens (log)" });
  // At s = 1 the two lines are one: one label, not two drawn on top of each other.
  const lines = s === 1 ? [[L0, "L\u2080 = s\u00b7L\u2080", []]] : [[L0, "L\u2080", []], [s * L0, "s\u00b7L\u2080", [5, 4]]];
  declare(canvas, { lines: JSON.stringify(lines.map(([, label]) => label)) }); // as axes() records its labels
  // s·L₀'s line is above L₀'s; when it is closer than a label's height, L₀'s
  // label goes under its own line instead of under the other one.
  const size = parseFloat(ctx.font) || 11;
  const crowded = s !== 1 && frame.y(L0) - frame.y(s * L0) < size + 6;
  const boxes = [];
  for (const [value, label, dash] of lines) {
    ctx.strokeStyle = colours.a;
    ctx.lineWidth = 1.5;
    ctx.setLineDash(dash);
    line(ctx, frame.left, frame.y(value), frame.right, frame.y(value));
    ctx.setLineDash([]);
    ctx.fillStyle = colours.fg;
    ctx.textAlign = "left";
    const under = crowded && value === L0;
    ctx.textBaseline = under ? "top" : "bottom";
    const y = frame.y(value) + (under ? 2 : -2);
    ctx.fillText(label, frame.left + 4, y);
    const top = under ? y : y - size;
    boxes.push([label, top, top + size]);
  }
  declare(canvas, { lineLabels: JSON.stringify(boxes), lineYs: JSON.stringify(lines.map(([v]) => frame.y(v))) });
  polyline(ctx, frame, n, (i) => i, (i) => wavelength[i], { colour: colours.b, width: 2 });
}

function drawScales(canvas, wavelength, scale, { d, L0, s }, colours) {
  const { ctx, w, h: height } = fitCanvas(canvas);
  const n = d / 2;
  const frame = axes(ctx, { w, h: height, colours, logX: true, logY: true, marks: true,
    x: [Math.min(wavelength[0], L0) / 1.5, Math.max(wavelength[n - 1], L0) * 1.5],
    y: [0.85, s * 1.35], yTicks: powerOfTwoTicks(s),
    xLabel: "original wavelength \u03bb\u1d62 of the pair, tokens (log)", yLabel: "slow-down \u03b8\u1d62 / \u03b8\u2032\u1d62 (log)" });
  markX(ctx, frame, L0, `training length L\u2080 = ${fixed(L0, 0)}`, colours);
  METHODS.forEach((m, k) => {
    if (scale[m.key]) polyline(ctx, frame, n, (i) => wavelength[i], (i) => scale[m.key][i], { colour: colours.series[k], width: 2, dash: m.dash });
  });
}
