"""Numbers behind Part II, pages 06, 07 and 09: real configs through the formulas.

Every function takes plain numbers or a ``models.ModelConfig`` and returns
numbers; pages call them from macros, examples print them. Notation as in
`posenc_docs.scaling`: d rotary dim, b base, L0 training length,
theta_i = b^(-2i/d), lambda_i = 2*pi/theta_i.
"""

# --8<-- [start:setup]
import math
from dataclasses import dataclass

import numpy as np

from posenc_docs import learned, rope, scaling
from posenc_docs._checks import checked_real
from posenc_docs.pages import part1
from posenc_docs.pages.models import MODELS, ModelConfig

# --8<-- [end:setup]


# --8<-- [start:turn_census]
@dataclass(frozen=True)
class TurnCensus:
    """Which rotary pairs complete a full turn within ``length`` positions."""

    n_pairs: int
    full_turn: int  # pairs 0 .. full_turn-1 have lambda_i < length
    boundary_pair: int  # first pair with lambda_i >= length (== full_turn)
    boundary_wavelength: float
    last_full_wavelength: float
    slowest_fraction: float  # share of the circle the slowest pair covers

    @property
    def unfinished(self) -> int:
        """Pairs that never complete a turn within ``length``."""
        return self.n_pairs - self.full_turn


def turn_census(d: int, base: float, length: float) -> TurnCensus:
    # --8<-- [end:turn_census]
    r"""Count the pairs whose wavelength fits inside the training length.

    Notes
    -----
    A pair with $\lambda_i < L$ turns fully within $L$ positions ($L/\lambda_i$
    turns, YaRN's r); a pair with $\lambda_i \ge L$ only sweeps the arc
    $[0, L\theta_i) \subset [0, 2\pi)$, so positions past $L$ give it angles it
    never saw. Arcs are measured by length, as in ``part1.angle_overshoot``.
    Wavelengths grow with i, so the first kind is a prefix.
    """
    # --8<-- [start:turn_census-body]
    checked_real("length", length, gt=0)
    wavelength = scaling.wavelengths(rope.inv_freq(d, base))  # (d/2,), increasing
    full = int(np.count_nonzero(wavelength < length))
    if full == len(wavelength):
        raise ValueError(f"every pair turns within length={length}; no boundary")
    return TurnCensus(
        n_pairs=len(wavelength),
        full_turn=full,
        boundary_pair=full,
        boundary_wavelength=float(wavelength[full]),
        last_full_wavelength=float(wavelength[full - 1]) if full else math.nan,
        slowest_fraction=float(length / wavelength[-1]),
    )


# --8<-- [end:turn_census-body]


# --8<-- [start:model_inv_freq]
def _rope_fields(model: ModelConfig) -> tuple[int, float]:
    """(rotary dim, base) of a RoPE model; ValueError for other schemes."""
    if model.scheme != "rope":
        raise ValueError(f"model {model.name!r} uses {model.scheme}, not rope")
    return model.rotary_dim, model.rope_theta


def model_inv_freq(model: ModelConfig, seq_len: int | None = None):
    # --8<-- [end:model_inv_freq]
    """``(inv_freq, attention_factor)`` of a RoPE model, scaling applied.

    The model's ``rope_scaling`` dict goes to ``scaling.from_rope_scaling``,
    which calls the matching method (``linear``, ``yarn``, ``longrope``,
    ``llama3``, ...); without one the frequencies are plain ``base^(-2i/d)`` and
    the factor is 1. ``seq_len`` matters only for LongRoPE (which list of factors).
    """
    # --8<-- [start:model_inv_freq-body]
    d, base = _rope_fields(model)
    return scaling.from_rope_scaling(
        d,
        base,
        model.rope_scaling,
        max_position_embeddings=model.max_position_embeddings,
        seq_len=seq_len,
    )


# --8<-- [end:model_inv_freq-body]


