// The formulas of posenc_docs, in float64 and in the same order of operations, so
// the widgets show the package's numbers. Python names are given for each function.

/** rope.inv_freq / the sinusoidal omega_i = base^(-2i/d), one per pair. */
export function pairFrequencies(d, base) {
  const omega = new Float64Array(d / 2);
  for (let i = 0; i < d / 2; i++) omega[i] = base ** (-(2 * i) / d);
  return omega;
}

/** sinusoidal.table, from position `first`: row p = [sin(p w0), cos(p w0), sin(p w1), ...], (n * d). */
export function encodingTable(n, d, omega, first = 0) {
  const table = new Float64Array(n * d);
  for (let r = 0; r < n; r++) {
    const row = r * d, p = first + r;
    for (let i = 0; i < d / 2; i++) {
      const angle = p * omega[i];
      table[row + 2 * i] = Math.sin(angle);
      table[row + 2 * i + 1] = Math.cos(angle);
    }
  }
  return table;
}

/** Row `start` of a (rows * d) table dotted with rows start .. start + count - 1:
 * PE(A) . PE(A + k) for k = 0 .. count - 1, from the vectors (not the closed form). */
export function similarityCurve(table, d, start, count) {
  return Float64Array.from({ length: count }, (_, k) => dot(table, table, start * d, (start + k) * d, d));
}

/** sinusoidal.offset_similarity: sum_i cos(k w_i). */
export function offsetSimilarity(k, omega) {
  let sum = 0;
  for (let i = 0; i < omega.length; i++) sum += Math.cos(k * omega[i]);
  return sum;
}

/** alibi.alibi_slopes: 2^(-8k/c), then the odd powers of 2^(-4/c) for the rest. */
export function alibiSlopes(nHeads) {
  const c = 2 ** Math.floor(Math.log2(nHeads));
  const slopes = [];
  for (let k = 1; k <= c; k++) slopes.push(2 ** ((-8.0 * k) / c));
  for (let odd = 1; odd < 2 * (nHeads - c); odd += 2) slopes.push(2 ** ((-4.0 * odd) / c));
  return slopes;
}

/** rope.apply_rope, interleaved layout, for one vector x at position m. */
export function rotate(x, m, omega) {
  const out = new Float64Array(x.length);
  for (let i = 0; i < omega.length; i++) {
    const c = Math.cos(m * omega[i]), s = Math.sin(m * omega[i]);
    const a = x[2 * i], b = x[2 * i + 1];
    out[2 * i] = a * c - b * s;
    out[2 * i + 1] = b * c + a * s;
  }
  return out;
}

export function dot(x, y, xStart = 0, yStart = 0, length = x.length) {
  let sum = 0;
  for (let j = 0; j < length; j++) sum += x[xStart + j] * y[yStart + j];
  return sum;
}

/** A fixed standard-normal value for (seed, index): a hash, then Box-Muller. */
export function fixedNormal(seed, index) {
  const u1 = (hash(seed * 2654435761 + index * 2) + 0.5) / 4294967296;
  const u2 = (hash(seed * 2654435761 + index * 2 + 1) + 0.5) / 4294967296;
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

function hash(x) {
  let h = Math.imul((x >>> 0) ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// ---- scaling.py: every method returns {invFreq, attentionFactor} ----

/** scaling.wavelengths: lambda_i = 2 pi / theta_i, tokens per full turn. */
export function wavelengths(invFreq) {
  return invFreq.map((t) => (2 * Math.PI) / t);
}

/** scaling.scale_per_pair: the slow-down theta_i / theta'_i of each pair. */
export function scalePerPair(scaled, unscaled) {
  return unscaled.map((t, i) => t / scaled[i]);
}

/** part2_extension.turn_census(...).unfinished: pairs with lambda_i >= L (no full turn). */
export function unturnedPairs(wavelength, length) {
  return wavelength.filter((x) => x >= length).length;
}

/** scaling.linear: theta_i / s. */
export function linear(d, base, factor) {
  const invFreq = pairFrequencies(d, base).map((t) => t / factor);
  return { invFreq, attentionFactor: 1.0 };
}

/** scaling.ntk: base * s^(d/(d-2)) as the new base. */
export function ntkBase(d, base, ratio) {
  return base * ratio ** (d / (d - 2));
}

export function ntk(d, base, factor) {
  return { invFreq: pairFrequencies(d, ntkBase(d, base, factor)), attentionFactor: 1.0 };
}

/** scaling.yarn_correction_dim: d ln(L0 / (2 pi r)) / (2 ln b). */
function yarnCorrectionDim(rotations, d, base, L0) {
  return (d * Math.log(L0 / (2 * Math.PI * rotations))) / (2 * Math.log(base));
}

/** scaling.yarn_ramp_bounds; null where Python raises (empty ramp). */
export function yarnRampBounds(d, base, L0, betaFast = 32.0, betaSlow = 1.0, truncate = true) {
  let low = yarnCorrectionDim(betaFast, d, base, L0);
  let high = yarnCorrectionDim(betaSlow, d, base, L0);
  if (truncate) [low, high] = [Math.floor(low), Math.ceil(high)];
  [low, high] = [Math.max(low, 0), Math.min(high, d - 1)];
  return low <= high ? { low, high } : null;
}

/** scaling.yarn_mscale: 0.1 mu ln(s) + 1 for s > 1, else 1. */
export function yarnMscale(scale, mscale = 1.0) {
  return scale <= 1 ? 1.0 : 0.1 * mscale * Math.log(scale) + 1.0;
}

/** scaling.yarn with its defaults (beta_fast 32, beta_slow 1, truncate); null if empty ramp. */
export function yarn(d, base, factor, L0) {
  const bounds = yarnRampBounds(d, base, L0);
  if (!bounds) return null;
  let { low, high } = bounds;
  if (low === high) high += 0.001;
  const theta = pairFrequencies(d, base);
  const invFreq = theta.map((t, i) => {
    const ramp = Math.min(Math.max((i - low) / (high - low), 0), 1);
    return t * (1 - ramp) + (t / factor) * ramp;
  });
  return { invFreq, attentionFactor: yarnMscale(factor), bounds };
}

/** scaling.llama3: keep lambda < L0/high, theta/s for lambda > L0/low, blend between. */
export function llama3(d, base, factor, L0, lowFreqFactor = 1, highFreqFactor = 4) {
  const invFreq = pairFrequencies(d, base).map((theta) => {
    const wavelength = (2 * Math.PI) / theta;
    const sigma = (L0 / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
    const blended = ((1 - sigma) * theta) / factor + sigma * theta;
    if (wavelength < L0 / highFreqFactor) return theta;
    return wavelength > L0 / lowFreqFactor ? theta / factor : blended;
  });
  return { invFreq, attentionFactor: 1.0 };
}
