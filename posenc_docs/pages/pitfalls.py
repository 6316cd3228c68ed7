"""Eight ways positional-encoding code goes quietly wrong, each measured.

Every function here runs a small wrong-versus-right experiment on random data and
returns the numbers; the site's Pitfalls page prints them. Nothing raises, because
none of these bugs raises in real code either: the shapes are right, the model
runs, and only the numbers are off.
"""

# --8<-- [start:setup]
import math
from functools import lru_cache

import numpy as np
import torch

from posenc_docs import alibi, partial_rotary, rope, scaling, temperature, windows
from posenc_docs._checks import checked_choice

# --8<-- [end:setup]


# --8<-- [start:layout_mismatch]
@lru_cache(maxsize=8)
def layout_mismatch(d: int = 64, n_tokens: int = 32, seed: int = 0) -> dict:
    # --8<-- [end:layout_mismatch]
    """Scores of Meta-layout (interleaved) q/k weights under half-split RoPE.

    Returns
    -------
    dict
        ``reference``: largest |score| of the checkpoint run as trained
        (interleaved); ``unpermuted`` and ``permuted``: largest
        |score - reference| when the same weights run through half-split RoPE
        without and with the per-head row permutation of W_q and W_k.

    Notes
    -----
    Half-split RoPE pairs rows ``(i, i + d/2)``; the checkpoint was trained with
    pairs ``(2i, 2i+1)``. Only permuting the rows of W_q and W_k makes the
    same two features turn together again; W_v and W_o are untouched.
    """
    # --8<-- [start:layout_mismatch-body]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n_tokens, d))  # (T, hidden), hidden = d here
    w_q, w_k = rng.standard_normal((2, d, d)) / math.sqrt(d)  # (d_out, hidden)
    positions = np.arange(n_tokens)

    def scores(wq, wk, layout):
        q = rope.apply_rope(x @ wq.T, positions, layout=layout)  # (T, d)
        k = rope.apply_rope(x @ wk.T, positions, layout=layout)
        return q @ k.T  # (T, T)

    reference = scores(w_q, w_k, "interleaved")
    perm = rope.interleaved_to_half_permutation(d)
    w_q2, w_k2 = (rope.permute_qk_weight(w, 1, perm) for w in (w_q, w_k))
    return {
        "reference": float(np.abs(reference).max()),
        "unpermuted": float(np.abs(scores(w_q, w_k, "half") - reference).max()),
        "permuted": float(np.abs(scores(w_q2, w_k2, "half") - reference).max()),
    }


# --8<-- [end:layout_mismatch-body]


# --8<-- [start:sinusoid_exponents]
EXPONENT_VARIANTS = ("paper", "dimension", "doubled")