def model_scale_factors(model: ModelConfig, seq_len: int | None = None) -> np.ndarray:
    """Per-pair slow-down ``theta_i / theta'_i`` of a model (1 = unchanged)."""
    d, base = _rope_fields(model)
    scaled, _ = model_inv_freq(model, seq_len)
    return scaling.scale_per_pair(scaled, rope.inv_freq(d, base))


def band_counts(factors: np.ndarray, factor: float, rtol: float = 1e-9) -> tuple:
    """(unchanged, in between, fully divided by ``factor``, outside 1..``factor``)
    pair counts; the last are LongRoPE's searched factors beyond s (or below 1)."""
    factors = np.asarray(factors, dtype=np.float64)
    kept = np.isclose(factors, 1.0, rtol=rtol)
    divided = np.isclose(factors, factor, rtol=rtol)
    between = (factors > 1.0) & (factors < factor) & ~kept & ~divided
    outside = ~(kept | divided | between)
    return tuple(int(np.count_nonzero(m)) for m in (kept, between, divided, outside))


def tokens_truncated(model: ModelConfig, text_tokens: int) -> int:
    """Text tokens a BERT-style encoder drops from a ``text_tokens``-token text:
    its positions hold ``[CLS]``, ``[SEP]`` and the rest."""
    return max(text_tokens - (model.max_position_embeddings - 2), 0)


# --8<-- [start:context_ceiling]
@dataclass(frozen=True)
class Ceiling:
    """A model's context ceiling, with the config fields it comes from."""

    configured: int | None  # max_position_embeddings (None: no table)
    original: int | None  # L0: original_max_position_embeddings, if scaled
    factor: float | None  # rope_scaling factor (LongRoPE: max / original)
    product: int | None  # L0 x factor
    tokens: int | None  # the ceiling: see ``rule``
    rule: str


def context_ceiling(model: ModelConfig) -> Ceiling:
    # --8<-- [end:context_ceiling]
    """Read a model's ceiling from its config; for scaled RoPE also L0 x factor.

    Notes
    -----
    PI (HF ``linear``) keeps $L_0$ in ``max_position_embeddings``, and Qwen2.5's
    YaRN block is added without changing it, so for ``linear`` and ``yarn`` the
    ceiling is $L_0 s$. ``longrope`` and ``llama3`` configs state the extended
    length in ``max_position_embeddings``; for ``llama3`` $L_0 s$ is *not* it
    (s is the slow-down of the slowest pairs, not the length ratio).
    """
    # --8<-- [start:context_ceiling-body]
    params = model.rope_scaling or {}
    kind = params.get("rope_type")
    configured = model.max_position_embeddings
    original, factor = params.get("original_max_position_embeddings"), None
    if kind is not None:
        original = original or configured  # linear: L0 is max_position_embeddings
        factor = params.get("factor") or configured / original  # longrope
    product = None if kind is None else round(original * factor)
    if kind in ("linear", "yarn"):
        return Ceiling(configured, original, factor, product, product, "L0 x factor")
    rule = "max_position_embeddings" if configured else "no configured limit"
    return Ceiling(configured, original, factor, product, configured, rule)


# --8<-- [end:context_ceiling-body]


# --8<-- [start:pi_bounds]
def pi_bound_constant(base: float = 10000.0) -> float:
    # --8<-- [end:pi_bounds]
    r"""Denominator of PI's interpolation bound, $32 \ln b$ (294.73 at b = 1e4).

    Notes
    -----
    PI (Chen et al. 2023, eq. 7): $|a(\Delta) - a_{lin}(\Delta)| \le
    d \max_i |h_i| / (32 \ln b)$ between neighbouring integer offsets $\Delta$.
    """
    # --8<-- [start:pi_bounds-body]
    checked_real("base", base, gt=1)
    return 32 * math.log(base)


def paper_bound_ratio(base: float = 10000.0) -> float:
    # --8<-- [end:pi_bounds-body]
    r"""PI's "about 600 times": the bound ratio if $B(\Delta) = d$, i.e. $64 \ln b$."""
    # --8<-- [start:pi_bounds-body2]
    return 2 * pi_bound_constant(base)


