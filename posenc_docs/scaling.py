r"""RoPE context extension: new rotation frequencies for longer contexts.

Every method returns `(inv_freq, attention_factor)` like Hugging Face
transformers' `modeling_rope_utils`: `inv_freq` is a float64 array of the d/2
pair frequencies $\theta'_i$ and `attention_factor` multiplies *both* cos and
sin, so the attention logits grow by its square. Give both to
[`RotaryEmbedding`][posenc_docs.rope.RotaryEmbedding], whose default layout is
Hugging Face's `"half"`; or give `inv_freq` to
[`apply_rope`][posenc_docs.rope.apply_rope] (`apply_rope_torch` takes
`torch.from_numpy(inv_freq)`) with `layout="half"` for a Hugging Face checkpoint,
since their default `"interleaved"` is Meta's (the wrong layout raises no error,
it gives wrong scores), and multiply the rotated q and k by `attention_factor`.
Apply the factor there once, not again in the softmax temperature; the one
exception is DeepSeek's split (`yarn` with `mscale_all_dim`), whose attention
layer multiplies the softmax scale by `yarn_mscale(factor, mscale_all_dim) ** 2`.

For a Hugging Face config, [`from_rope_scaling`][posenc_docs.scaling.from_rope_scaling]
reads its `rope_scaling` (`rope_parameters` in transformers 5) and dispatches on
`rope_type`; `posenc_docs/examples/api/hf_config.py`, run on this module's page of
the site, gives its results to `RotaryEmbedding`.

Notation: d rotary dim (the head width for `proportional`, which rotates the whole
head), b base, s factor, $L_0$ original context length,
$\theta_i = b^{-2i/d}$, $\lambda_i = 2\pi/\theta_i$ (wavelength).
"""

import inspect
import math
import re
from collections.abc import Mapping

import numpy as np

from posenc_docs._checks import (
    checked_array,
    checked_bool,
    checked_choice,
    checked_even,
    checked_int,
    checked_real,
)
from posenc_docs.rope import inv_freq as rope_inv_freq


def ntk_base(d: int, base: float, factor: float) -> float:
    r"""NTK-aware base: the base that slows the lowest pair by exactly `factor`.

    Parameters
    ----------
    d : int
        Rotary dimension (even, >= 4).
    base : float
        RoPE base b > 1.
    factor : float
        s >= 1.

    Returns
    -------
    float
        The new base b'.

    Notes
    -----
    $b' = b\, s^{d/(d-2)}$. Then $\theta'_i = b'^{-2i/d}$ keeps pair 0 at 1 and makes
    the lowest pair ($i = d/2 - 1$) exactly $\theta_{d/2-1}/s$.
    """
    d = checked_even("d", d, minimum=4)  # d/(d-2) needs d > 2
    base = checked_real("base", base, gt=1)
    factor = checked_real("factor", factor, ge=1)
    try:
        new_base = base * factor ** (d / (d - 2))
    except OverflowError:  # e.g. factor 1e200 at d = 4
        new_base = math.inf
    if not math.isfinite(new_base):
        raise ValueError(
            f"factor={factor!r} takes the NTK base b s^(d/(d-2)) past float64's "
            f"range (d={d}, base={base!r})"
        )
    return new_base


def wavelengths(inv_freq: np.ndarray) -> np.ndarray:
    r"""Wavelength of each pair, in tokens (float64).

    Parameters
    ----------
    inv_freq : numpy.ndarray
        Pair frequencies $\theta_i$, shape `(d/2,)`.

    Returns
    -------
    numpy.ndarray
        $\lambda_i$, same shape; inf for a frequency of 0 (a pair that does not
        rotate, as `proportional` gives).

    Notes
    -----
    $\lambda_i = 2\pi / \theta_i$: pair i turns once every $\lambda_i$ tokens.
    """
    inv_freq = checked_array("inv_freq", inv_freq, floating=False)  # (d/2,)
    with np.errstate(divide="ignore"):  # 2 pi / 0 = inf, said above
        return 2 * np.pi / inv_freq.astype(np.float64)


def scale_per_pair(
    scaled_inv_freq: np.ndarray, base_inv_freq: np.ndarray
) -> np.ndarray:
    r"""Per-pair slow-down of scaled frequencies (1 = unchanged, s = interpolated).

    Parameters
    ----------
    scaled_inv_freq : numpy.ndarray
        Frequencies $\theta'_i$ after scaling, shape `(d/2,)`.
    base_inv_freq : numpy.ndarray
        Frequencies $\theta_i$ before scaling, same shape.

    Returns
    -------
    numpy.ndarray
        The ratio, same shape: inf where only the scaled frequency is 0 and NaN
        where both are (pairs that `proportional` leaves still), without a
        warning.

    Notes
    -----
    $\theta_i / \theta'_i = \lambda'_i / \lambda_i$: how many times longer pair i's
    wavelength has become.
    """
    scaled = checked_array("scaled_inv_freq", scaled_inv_freq, floating=False)
    unscaled = checked_array("base_inv_freq", base_inv_freq, floating=False)
    if scaled.shape != unscaled.shape:
        raise ValueError(
            f"scaled_inv_freq must have the shape of base_inv_freq {unscaled.shape}, "
            f"got {scaled.shape}"
        )
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0: NaN, said above
        return unscaled.astype(np.float64) / scaled.astype(np.float64)