def sinusoid_exponents(d: int, variant: str = "paper") -> np.ndarray:
    # --8<-- [end:sinusoid_exponents]
    r"""Exponent e_j in ``base ** -e_j`` for every dimension j, shape ``(d,)``.

    Notes
    -----
    ``"paper"``: $e_j = 2i/d$ with $i = \lfloor j/2 \rfloor$ the *pair* index, so
    the sine at $2i$ and the cosine at $2i+1$ share a frequency.
    ``"dimension"``: $e_j = j/d$, the dimension index where $2i$ belongs.
    ``"doubled"``: $e_j = 2j/d$, the paper's $2i$ with $i$ read as the dimension
    index (the 2 is counted twice).
    """
    # --8<-- [start:sinusoid_exponents-body]
    checked_choice("variant", variant, EXPONENT_VARIANTS)
    j = np.arange(d)
    if variant == "paper":
        return 2 * (j // 2) / d
    if variant == "dimension":
        return j / d
    return 2 * j / d  # "doubled"


# --8<-- [end:sinusoid_exponents-body]


# --8<-- [start:sinusoid_table]
def sinusoid_table(positions, d: int, variant: str = "paper", base=10000.0):
    # --8<-- [end:sinusoid_table]
    """Sinusoidal encodings with each variant's exponents, shape ``(..., d)``.

    Notes
    -----
    Sine on even dimensions, cosine on odd ones, dimension j turning at
    ``base ** -e_j`` radians per position (`sinusoid_exponents`).
    """
    # --8<-- [start:sinusoid_table-body]
    omega = base ** -sinusoid_exponents(d, variant)  # (d,)
    angle = np.multiply.outer(np.asarray(positions, dtype=np.float64), omega)
    is_even = np.arange(d) % 2 == 0
    return np.where(is_even, np.sin(angle), np.cos(angle))  # (..., d)


# --8<-- [end:sinusoid_table-body]


# --8<-- [start:offset_similarity_spread]
def variant_similarity(starts, k, d: int, variant: str = "paper") -> np.ndarray:
    """``PE(p) . PE(p + k)`` with each variant's exponents, for every start p."""
    starts = np.asarray(starts)
    a = sinusoid_table(starts, d, variant)  # (..., d)
    b = sinusoid_table(starts + k, d, variant)
    return np.einsum("...d,...d->...", a, b)


def offset_similarity_spread(offsets, d: int, variant: str = "paper", starts=2048):
    # --8<-- [end:offset_similarity_spread]
    r"""Largest spread, over the starts p, of ``PE(p) . PE(p + k)``, for any k.

    Parameters
    ----------
    offsets : int or sequence of int
        The offsets k.
    starts : int or sequence of int
        The starts p: ``0 .. starts-1`` for an int.

    Notes
    -----
    Zero (to rounding) for the paper's exponents: each pair adds $\cos(k\omega_i)$
    whatever p is. Any variant whose sine and cosine disagree on a frequency makes
    the similarity depend on where the pair sits, not only on the offset.
    """
    # --8<-- [start:offset_similarity_spread-body]
    p = np.arange(starts) if np.ndim(starts) == 0 else np.asarray(starts)
    k = np.atleast_1d(np.asarray(offsets))
    dots = variant_similarity(p[:, None], k[None, :], d, variant)  # (P, K)
    return float(np.ptp(dots, axis=0).max())


# --8<-- [end:offset_similarity_spread-body]


def frozen_dimensions(d: int, variant: str, length: int, base=10000.0) -> int:
    """How many dimensions turn less than 1 degree over ``length`` positions.

    Notes
    -----
    Such a dimension is a constant (about 0 for sine, 1 for cosine) for every
    sequence the model will see: a wasted feature.
    """
    omega = base ** -sinusoid_exponents(d, variant)  # (d,)
    return int(np.sum(omega * length < math.radians(1)))


# --8<-- [start:concatenated_encoding]
def concatenated_encoding(positions, d: int, base=10000.0) -> np.ndarray:
    # --8<-- [end:concatenated_encoding]
    r"""``[sin | cos]`` layout (tensor2tensor, fairseq, diffusers), ``(..., d)``.

    Notes
    -----
    The same d/2 angles $pos\,\omega_i$ as the paper, all sines first and then
    all cosines, instead of alternating sin, cos per pair.
    """
    # --8<-- [start:concatenated_encoding-body]
    omega = rope.inv_freq(d, base)  # (d/2,)
    angle = np.multiply.outer(np.asarray(positions, dtype=np.float64), omega)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=-1)


# --8<-- [end:concatenated_encoding-body]


# --8<-- [start:layout_equivalence]
def layout_equivalence(d: int = 64, n_positions: int = 128, seed: int = 0):
    # --8<-- [end:layout_equivalence]
    """Interleaved vs concatenated sin/cos: how far apart three things are.

    Returns
    -------
    dict
        ``vectors``: max |concatenated - interleaved[perm]|; ``dot_products``: max
        difference of the two position Gram matrices; ``first_layer``: max
        difference of ``(E + PE) W`` when the concatenated model uses
        ``E[:, perm]`` and ``W[perm]``.

    Notes
    -----
    The layouts differ by a fixed permutation of dimensions (``perm`` puts the
    even ones first). Dot products ignore a permutation, and a first linear layer
    whose rows are permuted the same way computes the same function.
    """
    # --8<-- [start:layout_equivalence-body]
    from posenc_docs.sinusoidal import encode

    rng = np.random.default_rng(seed)
    positions = np.arange(n_positions)
    inter, concat = encode(positions, d), concatenated_encoding(positions, d)
    perm = rope.interleaved_to_half_permutation(d)  # even dimensions first
    tokens = rng.standard_normal((n_positions, d))  # token embeddings E
    w = rng.standard_normal((d, d))  # first linear layer, x @ W
    out_inter = (tokens + inter) @ w
    out_concat = (tokens[:, perm] + concat) @ w[perm]
    return {
        "vectors": float(np.abs(concat - inter[:, perm]).max()),
        "dot_products": float(np.abs(concat @ concat.T - inter @ inter.T).max()),
        "first_layer": float(np.abs(out_concat - out_inter).max()),
    }


# --8<-- [end:layout_equivalence-body]