def bound_ratio(offset, d: int, base: float = 10000.0):
    # --8<-- [end:pi_bounds-body2]
    r"""Extrapolation bound / interpolation bound at relative offset(s) ``offset``
    (a number or an array of any shape, as `rope.relative_upper_bound`).

    Notes
    -----
    PI eq. 8 (from RoFormer 3.4.3; the paper calls the offset $s$) bounds the
    extrapolated score at offset $\Delta = m - n$ by $2 \max_i |h_i| B(\Delta)$ with
    $$B(\Delta) = \sum_{j=1}^{d/2} |S_j|, \quad
    S_j = \sum_{i<j} e^{\mathrm{i} \Delta \theta_i},$$
    which is $d/2$ times RoFormer's relative upper bound $u(\Delta)$ (the mean of the
    $|S_j|$). Divided by PI's bound the ratio is
    $64 \ln(b) B(\Delta) / d = 32 \ln(b)\, u(\Delta)$; PI's "600x" is its value if
    $B(\Delta) = d$.
    """
    # --8<-- [start:pi_bounds-body3]
    return rope.relative_upper_bound(offset, d, base) * pi_bound_constant(base)


# --8<-- [end:pi_bounds-body3]


def offsets_below_claim(top: int, d: int = 128, base: float = 10000.0) -> np.ndarray:
    r"""The offsets 1 .. ``top`` where the bound ratio is below PI's "600x"
    (where $B(\Delta) < d$), ascending."""
    offsets = np.arange(1, top + 1)
    return offsets[bound_ratio(offsets, d, base) < paper_bound_ratio(base)]


# --8<-- [start:costs]
def position_parameters(model: ModelConfig) -> int:
    """Trainable numbers spent on position (learned table or T5 bucket biases)."""
    if model.scheme == "learned":
        return learned.parameter_count(model.max_position_embeddings, model.hidden_size)
    if model.scheme == "t5-bias":  # one (buckets x heads) table per stack
        stacks = 2 if model.extra.get("num_decoder_layers") else 1
        return stacks * model.extra["relative_attention_num_buckets"] * model.num_heads
    return 0


def position_ops_per_token(model: ModelConfig, seq_len: int) -> int:
    """Arithmetic a scheme adds per token: once (additive) or per layer (others)."""
    checked_real("seq_len", seq_len, gt=0)
    if model.scheme in ("sinusoidal", "learned"):
        return model.hidden_size  # one add per feature at the input
    if model.scheme == "rope":  # 2 mul + 1 add per rotated q and k feature
        kv_heads = model.extra.get("num_key_value_heads", model.num_heads)
        return 3 * (model.num_heads + kv_heads) * model.rotary_dim
    return model.num_heads * seq_len  # one bias add per (head, key)


def score_ops_per_token(model: ModelConfig, seq_len: int) -> int:
    # --8<-- [end:costs]
    """FLOPs of one layer's $QK^T$ row per token: 2 H L d_head (H L d_head MACs)."""
    # --8<-- [start:costs-body]
    checked_real("seq_len", seq_len, gt=0)
    return 2 * model.num_heads * seq_len * model.head_dim


# --8<-- [end:costs-body]


# --8<-- [start:tokens_for_words]
def tokens_for_words(words: float, words_per_token: float = 0.75) -> float:
    """Tokens a text of ``words`` words needs at ``words_per_token``."""
    checked_real("words", words, gt=0)
    checked_real("words_per_token", words_per_token, gt=0)
    return words / words_per_token


# --8<-- [end:tokens_for_words]


def rotary_pairs(model: ModelConfig) -> int:
    """Number of rotated pairs of a RoPE model: rotary_dim / 2."""
    return _rope_fields(model)[0] // 2