def linear(d: int, base: float = 10000.0, *, factor: float):
    r"""Position interpolation (PI): every frequency divided by `factor`.

    Parameters
    ----------
    d : int
        Rotary dimension (positive, even).
    base : float, default 10000.0
        RoPE base b > 1.
    factor : float
        Context extension s >= 1.

    Returns
    -------
    inv_freq : numpy.ndarray of shape (d/2,)
        float64 frequencies $\theta'_i$.
    attention_factor : float
        Always 1.0 for this method.

    Notes
    -----
    $\theta'_i = \theta_i / s$, the same as feeding positions $m / s$. Attention
    factor 1.
    """
    d, base = checked_even("d", d), checked_real("base", base, gt=1)
    return rope_inv_freq(d, base) / checked_real("factor", factor, ge=1), 1.0


def ntk(d: int, base: float = 10000.0, *, factor: float):
    r"""Static NTK-aware scaling: a larger base instead of smaller frequencies.

    Parameters
    ----------
    d : int
        Rotary dimension (even, >= 4).
    base : float, default 10000.0
        RoPE base b > 1.
    factor : float
        Context extension s >= 1.

    Returns
    -------
    inv_freq : numpy.ndarray of shape (d/2,)
        float64 frequencies $\theta'_i$.
    attention_factor : float
        Always 1.0 for this method.

    Notes
    -----
    $b' = b\, s^{d/(d-2)}$ and $\theta'_i = b'^{-2i/d}$. The exponent makes the
    lowest pair ($i = d/2 - 1$) exactly $\theta_{d/2-1}/s$ while pair 0 stays 1.
    Attention factor 1.
    """
    d = checked_even("d", d, minimum=4)
    return rope_inv_freq(d, ntk_base(d, base, factor)), 1.0


def dynamic_ntk_base(d, base=10000.0, *, factor, max_position_embeddings, seq_len=None):
    r"""The base b' that dynamic NTK uses at sequence length `seq_len`.

    Parameters
    ----------
    d : int
        Rotary dimension (even, >= 4).
    base : float, default 10000.0
        RoPE base b > 1.
    factor : float
        s >= 1.
    max_position_embeddings : int
        $L_0$, the *original* trained length (not
        `original_max_position_embeddings`).
    seq_len : int, optional
        Current length `max(position_ids) + 1`; None means $L_0$.

    Returns
    -------
    float
        The base b'.

    Notes
    -----
    With $L = \max(\text{seq\_len}, L_0)$,

    $$b' = b \Bigl(\frac{s L}{L_0} - (s - 1)\Bigr)^{d/(d-2)},$$

    so $b' = b$ for $L \le L_0$. At $L = s L_0$ it is
    $b\,(s^2 - s + 1)^{d/(d-2)}$, not the static NTK base $b\, s^{d/(d-2)}$.
    """
    d, base = checked_even("d", d, minimum=4), checked_real("base", base, gt=1)
    factor = checked_real("factor", factor, ge=1)
    L0 = checked_int("max_position_embeddings", max_position_embeddings)
    length = L0 if seq_len is None else max(checked_int("seq_len", seq_len), L0)
    # s*L/L0 - (s-1) written as 1 + s*(L-L0)/L0: exactly 1 (b' = b) at L = L0
    running = 1 + factor * (length - L0) / L0
    try:
        return ntk_base(d, base, running)
    except ValueError:  # the base overflows: say which arguments led there
        raise ValueError(
            f"factor={factor!r} at seq_len={seq_len!r} (max_position_embeddings="
            f"{L0}) takes dynamic NTK's base past float64's range"
        ) from None


def dynamic_ntk(d, base=10000.0, *, factor, max_position_embeddings, seq_len=None):
    r"""Dynamic NTK: NTK base grown with the running length (HF `"dynamic"`).

    Parameters
    ----------
    d : int
        Rotary dimension (even, >= 4).
    base : float, default 10000.0
        RoPE base b > 1.
    factor : float
        s >= 1.
    max_position_embeddings : int
        $L_0$, the *original* trained length (not
        `original_max_position_embeddings`).
    seq_len : int, optional
        The length to scale for, `max(position_ids) + 1`. HF's model keeps the
        longest length seen so far and goes back to the original frequencies only
        below $L_0$; pass that length to get HF's frequencies.

    Returns
    -------
    inv_freq : numpy.ndarray of shape (d/2,)
        float64 frequencies $\theta'_i$.
    attention_factor : float
        Always 1.0 for this method.

    Notes
    -----
    $\theta'_i = b'^{-2i/d}$ with b' from `dynamic_ntk_base`; unchanged for
    $\text{seq\_len} \le L_0$.
    """
    d = checked_even("d", d, minimum=4)
    new_base = dynamic_ntk_base(
        d,
        base,
        factor=factor,
        seq_len=seq_len,
        max_position_embeddings=max_position_embeddings,
    )
    return rope_inv_freq(d, new_base), 1.0