# --8<-- [start:prose_alibi_slopes]
def prose_alibi_slopes(n_heads: int) -> np.ndarray:
    # --8<-- [end:prose_alibi_slopes]
    """``2^(-8k/n)`` for k = 1..n: the paper's sentence applied to every n.

    Notes
    -----
    Section 3 of the ALiBi paper states this for n heads in general, but
    trained only power-of-two head counts. For other n the authors' code does
    something else (`posenc_docs.alibi.alibi_slopes`); checkpoints follow the code.
    """
    # --8<-- [start:prose_alibi_slopes-body]
    return 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)


# --8<-- [end:prose_alibi_slopes-body]


def alibi_slope_gap(n_heads: int) -> dict:
    """How far the prose formula is from the reference slopes for ``n_heads``.

    Notes
    -----
    ``heads_off``: heads whose slopes differ by more than 1e-9;
    ``max_ratio``: the largest ratio between the two slopes of one head.
    """
    prose, code = prose_alibi_slopes(n_heads), alibi.alibi_slopes(n_heads)
    ratio = np.maximum(prose / code, code / prose)
    return {
        "heads_off": int(np.sum(np.abs(prose - code) > 1e-9)),
        "max_ratio": ratio.max(),
    }


# --8<-- [start:rope_cos_error]
def rope_cos_error(start: int, dtype=torch.bfloat16, *, cache_dtype=None, d=128):
    # --8<-- [end:rope_cos_error]
    """Largest |cos error| of RoPE angles for positions ``start .. start+63``.

    Parameters
    ----------
    start : int
        First position of the window.
    dtype : torch.dtype
        Precision of the positions, inv_freq and their product (the angle).
    cache_dtype : torch.dtype, optional
        If given, the cos table is stored in this dtype afterwards.
    d : int
        Rotary dimension; base 10000.

    Notes
    -----
    Reference: the same cosines in float64. A bf16 number has 8 significant bits,
    so above 256 not every integer position exists (from 1024, only multiples
    of 8), and the rounded position, frequency and product put an angle near
    1000 radians off by several radians.
    """
    # --8<-- [start:rope_cos_error-body]
    theta = rope.inv_freq(d)  # (d/2,) float64
    positions = np.arange(start, start + 64)
    exact = np.cos(np.multiply.outer(positions, theta))  # (64, d/2)
    pos_t = torch.from_numpy(positions.astype(np.float64)).to(dtype)
    angle = pos_t[:, None] * torch.from_numpy(theta).to(dtype)  # rounded to dtype
    cos = angle.to(torch.float64).cos()
    if cache_dtype is not None:
        cos = cos.to(torch.float32).to(cache_dtype).to(torch.float64)
    return float(np.abs(cos.numpy() - exact).max())


# --8<-- [end:rope_cos_error-body]


def bf16_rounding_facts(start: int = 1000, d: int = 128) -> dict:
    """What bf16's 8 significant bits do to RoPE's positions and angles.

    Returns
    -------
    dict
        ``exact_up_to``: every integer from 0 to it is a bf16 number.
        ``eight_apart_from``: the first power of two from which bf16 numbers are
        8 apart (only multiples of 8 exist). ``angle_step``: the gap between bf16
        numbers near ``start``. ``first`` and ``last``: the window of
        `rope_cos_error`, positions ``start .. start+63``. ``max_angle_error``:
        the largest |angle - exact angle| in radians over that window and the d/2
        frequencies, with position, frequency and product in bf16 as there.
    """
    bf16, up = torch.bfloat16, torch.tensor(math.inf, dtype=torch.bfloat16)
    integers = torch.arange(4096.0, dtype=torch.float64)
    rounded = integers.to(bf16).to(torch.float64)
    powers = 2.0 ** torch.arange(16, dtype=bf16)  # 1 .. 32768, exact in bf16
    near = torch.tensor(float(start), dtype=bf16)
    theta, positions = rope.inv_freq(d), np.arange(start, start + 64)  # (d/2,), (64,)
    pos_t = torch.from_numpy(positions.astype(np.float64)).to(bf16)
    angles = pos_t[:, None] * torch.from_numpy(theta).to(bf16)  # (64, d/2), bf16
    exact = np.multiply.outer(positions, theta)
    return {
        "exact_up_to": int((rounded != integers).nonzero()[0]) - 1,
        "eight_apart_from": float(powers[torch.nextafter(powers, up) - powers == 8][0]),
        "angle_step": float(torch.nextafter(near, up) - near),
        "first": int(positions[0]),
        "last": int(positions[-1]),
        "max_angle_error": float(np.abs(angles.double().numpy() - exact).max()),
    }