def turns_within(length: float, d: int, base: float = 10000.0, pair: int = 0):
    """How many turns pair ``pair`` makes in ``length`` positions (a fraction)."""
    return length / scaling.wavelengths(rope.inv_freq(d, base))[pair]


def longrope_log_ratio(model: ModelConfig) -> float:
    r"""$\ln s / \ln L_0$ of a scaled config: LongRoPE's attention factor is
    $\sqrt{1 + \ln s / \ln L_0}$."""
    ceiling = context_ceiling(model)
    return math.log(ceiling.factor) / math.log(ceiling.original)


def dynamic_slow_down(d, base, factor, original_len, length) -> float:
    """How much dynamic NTK (factor ``factor``) slows the slowest pair at ``length``
    tokens, with the frequencies transformers' ``"dynamic"`` picks there."""
    freq, _ = scaling.dynamic_ntk(
        d, base, factor=factor, max_position_embeddings=original_len, seq_len=length
    )
    return float(scaling.scale_per_pair(freq, rope.inv_freq(d, base))[-1])


def logit_factor(attention_factor: float) -> float:
    """What an attention factor on cos and sin does to the logits: it is on q and
    on k, so its square."""
    return attention_factor**2


def yarn_logit_factor(factor: float) -> float:
    """What YaRN's magnitude g does to the logits: g on q and on k, so g**2."""
    return logit_factor(scaling.yarn_mscale(factor))


def legacy_hf_yarn_factor(model: ModelConfig) -> float:
    """The YaRN factor transformers used for a while in 2025, until pull request
    #40320 (issue #38224): with ``original_max_position_embeddings`` in
    ``rope_scaling``, the ratio ``max_position_embeddings`` over it, whatever
    ``factor`` said."""
    original = model.rope_scaling["original_max_position_embeddings"]
    return model.max_position_embeddings / original


@dataclass(frozen=True)
class NtkOvershoot:
    """Static NTK-aware scaling of a model, read at ``factor`` x its length."""

    length: int  # s L0, the extended length
    pairs_past: int  # pairs that reach angles beyond their trained arc
    worst: float  # largest angle at s L0 over the largest seen in training


def ntk_overshoot(model: ModelConfig, factor: float) -> NtkOvershoot:
    r"""How far static NTK-aware scaling still leaves slow pairs past their arc.

    Notes
    -----
    Pair i is slowed by $s^{2i/(d-2)}$; a pair that never turned within $L_0$
    reaches $s / s^{2i/(d-2)}$ times its trained arc at $s L_0$ (the ratio of
    ``part1.angle_overshoot``), which is above 1 for every such pair but the
    slowest.
    """
    d, base = _rope_fields(model)
    length = round(factor * model.max_position_embeddings)
    args = (scaling.ntk(d, base, factor=factor)[0], rope.inv_freq(d, base))
    args += (model.max_position_embeddings, length)
    worst = float(part1.angle_overshoot(*args).max())
    return NtkOvershoot(length, part1.pairs_overshooting(*args), worst)


@dataclass(frozen=True)
class OverStretched:
    """Pairs slowed down by more than a factor: how many, the pair they start
    from (every later pair is one of them), their shortest wavelength, how many
    of them made at least one full turn within L0, and the last pair's stretch as a
    multiple of the factor."""

    pairs: int
    first_pair: int
    shortest_wavelength: float
    turned_in_training: int
    last_over_factor: float


def over_stretched(model: ModelConfig, factor: float, seq_len=None) -> OverStretched:
    """Pairs of a model slowed down by more than ``factor``; they must be the
    slowest pairs, a block at the end (LongRoPE's searched factors are)."""
    d, base = _rope_fields(model)
    stretch = model_scale_factors(model, seq_len)  # (d/2,)
    past = stretch > factor
    first = int(np.argmax(past))
    if not past.any() or not past[first:].all():
        raise ValueError(f"pairs past {factor} are not the slowest: {past}")
    L0 = model.rope_scaling["original_max_position_embeddings"]
    census = turn_census(d, base, L0)  # which pairs turned within L0
    shortest = scaling.wavelengths(rope.inv_freq(d, base))[first]  # they grow with i
    turned = max(census.full_turn - first, 0)  # pairs first .. full_turn - 1
    last = float(stretch[-1] / factor)
    return OverStretched(int(past.sum()), first, float(shortest), turned, last)


