// DOM helpers shared by the widgets: elements, labelled fields that clamp and say so,
// accessible tabs, number formatting and the theme's colours.

let counter = 0;
export const uniqueId = (prefix) => `pw-${prefix}-${++counter}`;

/** h("div", {class: "x", "aria-label": "y"}, child, "text") */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value == null) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

/** Fixed decimals with thousands separators and a true minus sign, as the site's macros;
 * from 10^21 up, where toFixed writes "4.088994243248622e+300", 3 digits times a power of ten. */
export function fixed(value, places) {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1e21) return scientific(value, 3);
  const [whole, frac] = Math.abs(value).toFixed(places).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const negative = value < 0 && /[1-9]/.test(whole + (frac || ""));
  return (negative ? "\u2212" : "") + grouped + (frac ? `.${frac}` : "");
}

/** Six significant digits; where String() would write an exponent (from 10^21 up,
 * below 10^-6), as digits times a power of ten. */
export function sig(value, digits = 6) {
  const rounded = +value.toPrecision(digits), size = Math.abs(rounded);
  if (size >= 1e21 || (size > 0 && size < 1e-6)) return scientific(rounded, digits);
  return String(rounded).replace("-", "\u2212");
}

/** m x 10^k, m to `digits` significant digits without trailing zeros, k in superscript. */
function scientific(value, digits) {
  const [mantissa, exponent] = value.toExponential(digits - 1).split("e");
  return `${String(+mantissa).replace("-", "\u2212")} \u00d7 ${powerOfTen(+exponent)}`;
}

const SUPERSCRIPT = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079";

/** 10 to the power k, k in superscript with a superscript minus, as matplotlib writes it. */
export function powerOfTen(k) {
  const digits = [...String(Math.abs(k))].map((c) => SUPERSCRIPT[c]).join("");
  return `10${k < 0 ? "\u207b" : ""}${digits}`;
}

/** Write a readout: visible text plus the full float64 value in data-value. */
export function show(node, value, text) {
  node.textContent = text;
  node.dataset.value = String(value);
}

/**
 * A labelled number input. `parse(raw, {typed})` returns {value, note}: an accepted
 * value's note is whole sentences on what was changed and why; a refusal (value null)
 * has a fragment without a full stop, which the field ends with the text of the value
 * the widget still uses. `onValue(value)` runs for each accepted value,
 * on Enter or change only: applied keystroke by keystroke, typing 1000 into
 * Positions would clamp "1" first and move the positions that depend on it.
 */
export function numberField({ label, value, min, max, step = 1, parse, onValue, hint }) {
  const id = uniqueId("field");
  const input = h("input", {
    id, type: "number", inputmode: step === "any" ? "decimal" : "numeric",
    value, min, max, step, "aria-describedby": `${id}-note`,
  });
  const note = h("p", { class: "pw-note", id: `${id}-note`, "aria-live": "polite" });
  const wrap = h("div", { class: "pw-field" }, h("label", { for: id, text: label }), input, note);
  if (hint) wrap.title = hint;
  let written = null; // a value we wrote back; re-reading it must keep the note
  let using = input.value; // the text of the last value accepted, as the field showed it
  const apply = () => {
    if (input.value === written) return;
    // A number input reads "" for text it cannot parse ("1-2", "1e309"): badInput
    // says the reader did type something, so the note does not call it empty.
    const result = parse(input.value, { typed: input.validity.badInput });
    const refused = result.value == null;
    note.textContent = refused ? `${result.note}, still using ${using}.` : result.note || "";
    input.setAttribute("aria-invalid", refused ? "true" : "false");
    wrap.classList.toggle("pw-refused", refused);
    if (refused) return;
    // Rewritten only when the value changed (clamped, rounded): "1e300" stays as typed.
    if (result.value !== +input.value) input.value = written = String(result.value);
    using = input.value;
    onValue(result.value);
  };
  input.addEventListener("input", () => { written = null; });
  input.addEventListener("change", apply);
  input.addEventListener("keydown", (e) => e.key === "Enter" && apply());
  return { wrap };
}

/** What a refused field held: the text, or why there is none to quote. */
function refusedText(raw, typed) {
  if (raw.trim() !== "") return raw;
  return typed ? "text that is not a number" : "an empty field";
}

/** Parser for whole numbers in [lo, hi]; `even` rounds odd values up to even. */
export function integerParser(name, lo, hi, { even = false } = {}) {
  const grouped = (v) => v.toLocaleString("en-US");
  const range = `${grouped(lo)} to ${grouped(hi)}`;
  return (raw, { typed = false } = {}) => {
    const x = +raw;
    if (raw.trim() === "" || !Number.isFinite(x)) {
      const kind = even ? "an even whole number" : "a whole number";
      return { value: null, note: `${name} must be ${kind} from ${range}; ${refusedText(raw, typed)} refused` };
    }
    let v = Math.round(x), notes = [];
    if (v !== x) notes.push(`${raw} is not a whole number: using ${v}.`);
    if (even && v % 2) {
      const up = v + 1 <= hi ? v + 1 : v - 1;
      notes.push(`${name} must be even: ${v} rounded to ${up}.`);
      v = up;
    }
    if (v < lo || v > hi) {
      const c = Math.min(Math.max(v, lo), hi);
      notes.push(`${name} must be between ${grouped(lo)} and ${grouped(hi)}: ${grouped(v)} clamped to ${grouped(c)}.`);
      v = c;
    }
    return { value: v, note: notes.join(" ") };
  };
}

/** A start value from a data attribute, through the same parser as its field. */
export function startValue(raw, parse, fallback) {
  return raw == null ? fallback : (parse(raw).value ?? fallback);
}