# --8<-- [start:dynamic_ntk_cache_gap]
@lru_cache(maxsize=8)
def dynamic_ntk_cache_gap(d=64, original_len=256, total=1024, factor=4.0, seed=0):
    # --8<-- [end:dynamic_ntk_cache_gap]
    """Last query's logits with keys cached at their own base vs all re-rotated.

    Returns
    -------
    dict
        ``logits``: max |difference| of the ``q.k/sqrt(d)`` logits;
        ``weights``: total-variation distance of the two softmax rows (0..1).

    Notes
    -----
    Dynamic NTK recomputes the base from the current length L. With every key
    generated one token at a time (the worst case), a cache that stores *rotated*
    keys keeps key j at the base of length j+1, while the query (and an uncached
    recomputation) uses the base of length ``total``.
    """
    # --8<-- [start:dynamic_ntk_cache_gap-body]
    rng = np.random.default_rng(seed)
    q, keys = rng.standard_normal(d), rng.standard_normal((total, d))

    def inv_freq_at(length):
        kw = {"factor": factor, "max_position_embeddings": original_len}
        return scaling.dynamic_ntk(d, seq_len=length, **kw)[0]

    now = inv_freq_at(total)
    query = rope.apply_rope(q[None], [total - 1], inv_freq=now)[0]  # (d,)
    fresh = rope.apply_rope(keys, np.arange(total), inv_freq=now)  # (total, d)
    cached = np.stack(
        [
            rope.apply_rope(k[None], [j], inv_freq=inv_freq_at(j + 1))[0]
            for j, k in enumerate(keys)
        ]
    )
    logits = np.stack([fresh @ query, cached @ query]) / math.sqrt(d)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return {
        "logits": float(np.abs(logits[0] - logits[1]).max()),
        "weights": float(0.5 * np.abs(weights[0] - weights[1]).sum()),
    }


# --8<-- [end:dynamic_ntk_cache_gap-body]


# --8<-- [start:yarn_logit_scale]
def yarn_logit_scale(factor: float, recipe: str = "rope", d: int = 64) -> float:
    # --8<-- [end:yarn_logit_scale]
    """Measured ratio of attention logits with YaRN's magnitude to logits without.

    Parameters
    ----------
    factor : float
        Context extension s; the magnitude is g = 0.1 ln s + 1.
    recipe : {"rope", "twice", "deepseek"}
        ``"rope"``: g multiplies cos and sin (HF, the YaRN repo).
        ``"twice"``: that, plus g**2 in the softmax scale.
        ``"deepseek"``: cos/sin carry g(s, mscale)/g(s, mscale_all_dim), which is
        1 for equal mscales, and the softmax scale carries g(s, mscale_all_dim)**2.

    Notes
    -----
    The paper's temperature is $1/t = g^2$; the right answer is g**2.
    """
    # --8<-- [start:yarn_logit_scale-body]
    g = scaling.yarn_mscale(factor)
    rope_factor = {"rope": g, "twice": g, "deepseek": 1.0}[recipe]
    softmax_factor = {"rope": 1.0, "twice": g**2, "deepseek": g**2}[recipe]
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 1, 1, 8, d, generator=gen, dtype=torch.float64)
    plain = rope.RotaryEmbedding(d, max_len=8)
    scaled = rope.RotaryEmbedding(d, max_len=8, attention_factor=rope_factor)
    q0, k0 = plain(q, k)  # (1, 1, 8, d) each
    q1, k1 = scaled(q, k)
    base_logits = q0 @ k0.transpose(-1, -2)  # (1, 1, 8, 8)
    new_logits = q1 @ k1.transpose(-1, -2) * softmax_factor
    return float((new_logits / base_logits).median())


# --8<-- [end:yarn_logit_scale-body]


def t2t_inv_freq(d: int, base: float = 10000.0) -> np.ndarray:
    r"""Pair frequencies of tensor2tensor's and fairseq's ``[sin | cos]`` code, (d/2,).

    Notes
    -----
    ``log_timescale_increment = ln(base) / (d/2 - 1)``, so
    $\omega_i = base^{-i/(d/2-1)}$, $i = 0 \dots d/2-1$: the slowest pair turns at
    exactly $1/base$, not at the paper's $base^{-(d-2)/d}$.
    """
    half = d // 2
    return base ** (-np.arange(half) / (half - 1))