def llama3_wavelength_bounds(model: ModelConfig) -> tuple[float, float]:
    """Llama 3 wavelength bounds (L0 / high_freq_factor, L0 / low_freq_factor)."""
    params = model.rope_scaling
    original = params["original_max_position_embeddings"]
    return original / params["high_freq_factor"], original / params["low_freq_factor"]


def position_ops_share(model: ModelConfig, seq_len: int) -> float:
    """`position_ops_per_token` as a share of one layer's QK^T for a token."""
    ops = position_ops_per_token(model, seq_len)
    return ops / score_ops_per_token(model, seq_len)


def t5_exact_distances(model: ModelConfig) -> int:
    """Distances below this get one T5 bucket each (encoder: buckets / 2 / 2)."""
    return model.extra["relative_attention_num_buckets"] // 4


def fine_tune_tokens(steps: int, batch: int, tokens_per_sequence: int) -> int:
    """Tokens a fine-tuning run reads: steps x batch x sequence length."""
    return steps * batch * tokens_per_sequence


BOOK_PAGES, WORDS_PER_PAGE, WORDS_PER_TOKEN = 300, 300, 0.75  # assumptions


def book_words() -> int:
    """Words in the page-09 book: BOOK_PAGES x WORDS_PER_PAGE."""
    return BOOK_PAGES * WORDS_PER_PAGE


def book_tokens() -> float:
    """Tokens of the page-09 book at WORDS_PER_TOKEN."""
    return tokens_for_words(book_words(), WORDS_PER_TOKEN)


def training_share(tokens: float, pretraining_tokens: float) -> float:
    """Share of the pre-training tokens that ``tokens`` are."""
    return tokens / pretraining_tokens


def extended_length(model: ModelConfig, factor: int = 2) -> int:
    """``factor`` times a model's configured context."""
    return factor * model.max_position_embeddings


def windows_needed(tokens: float, window: int) -> int:
    """Windows of ``window`` tokens that ``tokens`` tokens fill."""
    return math.ceil(tokens / window)


def retrieved_tokens(chunk: int, top_k: int = 5) -> int:
    """Tokens of text that top-k retrieval of ``chunk``-token chunks sends."""
    return top_k * chunk


def attention_work_ratio(tokens: float, other_tokens: float) -> float:
    """How much more QK^T work ``tokens`` need than ``other_tokens``: ratio squared."""
    return (tokens / other_tokens) ** 2


def models_with_ceiling(tokens: int) -> list[ModelConfig]:
    """The models whose `context_ceiling` is at least ``tokens``."""
    return [m for m in MODELS.values() if (context_ceiling(m).tokens or 0) >= tokens]


def extension_method(model: ModelConfig) -> str | None:
    """How a RoPE config reaches past its pre-training length, or None.

    Notes
    -----
    Three places hold the change: a ``rope_scaling`` block (its ``rope_type``),
    the model's own code switched on by a flag (Qwen-7B's ``use_dynamic_ntk``),
    or a base raised above the base of the model it was trained from (Code
    Llama: ``rope_theta`` 10^4 -> 10^6, then long-input fine-tuning).
    """
    if model.scheme != "rope":
        return None
    if model.rope_scaling is not None:
        return model.rope_scaling["rope_type"]
    if model.extra.get("use_dynamic_ntk"):
        return "dynamic NTK (own code)"
    parent_base = model.extra.get("base_model_rope_theta")
    if parent_base is not None and model.rope_theta > parent_base:
        return "base raised"
    return None