def yarn_correction_dim(num_rotations, d, base, original_max_position_embeddings):
    r"""Pair index (real-valued) that turns `num_rotations` times within $L_0$.

    Parameters
    ----------
    num_rotations : float
        Turns r within the trained length.
    d : int
        Rotary dimension.
    base : float
        RoPE base b.
    original_max_position_embeddings : int
        $L_0$, the trained context length.

    Returns
    -------
    float
        $c(r)$ below.

    Notes
    -----
    $c(r) = \dfrac{d \ln(L_0 / (2\pi r))}{2 \ln b}$, solving
    $L_0\, \theta_c = 2\pi r$.
    """
    num_rotations = checked_real("num_rotations", num_rotations, gt=0)
    d, base = checked_even("d", d), checked_real("base", base, gt=1)
    L0 = checked_int(
        "original_max_position_embeddings", original_max_position_embeddings
    )
    ratio = L0 / (2 * math.pi * num_rotations)  # HF's form, to the last bit
    if not 0 < ratio < math.inf:  # r near float's limits: the same in logs
        ratio_log = math.log(L0) - math.log(2 * math.pi) - math.log(num_rotations)
    else:
        ratio_log = math.log(ratio)
    return d * ratio_log / (2 * math.log(base))


def yarn_ramp_bounds(
    d,
    base=10000.0,
    *,
    original_max_position_embeddings,
    beta_fast=32.0,
    beta_slow=1.0,
    truncate=True,
):
    r"""YaRN ramp bounds (low, high) in pair-index units.

    Parameters
    ----------
    d : int
        Rotary dimension (positive, even).
    base : float, default 10000.0
        RoPE base b > 1.
    original_max_position_embeddings : int
        $L_0$, the trained context length.
    beta_fast : float, default 32.0
        Rotations within $L_0$ above which a pair is kept.
    beta_slow : float, default 1.0
        Rotations within $L_0$ below which a pair is interpolated;
        beta_fast >= beta_slow > 0 (equal, as in Kimi K2: a ramp at most one
        pair wide, as in Hugging Face).
    truncate : bool, default True
        Round the bounds outwards to integers (as HF does by default).

    Returns
    -------
    tuple of float (of int if truncate)
        (low, high).

    Raises
    ------
    ValueError
        If low > high after the clamping, i.e. low > d - 1 or high < 0 (a very
        long $L_0$ or small base, or a very short $L_0$). Every pair turning more
        than `beta_fast` times does not raise on its own (low between d/2 - 1 and
        d - 1): the ramp then lies past the last pair and every pair is kept, as
        in Hugging Face.

    Notes
    -----
    low = $c(\beta_{fast})$, high = $c(\beta_{slow})$ (`yarn_correction_dim`); with
    `truncate` the floor of low and the ceiling of high. Then low >= 0 and
    high <= d - 1 (d - 1, as in HF and the YaRN repo).
    """
    d, base = checked_even("d", d), checked_real("base", base, gt=1)
    beta_slow = checked_real("beta_slow", beta_slow, gt=0)
    beta_fast = checked_real("beta_fast", beta_fast, gt=0)
    if not beta_fast >= beta_slow:  # equal is a step, as in Kimi K2's config
        raise ValueError(
            f"beta_fast must be >= beta_slow, got beta_fast={beta_fast!r}, "
            f"beta_slow={beta_slow!r}"
        )
    L0 = original_max_position_embeddings
    low = yarn_correction_dim(beta_fast, d, base, L0)
    high = yarn_correction_dim(beta_slow, d, base, L0)
    if checked_bool("truncate", truncate):
        low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, d - 1)
    else:
        low, high = max(low, 0.0), min(high, float(d - 1))
    if low > high:  # every pair turns > beta_fast times in L0, or none beta_slow
        raise ValueError(
            f"original_max_position_embeddings must leave a non-empty ramp, got {L0!r}"
            f" (low={low} > high={high} with d={d}, base={base!r}, "
            f"beta_fast={beta_fast!r}, beta_slow={beta_slow!r})"
        )
    return low, high


def yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    r"""YaRN's magnitude factor g for the scale s (HF's `get_mscale`).

    Parameters
    ----------
    scale : float
        The factor s > 0.
    mscale : float, default 1.0
        $\mu \ge 0$, so $g \ge 1$.

    Returns
    -------
    float
        $g(s, \mu)$.

    Notes
    -----
    $g(s, \mu) = 0.1\, \mu \ln s + 1$ for $s > 1$, else 1; YaRN's $\sqrt{1/t}$
    for its softmax temperature t.
    """
    scale = checked_real("scale", scale, gt=0)
    mscale = checked_real("mscale", mscale, ge=0)
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def _yarn_ramp(low: float, high: float, n_pairs: int) -> np.ndarray:
    """0 below low (keep theta), 1 above high (theta / s), linear in between."""
    if low == high:
        high += 0.001  # avoid dividing by zero, as HF does
    return np.clip((np.arange(n_pairs, dtype=np.float64) - low) / (high - low), 0, 1)


def _yarn_attention_factor(factor, mscale, mscale_all_dim, attention_factor):
    if mscale is not None:
        mscale = checked_real("mscale", mscale, ge=0)
    if mscale_all_dim is not None:
        mscale_all_dim = checked_real("mscale_all_dim", mscale_all_dim, ge=0)
    if attention_factor is not None:
        return checked_real("attention_factor", attention_factor, gt=0)
    if mscale and mscale_all_dim:  # truthiness as in HF: 0 means unset
        return yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim)
    return yarn_mscale(factor)