/** Parser for a RoPE/sinusoidal base: refused unless finite and > 1. */
export function baseParser() {
  return (raw, { typed = false } = {}) => {
    const x = +raw;
    if (raw.trim() === "" || !Number.isFinite(x) || x <= 1) {
      return { value: null, note: `Base must be a number greater than 1; ${refusedText(raw, typed)} refused` };
    }
    return { value: x, note: "" };
  };
}

/** A labelled range slider with its value shown beside it; `format(v)` writes that value. */
export function rangeField({ label, value, min, max, format = String, onValue, steps = null }) {
  const id = uniqueId("range");
  const input = h("input", { id, type: "range", min, max, step: 1, value, "aria-valuetext": format(value) });
  // The slider's aria-valuetext says the value: this copy is for the eye only.
  const out = h("output", { for: id, class: "pw-range-value", text: format(value), "aria-hidden": "true" });
  // steps: a short name ("A") for buttons one step down and up, where a slider over
  // many values moves several a pixel on a phone (the arrow keys step by one too).
  const step = (by, sign) => {
    const button = h("button", { type: "button", class: "pw-step", "aria-label": `${steps} ${sign} 1`, text: sign });
    // a range input clamps the value it is given to min .. max: at an end, no event
    button.onclick = () => {
      const was = input.value;
      input.value = +was + by;
      if (input.value !== was) input.dispatchEvent(new Event("input"));
    };
    return button;
  };
  const row = steps ? [step(-1, "\u2212"), input, step(1, "+"), out] : [input, out];
  const wrap = h("div", { class: "pw-field pw-range" },
    h("label", { for: id, text: label }), h("div", { class: "pw-range-row" }, ...row));
  // As wide as the longest value it can show: the slider keeps its length as it moves.
  const fit = () => {
    const longest = Math.max(format(+input.min).length, format(+input.max).length);
    out.style.minWidth = `max(2.6em, ${longest}ch)`;
  };
  fit();
  const set = (v, max) => {
    if (max != null) { input.max = max; fit(); }
    input.value = v;
    out.textContent = format(v);
    input.setAttribute("aria-valuetext", format(v));
  };
  input.addEventListener("input", () => { const v = +input.value; set(v); onValue(v); });
  return { wrap, input, out, set };
}

/** WAI-ARIA tabs. tabs: [{key, label, panel}]; onShow(key) when one is selected. */
export function tabList(label, tabs, onShow) {
  const list = h("div", { class: "pw-tabs", role: "tablist", "aria-label": label });
  const buttons = tabs.map(({ key, label: text, panel }) => {
    const id = uniqueId("tab");
    panel.id = `${id}-panel`;
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", id);
    panel.tabIndex = 0;
    const button = h("button", { type: "button", role: "tab", id, "aria-controls": panel.id, text });
    button.addEventListener("click", () => select(key));
    list.append(button);
    return button;
  });
  function select(key, focus = false) {
    tabs.forEach((tab, i) => {
      const on = tab.key === key;
      buttons[i].setAttribute("aria-selected", String(on));
      buttons[i].tabIndex = on ? 0 : -1;
      tab.panel.hidden = !on;
      if (on && focus) buttons[i].focus();
    });
    onShow(key);
  }
  list.addEventListener("keydown", (e) => {
    const i = buttons.indexOf(document.activeElement);
    const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 };
    if (i < 0 || !(e.key in moves)) return;
    e.preventDefault();
    select(tabs[(moves[e.key] + tabs.length) % tabs.length].key, true);
  });
  return { list, select };
}

/** Colours from Material's CSS variables, so canvases follow the light/dark scheme. */
export function themeColours(node) {
  const style = getComputedStyle(node);
  const v = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  const dark = (document.body.getAttribute("data-md-color-scheme") || "") === "slate";
  return {
    fg: v("--md-default-fg-color", "#000"),
    muted: v("--md-default-fg-color--light", "#666"),
    grid: v("--md-default-fg-color--lightest", "#ddd"),
    bg: v("--md-default-bg-color", "#fff"),
    // Okabe-Ito: vermillion/blue on light, orange/sky blue on dark (>= 3:1 contrast).
    a: dark ? "#E69F00" : "#D55E00",
    b: dark ? "#56B4E9" : "#0072B2",
    // Text on a marker of that colour: black on vermillion (5.4:1; white was 3.9:1).
    onA: "#000",
    onB: dark ? "#000" : "#fff",
    series: dark ? ["#56B4E9", "#E69F00", "#009E73", "#CC79A7"] : ["#0072B2", "#D55E00", "#009E73", "#CC79A7"],
    dark,
  };
}

/** A short line in a line style {colour, width, dash}, as an inline SVG (for legends). */
export function swatch({ colour, width = 2, dash = [] }) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  for (const [k, v] of Object.entries({ width: 28, height: 8, "aria-hidden": "true", class: "pw-swatch" })) svg.setAttribute(k, v);
  const path = document.createElementNS(ns, "line");
  for (const [k, v] of Object.entries({ x1: 0, y1: 4, x2: 28, y2: 4, stroke: colour, "stroke-width": width, "stroke-dasharray": dash.join(" ") })) path.setAttribute(k, v);
  svg.append(path);
  return svg;
}

export const legendItem = (label, style) => h("li", {}, swatch(style), label);

/** Hide the static build-time figures inside a widget root; they are the no-JS view. */
export function hideFallback(root) {
  for (const child of root.children) {
    if (child.matches("figure.posenc-fig")) child.hidden = true;
  }
}