def extension_census(entries) -> dict[str, list[str]]:
    """Model names per `extension_method`, for the configs that extend."""
    census: dict[str, list[str]] = {}
    for model in entries:
        method = extension_method(model)
        if method is not None:
            census.setdefault(method, []).append(model.name)
    return census


def weight_discount(bias: float) -> float:
    r"""Factor by which an additive logit bias of ``-bias`` divides a weight.

    Notes
    -----
    Softmax weights are $\propto e^{s_j}$, so adding $-B$ to one key's score
    divides its unnormalised weight by $e^{B}$.
    """
    checked_real("bias", bias, gt=0)
    return math.exp(bias)


def distance_for_bias(slope: float, bias: float) -> float:
    """How many tokens back a head with ``slope`` subtracts ``bias``: bias/slope."""
    checked_real("slope", slope, gt=0)
    checked_real("bias", bias, gt=0)
    return bias / slope


def weight_on_original(scaled, original, factor: float) -> np.ndarray:
    r"""Blend weight $w_i$ in $\theta'_i = w_i\theta_i + (1 - w_i)\theta_i/s$.

    1 keeps the pair, 0 divides it by s; recovered from the two frequency lists.
    """
    checked_real("factor", factor, gt=0)
    ratio = np.asarray(scaled, np.float64) / np.asarray(original, np.float64)
    return (ratio - 1 / factor) / (1 - 1 / factor)


def yarn_paper_gamma(turns, alpha: float = 1.0, beta: float = 32.0) -> np.ndarray:
    r"""The YaRN paper's ramp $\gamma(r)$ ("NTK-by-parts"), r = L0/lambda.

    Notes
    -----
    $\gamma(r) = 0$ for $r < \alpha$, $1$ for $r > \beta$, else
    $(r - \alpha)/(\beta - \alpha)$: linear in the turn count r.
    """
    return np.clip((np.asarray(turns, np.float64) - alpha) / (beta - alpha), 0, 1)


def ramp_comparison(model: ModelConfig, alpha: float = 1.0, beta: float = 32.0):
    """Per pair of a ``llama3`` config: turns r and the three blend weights.

    Returns a dict of arrays, shape (d/2,): ``turns`` = L0/lambda_i, ``llama3``
    (the config's own rule), ``yarn_paper`` (gamma(r)) and ``yarn_hf`` (HF
    ``yarn`` at the same d, base, factor and L0, with beta_fast=beta,
    beta_slow=alpha).
    """
    d, base = _rope_fields(model)
    params = model.rope_scaling
    factor, L0 = params["factor"], params["original_max_position_embeddings"]
    original = rope.inv_freq(d, base)
    turns = L0 / scaling.wavelengths(original)
    llama3, _ = model_inv_freq(model)
    hf, _ = scaling.yarn(
        d, base, factor=factor, original_max_position_embeddings=L0,
        beta_fast=beta, beta_slow=alpha,
    )  # fmt: skip
    return {
        "turns": turns,
        "llama3": weight_on_original(llama3, original, factor),
        "yarn_paper": yarn_paper_gamma(turns, alpha, beta),
        "yarn_hf": weight_on_original(hf, original, factor),
    }


def ramp_table(model: ModelConfig, alpha: float = 1.0, beta: float = 32.0) -> str:
    """Markdown table of `ramp_comparison` over the pairs any rule blends."""
    from posenc_docs.pages.format import fixed, markdown_table

    ramps = ramp_comparison(model, alpha, beta)
    rules = ("llama3", "yarn_paper", "yarn_hf")
    blended = [
        i
        for i in range(len(ramps["turns"]))
        if any(0 < ramps[rule][i] < 1 for rule in rules)
    ]
    rows = [
        (i, fixed(ramps["turns"][i], 2), *(fixed(ramps[r][i], 2) for r in rules))
        for i in range(blended[0] - 1, blended[-1] + 2)
    ]
    header = ("pair i", "turns r = L0/λ", "Llama 3.1", "YaRN paper γ(r)", "HF yarn")
    return markdown_table(header, rows)