def t2t_wavelengths(d: int, base: float = 10000.0) -> np.ndarray:
    """Wavelengths 2*pi/omega_i of `t2t_inv_freq`, in positions, (d/2,)."""
    return 2 * np.pi / t2t_inv_freq(d, base)


# --8<-- [start:partial_rotary_mismatch]
@lru_cache(maxsize=8)
def partial_rotary_mismatch(d=96, rotary_dim=24, n_tokens=64, seed=0) -> dict:
    # --8<-- [end:partial_rotary_mismatch]
    """Logits of a partial-rotary head (GPT-NeoX-20B shape) under wrong recipes.

    Returns
    -------
    dict
        ``reference``: largest |logit| as trained (first ``rotary_dim`` dims
        rotated, frequencies ``b^(-2i/r)``); ``full``: largest |logit error|
        with RoPE over all d dims; ``head_width_freq``: the right dims rotated,
        but at ``b^(-2i/d)``, the first r/2 frequencies of a full-width head.

    Notes
    -----
    Logits are ``q.k / sqrt(d)`` for every pair of ``n_tokens`` random tokens.
    Both wrong recipes run without an error: the shapes all fit.
    """
    # --8<-- [start:partial_rotary_mismatch-body]
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, n_tokens, d))  # (T, d) each
    positions, r = np.arange(n_tokens), rotary_dim
    head_width = rope.inv_freq(d)[: r // 2]  # wrong: frequencies of width d

    def logits(rotate):
        return rotate(q) @ rotate(k).T / math.sqrt(d)  # (T, T)

    reference = logits(
        lambda x: partial_rotary.apply_partial_rope(x, positions, rotary_dim=r)
    )
    full = logits(lambda x: rope.apply_rope(x, positions, layout="half"))

    def head_width_rope(x):  # the right r dims, at the frequencies of width d
        rotated = rope.apply_rope(
            x[:, :r], positions, layout="half", inv_freq=head_width
        )
        return np.concatenate([rotated, x[:, r:]], axis=-1)

    wrong = logits(head_width_rope)
    return {
        "reference": float(np.abs(reference).max()),
        "full": float(np.abs(full - reference).max()),
        "head_width_freq": float(np.abs(wrong - reference).max()),
    }


# --8<-- [end:partial_rotary_mismatch-body]


# --8<-- [start:sink_cache_offsets]
def sink_cache_offsets(n_sink, window, step, *, d=128, base=10000.0, trained=4096):
    # --8<-- [end:sink_cache_offsets]
    """Largest query-key offset in a sink cache, and the rotary pairs it takes
    outside the angles they met in training, with absolute vs cache positions.

    Notes
    -----
    Training offsets run 0 .. L-1 (L the training length), so pair i met the arc
    [0, (L-1) theta_i], as in ``part1.phase_gap``; an offset m gives it
    ``m theta_i mod 2 pi``, which is new if it lands past that arc. A pair whose
    arc reaches 2 pi met every angle.
    """
    # --8<-- [start:sink_cache_offsets-body]
    tokens, in_cache = windows.sink_cache_positions(n_sink, window, step)
    theta = rope.inv_freq(d, base)  # (d/2,)
    arc = (trained - 1) * theta  # largest angle met: offsets 0 .. trained-1
    result = {}
    for name, positions in (("absolute", tokens), ("in_cache", in_cache)):
        offset = int(positions[-1] - positions[0])  # current token to first sink
        angle = np.mod(offset * theta, 2 * np.pi)
        unseen = (arc < 2 * np.pi) & (angle > arc)
        result[name] = {"offset": offset, "unseen_pairs": int(unseen.sum())}
    return result


# --8<-- [end:sink_cache_offsets-body]


# --8<-- [start:misread_no_rope_layers]
def misread_no_rope_layers(num_layers=48, interval=4):
    # --8<-- [end:misread_no_rope_layers]
    """Llama 4's ``no_rope_layers`` read as the name suggests, and as HF reads it.

    The flag of layer l is 1 when the layer *uses* RoPE. Reading 1 as "no RoPE"
    swaps the two kinds of layer.
    """
    # --8<-- [start:misread_no_rope_layers-body]
    nope = temperature.nope_layers(num_layers, no_rope_layer_interval=interval)
    flags = [int(layer not in nope) for layer in range(num_layers)]  # HF's default
    as_named = [layer for layer, flag in enumerate(flags) if flag == 1]
    return {"flags": flags, "nope_as_hf": nope, "nope_as_named": as_named}


# --8<-- [end:misread_no_rope_layers-body]