def yarn(
    d,
    base=10000.0,
    *,
    factor,
    original_max_position_embeddings,
    beta_fast=32.0,
    beta_slow=1.0,
    mscale=None,
    mscale_all_dim=None,
    attention_factor=None,
    truncate=True,
):
    r"""YaRN: keep fast pairs, interpolate slow pairs, ramp between (HF `"yarn"`).

    Parameters
    ----------
    d : int
        Rotary dimension (positive, even).
    base : float, default 10000.0
        RoPE base b > 1.
    factor : float
        Context extension s >= 1.
    original_max_position_embeddings : int
        $L_0$, the trained context length.
    beta_fast : float, default 32.0
        Rotations within $L_0$ above which a pair is kept.
    beta_slow : float, default 1.0
        Rotations within $L_0$ below which a pair is interpolated;
        beta_fast >= beta_slow > 0 (equal, as in Kimi K2: a ramp at most one
        pair wide, as in Hugging Face).
    mscale : float, optional
        DeepSeek-style magnitude $\mu \ge 0$; used only when `mscale_all_dim` is
        set too (both non-zero).
    mscale_all_dim : float, optional
        The second DeepSeek magnitude, as above. Its share of the scale is not in
        the returned factor: DeepSeek's attention layer (and HF's
        `DeepseekV3Attention`) multiplies the softmax scale by
        `yarn_mscale(factor, mscale_all_dim) ** 2`; do the same.
    attention_factor : float, optional
        Explicit value > 0, overriding the rule below.
    truncate : bool, default True
        Round the bounds outwards to integers (as HF does by default).

    Returns
    -------
    inv_freq : numpy.ndarray of shape (d/2,)
        float64 frequencies $\theta'_i$.
    attention_factor : float
        Multiplies cos and sin (logits scale by its square).

    Raises
    ------
    ValueError
        As `yarn_ramp_bounds`: no pair left to ramp between low and high.

    Notes
    -----
    With (low, high) from `yarn_ramp_bounds`,

    $$\begin{aligned}
    \rho_i &= \mathrm{clip}\Bigl(\frac{i - \text{low}}{\text{high} - \text{low}},
    0, 1\Bigr), \\
    \theta'_i &= (1 - \rho_i)\,\theta_i + \rho_i\,\theta_i / s .
    \end{aligned}$$

    Pairs with more than $\beta_{fast}$ rotations in $L_0$ keep $\theta_i$; fewer
    than $\beta_{slow}$ get $\theta_i/s$, unless the ramp collapses to one index
    (low = high: pairs up to it keep $\theta_i$). `attention_factor`: the
    explicit value, else $g(s, \text{mscale}) / g(s, \text{mscale\_all\_dim})$
    when both are non-zero, else $g(s, 1) = 0.1 \ln s + 1$ (`yarn_mscale`).
    """
    d, base = checked_even("d", d), checked_real("base", base, gt=1)
    factor = checked_real("factor", factor, ge=1)
    low, high = yarn_ramp_bounds(
        d,
        base,
        original_max_position_embeddings=original_max_position_embeddings,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    theta = rope_inv_freq(d, base)  # (d/2,)
    ramp = _yarn_ramp(low, high, d // 2)  # (d/2,)
    scaled = theta * (1 - ramp) + (theta / factor) * ramp
    return scaled, _yarn_attention_factor(
        factor, mscale, mscale_all_dim, attention_factor
    )


def _pair_factors(values, name: str, d: int) -> np.ndarray:
    """A config's per-pair list as float64, shape (d/2,), every entry finite > 0."""
    array = checked_array(name, values, floating=False).astype(np.float64)
    if array.shape != (d // 2,):
        raise ValueError(f"{name} must have length d/2={d // 2}, got {array.shape}")
    if not np.all(np.isfinite(array) & (array > 0)):  # a config list, so scanned
        raise ValueError(f"{name} must be all finite and > 0, got {values!r}")
    return array


def longrope(
    d,
    base=10000.0,
    *,
    short_factor,
    long_factor,
    original_max_position_embeddings,
    factor=None,
    max_position_embeddings=None,
    seq_len=None,
    attention_factor=None,
    short_mscale=None,
    long_mscale=None,
):
    r"""LongRoPE / Phi-3: searched per-pair rescale factors (HF `"longrope"`).

    Parameters
    ----------
    d : int
        Rotary dimension (positive, even).
    base : float, default 10000.0
        RoPE base b > 1.
    short_factor : sequence of float, length d/2
        Per-pair divisors $f_i > 0$ for short sequences.
    long_factor : sequence of float, length d/2
        Per-pair divisors $f_i > 0$ for long sequences.
    original_max_position_embeddings : int
        $L_0 > 1$, the trained context length.
    factor : float, optional
        s >= 1; None means `max_position_embeddings` / $L_0$.
    max_position_embeddings : int, optional
        Extended length, used only when `factor` is None.
    seq_len : int, optional
        Current length; `long_factor` is used when seq_len > $L_0$.
    attention_factor : float, optional
        Explicit value, overriding the rule below.
    short_mscale : float, optional
        Phi-3.5-MoE's factor on cos and sin at lengths up to $L_0$, in place of
        the rule below (not with `attention_factor`).
    long_mscale : float, optional
        Phi-3.5-MoE's factor on cos and sin past $L_0$, switched with the factor
        lists as Microsoft's and vLLM's code do (not with `attention_factor`).
        Either mscale, if absent, takes the rule below.

    Returns
    -------
    inv_freq : numpy.ndarray of shape (d/2,)
        float64 frequencies $\theta'_i$.
    attention_factor : float
        Multiplies cos and sin (logits scale by its square).

    Raises
    ------
    ValueError
        `factor` and `max_position_embeddings` both None, or, with `factor`
        None, `max_position_embeddings` below $L_0$; a factor list not of
        length d/2 or not positive; `attention_factor` given with an mscale.

    Notes
    -----
    $\theta'_i = \theta_i / f_i$ with f = `long_factor` if seq_len > $L_0$, else
    `short_factor`. s = `factor`, or `max_position_embeddings` / $L_0$ when
    `factor` is None. `attention_factor`: the explicit value (or the mscale of
    the length), else $\sqrt{1 + \ln s / \ln L_0}$ for s > 1, else 1. Hugging
    Face's `PhimoeRotaryEmbedding` (transformers 5.24) switches the mscale at
    $L_0$ but keeps the short factors past it. Keys cached before a
    sequence passed $L_0$ were rotated with the short factors: Hugging Face's
    Phi-3 `generate` drops its KV cache at the first step past $L_0$ and encodes
    the whole sequence again with the long ones; a port that keeps its cache
    does not give the same logits from there on.
    """
    d, base = checked_even("d", d), checked_real("base", base, gt=1)
    L0 = checked_int(
        "original_max_position_embeddings", original_max_position_embeddings, 2
    )
    short = _pair_factors(short_factor, "short_factor", d)
    long = _pair_factors(long_factor, "long_factor", d)
    is_long = seq_len is not None and checked_int("seq_len", seq_len) > L0
    scale = _longrope_scale(factor, max_position_embeddings, L0)
    if attention_factor is not None:
        attention_factor = checked_real("attention_factor", attention_factor, gt=0)
    given = {"short_mscale": short_mscale, "long_mscale": long_mscale}
    mscales = {k: checked_real(k, v, gt=0) for k, v in given.items() if v is not None}
    if mscales and attention_factor is not None:
        raise ValueError(
            f"attention_factor={attention_factor!r} is set with"
            f" {' and '.join(mscales)}: give one or the other"
        )
    if attention_factor is None:
        attention_factor = mscales.get(
            "long_mscale" if is_long else "short_mscale",
            math.sqrt(1 + math.log(scale) / math.log(L0)),
        )
    return rope_inv_freq(d, base) / (long if is_long else short), attention_factor


def _longrope_scale(factor, max_position_embeddings, L0) -> float:
    if max_position_embeddings is not None:  # checked even where factor wins
        length = checked_int("max_position_embeddings", max_position_embeddings)
    if factor is not None:
        return checked_real("factor", factor, ge=1)
    if max_position_embeddings is None:
        raise ValueError("factor must be set when max_position_embeddings is not")
    if length < L0:
        raise ValueError(
            f"max_position_embeddings must be >= original_max_position_embeddings={L0}"
            f" when factor is None, got {length!r}"
        )
    return length / L0


def llama3(
    d,
    base=10000.0,
    *,
    factor,
    low_freq_factor,
    high_freq_factor,
    original_max_position_embeddings,
):
    r"""Llama 3.1 scaling by wavelength band (Meta `apply_scaling`, HF `"llama3"`).

    Parameters
    ----------
    d : int
        Rotary dimension (positive, even).
    base : float, default 10000.0
        RoPE base b > 1.
    factor : float
        s >= 1 (Meta: 8; Llama-3.2 1B/3B: 32).
    low_freq_factor : float
        $0 <$ low $\le$ high (Meta: 1).
    high_freq_factor : float
        high (Meta: 4; equal to low in Llama 4 Scout's config: no blend).
    original_max_position_embeddings : int
        $L_0$, the trained context length (Meta: 8192).

    Returns
    -------
    inv_freq : numpy.ndarray of shape (d/2,)
        float64 frequencies $\theta'_i$.
    attention_factor : float
        Always 1.0 for this method.

    Notes
    -----
    $\lambda_{hi} = L_0/\text{high}$, $\lambda_{lo} = L_0/\text{low}$. A pair with
    $\lambda_i < \lambda_{hi}$ keeps $\theta_i$; $\lambda_i > \lambda_{lo}$ gets
    $\theta_i/s$; otherwise (boundaries included)
    $\sigma = (L_0/\lambda_i - \text{low})/(\text{high} - \text{low})$ and
    $\theta'_i = (1 - \sigma)\,\theta_i/s + \sigma\,\theta_i$. Attention factor 1.
    With low = high there is no band: $\lambda_i \ge L_0/\text{low}$ gets
    $\theta_i/s$, the others keep $\theta_i$: HF's numbers, but for a pair exactly
    at the boundary, where HF's band formula divides 0 by 0 (NaN) and Meta's code
    asserts low $\ne$ high.
    """
    d, base = checked_even("d", d), checked_real("base", base, gt=1)
    factor = checked_real("factor", factor, ge=1)
    L0 = checked_int(
        "original_max_position_embeddings", original_max_position_embeddings
    )
    low = checked_real("low_freq_factor", low_freq_factor, gt=0)
    high = checked_real("high_freq_factor", high_freq_factor, gt=0)
    if not low <= high:
        raise ValueError(
            f"low_freq_factor must be <= high_freq_factor={high}, got {low!r}"
        )
    theta = rope_inv_freq(d, base)  # (d/2,)
    wavelength = wavelengths(theta)  # (d/2,)
    if low == high:  # no band to blend across (Llama 4 Scout)
        return np.where(wavelength < L0 / high, theta, theta / factor), 1.0
    sigma = (L0 / wavelength - low) / (high - low)
    blended = (1 - sigma) * theta / factor + sigma * theta
    is_slow = wavelength > L0 / low
    is_fast = wavelength < L0 / high
    return np.where(is_fast, theta, np.where(is_slow, theta / factor, blended)), 1.0


def proportional(d, base=10000.0, *, factor=1.0, partial_rotary_factor=1.0):
    r"""Gemma 4's partial RoPE (HF `"proportional"`): the head's own exponents on
    the pairs that rotate, frequency 0 on the others.

    Parameters
    ----------
    d : int
        Head width (positive, even), not the rotary width: every one of the d/2
        pairs gets a frequency, 0 for the pairs that do not rotate. For Gemma
        4's full-attention layers, their own head width `global_head_dim`
        (`config.per_layer_config[i].head_dim`, 512), not the config's
        `head_dim` (256, the sliding layers').
    base : float, default 10000.0
        RoPE base b > 1.
    factor : float, default 1.0
        s >= 1, dividing every frequency (as `linear`).
    partial_rotary_factor : float, default 1.0
        p in [0, 1], the share of the head that rotates (Gemma 4's global
        layers: 0.25; 1 gives `linear`).

    Returns
    -------
    inv_freq : numpy.ndarray of shape (d/2,)
        float64 frequencies $\theta'_i$, zero from pair r on.
    attention_factor : float
        Always 1.0 for this method.

    Notes
    -----
    $r = \lfloor p d / 2 \rfloor$ pairs rotate, computed as `int(p * d // 2)` in
    floating point as transformers does (one fewer where $pd$ rounds below an
    even integer: p = 0.58, d = 100 gives 28), with $\theta'_i = b^{-2i/d}/s$ for
    $i < r$ and $\theta'_i = 0$ (angle 0, no rotation) for $r \le i < d/2$. The
    exponent is over the head width d; GPT-NeoX's partial RoPE computes
    $b^{-2i/(pd)}$ over the rotary width and rotates only the first $pd$
    features. Gemma 4 applies it in the half layout, pair i being
    $(x_i, x_{i+d/2})$, so the still features are the last $d/2 - r$ of each half:
    pass `layout="half"` to `rope.apply_rope` (whose default is interleaved;
    `rope.RotaryEmbedding`'s is half). Attention factor 1.
    """
    theta, _ = linear(d, base, factor=factor)  # (d/2,), the head's own exponents
    share = checked_real("partial_rotary_factor", partial_rotary_factor, ge=0, le=1)
    theta[int(share * d // 2) :] = 0.0  # transformers' own expression, float floor
    return theta, 1.0


def default(d: int, base: float = 10000.0):
    r"""Plain RoPE, no scaling (HF `"default"`).

    Parameters
    ----------
    d : int
        Rotary dimension (positive, even).
    base : float, default 10000.0
        RoPE base b > 1.

    Returns
    -------
    inv_freq : numpy.ndarray of shape (d/2,)
        float64 frequencies $\theta_i$.
    attention_factor : float
        Always 1.0.

    Notes
    -----
    $\theta_i = b^{-2i/d}$ for $i = 0, \dots, d/2 - 1$ (`rope.inv_freq`), attention
    factor 1.
    """
    d, base = checked_even("d", d), checked_real("base", base, gt=1)
    return rope_inv_freq(d, base), 1.0


ROPE_TYPES = {  # rope_type -> method, like transformers' ROPE_INIT_FUNCTIONS
    "default": default,
    "linear": linear,
    "dynamic": dynamic_ntk,
    "yarn": yarn,
    "longrope": longrope,
    "llama3": llama3,
    "proportional": proportional,
    "ntk": ntk,  # static NTK-aware: not a transformers rope_type
}
_FROM_CALLER = ("max_position_embeddings", "seq_len")  # from the model, not the dict
NOT_FREQUENCIES = (  # rope_scaling keys of transformers' configs about other things
    "mrope_section",  # M-RoPE: which axis each pair follows
    "mrope_interleaved",
    "interleaved",  # Qwen3-Omni's name for mrope_interleaved
    "llama_4_scaling_beta",  # Ministral 3: a query scale by position
    "finetuned",  # NousResearch's YaRN models: used by jquesnelle/yarn's dynamic YaRN
)


def from_rope_scaling(
    d,
    base,
    rope_scaling,
    *,
    max_position_embeddings=None,
    original_max_position_embeddings=None,
    seq_len=None,
):
    r"""`(inv_freq, attention_factor)` for a model config's `rope_scaling` dict.

    Parameters
    ----------
    d : int
        Head width (`head_dim`) when the dict holds `partial_rotary_factor` p
        (transformers 5 keeps it there): the method then gets the rotary width
        `int(d * p)`, as transformers computes it, which must be even. Without
        that key, the rotary width itself (for a transformers 4 config whose
        `partial_rotary_factor` or `rotary_pct` is a top-level field, pass
        `int(head_dim * partial_rotary_factor)`). `"proportional"` always takes
        the head width and reads p itself.
    base : float
        RoPE base (`rope_theta`) of the model.
    rope_scaling : dict or None
        A config's `rope_scaling`, or its `rope_parameters` (transformers 5).
        Keys: `rope_type` (or the legacy `type`, which `rope_type` overrides as
        in transformers; default `"default"`, and Qwen2-VL's `"mrope"`, under
        either key, means it), one of the keys of `ROPE_TYPES` (transformers'
        names, plus `"ntk"` for static NTK-aware scaling; not the `"axial"` of
        transformers' vision configs: for Qwen2-VL-style ones, half layout, the
        2-D rotation is `mrope.axial_rope_2d`), plus the keyword arguments of
        that method (`factor`, `original_max_position_embeddings`, `beta_fast`,
        `low_freq_factor`, `short_factor`, `short_mscale`, ...). A key set to
        None counts as absent (but a `"yarn"` `truncate` of None means False, as
        transformers reads it); a `"yarn"` whose `factor` is None or absent
        takes `max_position_embeddings / L0` (transformers' rule for None; it
        requires the key); `rope_theta`, if present, must equal `base`;
        `partial_rotary_factor`, if present, must be in
        (0, 1] (`[0, 1]` for `"proportional"`) and sets the rotary width (see
        `d`); `max_position_embeddings` (Ministral 3 copies it there) stands in
        for the argument of that name, and must equal it if both are given;
        `mrope_section`, `mrope_interleaved` and `interleaved` (M-RoPE's axes,
        see `posenc_docs.mrope`), `llama_4_scaling_beta` (a query scale by
        position, not a frequency) and `finetuned` (in NousResearch's YaRN
        configs; only the reference code's dynamic YaRN reads it) are ignored,
        as transformers ignores them. Ministral 3 multiplies its rotated
        queries at position m by $1 + \beta \ln(1 + \lfloor m / L_0 \rfloor)$,
        which is `temperature.llama4_attention_scale(m - 1, floor_scale=L0,
        attn_scale=beta)` (Llama 4's floor is of (m + 1) / `floor_scale`). A dict
        of one dict per layer type (Gemma 3's and Gemma 4's) is refused: pass the
        one for the layer. None means no scaling.
    max_position_embeddings : int, optional
        The config's own length: `"dynamic"` needs it, `"longrope"` uses it
        when `factor` is absent, and it stands in for a missing
        `original_max_position_embeddings` (as in transformers).
    original_max_position_embeddings : int, optional
        The config's own top-level field of that name (Phi-3 keeps its
        pre-training length there, outside `rope_scaling`). For `"yarn"`,
        `"longrope"` and `"llama3"` it takes priority over the dict's, as in
        transformers.
    seq_len : int, optional
        Length, for `"dynamic"` and `"longrope"`; ignored by the others. A
        length counts positions: the largest position + 1 (transformers'
        `max(position_ids) + 1`), not the number of new tokens of a decoding
        step. For `"longrope"`, the current one; for `"dynamic"`, the longest
        seen so far, as transformers keeps it (reset only below $L_0$: see
        `dynamic_ntk`).

    Returns
    -------
    inv_freq : numpy.ndarray of shape (r/2,)
        r the rotary width (see `d`); for `"proportional"`, (d/2,).
    attention_factor : float
        The method's factor on cos and sin (see the module's docstring).

    Raises
    ------
    TypeError
        `rope_scaling` is neither a dict nor None, or `rope_type` or a value has
        the wrong type.
    ValueError
        Unknown `rope_type`, keys the method does not take, or missing keys; a
        `rope_theta` other than `base`; a `partial_rotary_factor` outside (0, 1]
        ([0, 1] for `"proportional"`), or one that makes an odd rotary width;
        one dict per layer type (pass one of them); a `max_position_embeddings`
        in the dict other than the argument; and the method's own errors (about
        the rotary width, when the dict holds `partial_rotary_factor`).

    Notes
    -----
    Looks the method up in `ROPE_TYPES` and calls it with the dict's keys as
    keyword arguments; the numbers are those of the method's own function.
    """
    base = checked_real("base", base, gt=1)
    if max_position_embeddings is not None:
        max_position_embeddings = checked_int(
            "max_position_embeddings", max_position_embeddings
        )
    kind, params = _rope_scaling_items(rope_scaling, base)
    width = _rotary_width(d, kind, params)
    max_position_embeddings = _config_length(params, max_position_embeddings)
    if original_max_position_embeddings is not None:
        original_max_position_embeddings = checked_int(
            "original_max_position_embeddings", original_max_position_embeddings
        )
    if seq_len is not None:  # checked even for a method that does not read it
        seq_len = checked_int("seq_len", seq_len)
    method = ROPE_TYPES[kind]
    keyword = {
        name: p
        for name, p in inspect.signature(method).parameters.items()
        if p.kind is p.KEYWORD_ONLY
    }
    if "original_max_position_embeddings" in keyword:
        _set_pretraining_length(
            params, original_max_position_embeddings, max_position_embeddings
        )
    if kind == "yarn" and "factor" not in params and max_position_embeddings:
        params["factor"] = _yarn_factor(params, max_position_embeddings)
    given = {"max_position_embeddings": max_position_embeddings, "seq_len": seq_len}
    extra = {k: v for k, v in given.items() if k in keyword and v is not None}
    _check_rope_scaling_keys(kind, params, extra, keyword)
    return _called(method, width, d, base, {**params, **extra})


def _called(method, width: int, d, base: float, kwargs: dict):
    """`method(width, base, **kwargs)`; an error of it about its d says which width
    that was when it is not d (partial_rotary_factor's `int(d * p)`)."""
    try:
        return method(width, base, **kwargs)
    except ValueError as error:
        if width == d or not re.search(r"\bd\b", str(error)):
            raise
        raise ValueError(
            f"{error} (the method's d is the rotary width "
            f"int(d * partial_rotary_factor) = {width} for d = {d})"
        ) from error


def _yarn_factor(params: dict, max_position_embeddings: int) -> float:
    """A YaRN `factor` of None (or absent), as transformers takes a None: the
    model's length over the pre-training length L0 (put into `params` by
    _set_pretraining_length)."""
    L0 = checked_int(
        "original_max_position_embeddings", params["original_max_position_embeddings"]
    )
    if max_position_embeddings < L0:
        raise ValueError(
            f"a yarn rope_scaling without factor takes max_position_embeddings / "
            f"original_max_position_embeddings, which must be >= 1, got "
            f"{max_position_embeddings} / {L0}"
        )
    return max_position_embeddings / L0


def _config_length(params: dict, max_position_embeddings):
    """The model's length: the argument, or the dict's copy of it (taken out of
    the method's keyword arguments); both must agree."""
    if (copy := params.pop("max_position_embeddings", None)) is None:
        return max_position_embeddings
    copy = checked_int("rope_scaling's max_position_embeddings", copy)
    if max_position_embeddings not in (None, copy):
        raise ValueError(
            f"rope_scaling's max_position_embeddings={copy} is not "
            f"max_position_embeddings={max_position_embeddings}"
        )
    return copy


def _set_pretraining_length(params: dict, top_level, max_position_embeddings):
    """Put L0 into a method's keyword arguments as transformers does: the config's
    top-level `original_max_position_embeddings`, else the dict's own, else
    `max_position_embeddings`."""
    if top_level is not None:
        params["original_max_position_embeddings"] = top_level
    elif max_position_embeddings:
        params.setdefault("original_max_position_embeddings", max_position_embeddings)


def _rope_scaling_items(rope_scaling, base) -> tuple[str, dict]:
    """(rope_type, the other keys with None values dropped) of a rope_scaling dict."""
    if rope_scaling is None:
        return "default", {}
    if not isinstance(rope_scaling, Mapping):
        raise TypeError(f"rope_scaling must be a dict or None, got {rope_scaling!r}")
    params = {k: v for k, v in rope_scaling.items() if v is not None}
    if layers := [k for k, v in params.items() if isinstance(v, Mapping)]:
        raise ValueError(
            f"rope_scaling holds one dict per layer type {layers}: pass one of them"
        )
    legacy = params.pop("type", "default")  # rope_type wins, as in transformers
    kind = params.pop("rope_type", legacy)
    if kind == "mrope":  # Qwen2-VL's, under either key: transformers reads default
        kind = "default"
    for key in NOT_FREQUENCIES:
        params.pop(key, None)
    kind = checked_choice("rope_scaling's rope_type", kind, ROPE_TYPES)
    if kind == "yarn" and rope_scaling.get("truncate", True) is None:
        params["truncate"] = False  # transformers: `if truncate:` on get("truncate")
    theta = checked_real("rope_scaling's rope_theta", params.pop("rope_theta", base))
    if theta != base:
        raise ValueError(f"rope_scaling's rope_theta={theta!r} is not base={base!r}")
    return kind, params


def _rotary_width(d, kind: str, params: dict) -> int:
    """The width the method rotates: `int(d * partial_rotary_factor)` if the dict
    has that key (taken out of it), else d; `"proportional"` keeps both."""
    d = checked_even("d", d)
    if kind == "proportional" or "partial_rotary_factor" not in params:
        return d
    share = params.pop("partial_rotary_factor")
    share = checked_real("rope_scaling's partial_rotary_factor", share, gt=0, le=1)
    if (width := int(d * share)) < 2 or width % 2:
        raise ValueError(
            f"the rotary width int(d * partial_rotary_factor) = int({d} * {share!r})"
            f" = {width} must be even and >= 2 (d is the head width here)"
        )
    return width


def _check_rope_scaling_keys(kind, params: dict, extra: dict, keyword: dict) -> None:
    config_keys = [k for k in keyword if k not in _FROM_CALLER]
    unknown = sorted(set(params) - set(config_keys), key=str)
    if unknown:
        raise ValueError(
            f"rope_scaling has keys {unknown} that rope_type {kind!r} does not take "
            f"(it takes {sorted(config_keys)})"
        )
    required = [k for k, p in keyword.items() if p.default is p.empty]
    missing = [k for k in required if k not in params and k not in extra]
    for name in missing:
        if name in _FROM_CALLER:
            raise ValueError(f"{name} must be given for rope_type {kind!r}")
    if missing:
        raise ValueError(f"rope_scaling of rope_type {kind!r} is missing {missing}")
