"""The validation policy (posenc_docs/__init__.py) for sinusoidal, learned, alibi
and scaling: every public function and class, every argument, every kind of bad
input that applies, and Python / NumPy / 0-d tensor numbers accepted alike.

SPECS lists each public callable with good arguments and the kind of each
argument; the kinds say which bad values to try. A public function (or a new
argument) without an entry fails ``test_every_public_callable_has_a_spec``.
"""

import inspect
import math
import re

import numpy as np
import pytest
import torch

from posenc_docs import (
    alibi,
    learned,
    mrope,
    partial_rotary,
    relative_bias,
    rope,
    scaling,
    sinusoidal,
    temperature,
)
from posenc_docs import attention as att

MODULES = {"sinusoidal": sinusoidal, "learned": learned, "alibi": alibi}
MODULES["scaling"] = scaling
NAN, INF = math.nan, math.inf
T, V = TypeError, ValueError

# kind -> [(bad value, exception)]
BAD = {
    "even": [
        (8.0, T),
        ("8", T),
        ([8], T),
        (True, T),
        (None, T),
        (torch.tensor([8]), T),
        (np.array([8]), T),
        (NAN, T),
        (0, V),
        (-8, V),
        (7, V),
    ],
    "count": [
        (4.0, T),
        ("4", T),
        ([4], T),
        (True, T),
        (None, T),
        (torch.tensor([4]), T),
        (INF, T),
        (0, V),
        (-1, V),
        (2**63, V),  # past int64: NumPy and torch overflowed or crashed
    ],
    "index": [(1.5, T), ("1", T), ([1], T), (True, T), (None, T), (-1, V), (2**63, V)],
    "base": [
        ("1e4", T),
        ([1e4], T),
        (True, T),
        (None, T),
        (1 + 2j, T),
        (10**400, V),
        (torch.tensor([1e4]), T),
        (NAN, V),
        (INF, V),
        (1.0, V),
        (0.5, V),
        (-1e4, V),
    ],
    "factor": [
        ("2", T),
        ([2.0], T),
        (True, T),
        (NAN, V),
        (INF, V),
        (0.5, V),
        (-2.0, V),
    ],
    "positive": [("1", T), ([1.0], T), (True, T), (NAN, V), (INF, V), (0.0, V)],
    "nonneg": [("1", T), ([1.0], T), (None, T), (NAN, V), (INF, V), (-1.0, V)],
    "share": [("1", T), ([0.5], T), (None, T), (True, T), (NAN, V), (-0.25, V)]
    + [(1.5, V), (INF, V)],
    "optional_positive": [("1", T), ([1.0], T), (NAN, V), (0.0, V), (-1.0, V)],
    "optional_nonneg": [("1", T), ([1.0], T), (NAN, V), (-20.0, V)],
    "optional_count": [(1.5, T), ("9", T), ([9], T), (0, V), (-1, V)],
    "real": [("1", T), ([1.0], T), (None, T), (True, T), (NAN, V), (INF, V)],
    "bool": [(1, T), ("yes", T), (None, T)],
    "dtype": [(torch.int64, T), (torch.bool, T), ("float32", T), (np.float32, T)],
    "device": [(3, T), (True, T), ("no-such-device", V)],
    "array": [
        (torch.arange(3.0), T),
        ("abc", T),
        (["a", "b"], T),
        ([[1.0], [1.0, 2.0]], T),
        (None, T),
        (np.array([True, False]), T),
    ],
    "x": [
        (np.zeros((1, 2, 8)), T),
        ([[0.0] * 8] * 2, T),
        (torch.zeros(1, 2, 8, dtype=torch.int64), T),
        (torch.zeros(1, 2, 6), V),
        (torch.zeros(8), V),
    ],
    "positions": [
        ([0, 1], T),
        (np.array([0, 1]), T),
        (torch.tensor([0.0, 1.0]), T),
        (torch.tensor([True, False]), T),
        (torch.tensor([1j, 2j]), T),
        (torch.tensor([0, 1, 2]), V),
    ],
    "pairs": [
        (torch.ones(4), T),
        ("abcd", T),
        ([1.0] * 3, V),
        ([1.0, 1.0, 1.0, -1.0], V),
        ([1.0, 1.0, 1.0, NAN], V),
    ],
    "rope_scaling": [
        ([("rope_type", "linear")], T),
        ("linear", T),
        ({"rope_type": "su"}, V),
        ({"rope_type": "dynamic", "factor": 2.0, "beta_fast": 32.0}, V),
    ],
}

BASE = 1e4
X = torch.ones(1, 2, 8)  # (B, T, d) with d = 8


def _sinusoidal_module(**kwargs):
    return sinusoidal.SinusoidalPositionalEncoding(**kwargs)(X)


def _sinusoidal_forward(**kwargs):
    return sinusoidal.SinusoidalPositionalEncoding(8, max_len=2)(**kwargs)


def _learned_module(**kwargs):
    torch.manual_seed(0)
    return learned.LearnedPositionalEmbedding(**kwargs)(X)


def _learned_forward(**kwargs):
    torch.manual_seed(0)
    return learned.LearnedPositionalEmbedding(4, 8)(**kwargs)


YARN = {"d": 64, "base": BASE, "original_max_position_embeddings": 2048}
YARN_KINDS = {"d": "even", "base": "base", "original_max_position_embeddings": "count"}
BETAS = {"beta_fast": 32.0, "beta_slow": 1.0, "truncate": True}
BETA_KINDS = {"beta_fast": "positive", "beta_slow": "positive", "truncate": "bool"}
DYNAMIC = {"d": 8, "base": BASE, "factor": 2.0}
DYNAMIC |= {"max_position_embeddings": 16, "seq_len": 32}
DYNAMIC_KINDS = {"d": "even", "base": "base", "factor": "factor"}
DYNAMIC_KINDS |= {"max_position_embeddings": "count", "seq_len": "optional_count"}
PAIRS = {"short_factor": [1.0] * 4, "long_factor": [2.0] * 4}

# name -> (call, good keyword arguments, kind of each argument, extra bad cases)
SPECS = {
    "sinusoidal.encode": (
        sinusoidal.encode,
        {"pos": [0, 3], "d": 8, "base": BASE},
        {"pos": "array", "d": "even", "base": "base"},
        [],
    ),
    "sinusoidal.table": (
        sinusoidal.table,
        {"n_positions": 5, "d": 8, "base": BASE},
        {"n_positions": "index", "d": "even", "base": "base"},
        [],
    ),
    "sinusoidal.wavelengths": (
        sinusoidal.wavelengths,
        {"d": 8, "base": BASE},
        {"d": "even", "base": "base"},
        [],
    ),
    "sinusoidal.offset_similarity": (
        sinusoidal.offset_similarity,
        {"k": [1, 2], "d": 8, "base": BASE},
        {"k": "array", "d": "even", "base": "base"},
        [],
    ),
    "sinusoidal.shift_matrix": (
        sinusoidal.shift_matrix,
        {"k": 3, "d": 8, "base": BASE},
        {"k": "real", "d": "even", "base": "base"},
        [],
    ),
    "sinusoidal.SinusoidalPositionalEncoding": (
        _sinusoidal_module,
        {"d": 8, "base": BASE, "max_len": 4},
        {"d": "even", "base": "base", "max_len": "count"},
        [],
    ),
    "sinusoidal.SinusoidalPositionalEncoding.forward": (
        _sinusoidal_forward,
        {"x": X, "offset": 1},
        {"x": "x", "offset": "index"},
        [("offset", -10, V), ("offset", 2.0, T)],
    ),
    "learned.parameter_count": (
        learned.parameter_count,
        {"max_len": 4, "d": 8},
        {"max_len": "count", "d": "count"},
        [],
    ),
    "learned.LearnedPositionalEmbedding": (
        _learned_module,
        {"max_len": 4, "d": 8, "init_std": 0.02},
        {"max_len": "count", "d": "count", "init_std": "nonneg"},
        [],
    ),
    "learned.LearnedPositionalEmbedding.forward": (
        _learned_forward,
        {"x": X, "offset": 0, "positions": None},
        {"x": "x", "offset": "index", "positions": "positions"},
        [],
    ),
    "alibi.alibi_slopes": (
        alibi.alibi_slopes,
        {"n_heads": 4},
        {"n_heads": "count"},
        [],
    ),
    "alibi.alibi_bias": (
        alibi.alibi_bias,
        {"n_heads": 4, "q_len": 2, "k_len": 3, "causal": True},
        {"n_heads": "count", "q_len": "count", "k_len": "count", "causal": "bool"},
        [("q_len", 4, V)],
    ),
    "alibi.alibi_bias_torch": (
        alibi.alibi_bias_torch,
        {"n_heads": 4, "q_len": 2, "k_len": 3, "causal": True}
        | {"dtype": torch.float32, "device": "cpu"},
        {"n_heads": "count", "q_len": "count", "k_len": "count", "causal": "bool"}
        | {"dtype": "dtype", "device": "device"},
        [("q_len", 4, V)],
    ),
    "scaling.ntk_base": (
        scaling.ntk_base,
        {"d": 8, "base": BASE, "factor": 2.0},
        {"d": "even", "base": "base", "factor": "factor"},
        [("d", 2, V)],
    ),
    "scaling.wavelengths": (
        scaling.wavelengths,
        {"inv_freq": [1.0, 0.1]},
        {"inv_freq": "array"},
        [],
    ),
    "scaling.scale_per_pair": (
        scaling.scale_per_pair,
        {"scaled_inv_freq": [0.5, 0.05], "base_inv_freq": [1.0, 0.1]},
        {"scaled_inv_freq": "array", "base_inv_freq": "array"},
        [("scaled_inv_freq", [0.5], V)],
    ),
    "scaling.default": (
        scaling.default,
        {"d": 8, "base": BASE},
        {"d": "even", "base": "base"},
        [],
    ),
    "scaling.linear": (
        scaling.linear,
        {"d": 8, "base": BASE, "factor": 2.0},
        {"d": "even", "base": "base", "factor": "factor"},
        [],
    ),
    "scaling.ntk": (
        scaling.ntk,
        {"d": 8, "base": BASE, "factor": 2.0},
        {"d": "even", "base": "base", "factor": "factor"},
        [("d", 2, V)],
    ),
    "scaling.dynamic_ntk_base": (
        scaling.dynamic_ntk_base,
        DYNAMIC,
        DYNAMIC_KINDS,
        [("d", 2, V)],
    ),
    "scaling.dynamic_ntk": (scaling.dynamic_ntk, DYNAMIC, DYNAMIC_KINDS, [("d", 2, V)]),
    "scaling.yarn_correction_dim": (
        scaling.yarn_correction_dim,
        {"num_rotations": 1.0, **YARN},
        {"num_rotations": "positive", **YARN_KINDS},
        [],
    ),
    "scaling.yarn_ramp_bounds": (
        scaling.yarn_ramp_bounds,
        {**YARN, **BETAS},
        {**YARN_KINDS, **BETA_KINDS},
        [("beta_fast", 0.5, V), ("original_max_position_embeddings", 3, V)],
    ),
    "scaling.yarn_mscale": (
        scaling.yarn_mscale,
        {"scale": 4.0, "mscale": 1.0},
        {"scale": "positive", "mscale": "nonneg"},
        [],
    ),
    "scaling.yarn": (
        scaling.yarn,
        {**YARN, **BETAS, "factor": 4.0, "mscale": 1.0, "mscale_all_dim": 0.5}
        | {"attention_factor": None},
        {**YARN_KINDS, **BETA_KINDS, "factor": "factor", "mscale": "optional_nonneg"}
        | {"mscale_all_dim": "optional_nonneg"}
        | {"attention_factor": "optional_positive"},
        [],
    ),
    "scaling.longrope": (
        scaling.longrope,
        {"d": 8, "base": BASE, **PAIRS, "original_max_position_embeddings": 16}
        | {"factor": None, "max_position_embeddings": 64, "seq_len": 32}
        | {"attention_factor": None, "short_mscale": None, "long_mscale": None},
        {"d": "even", "base": "base", "short_factor": "pairs", "long_factor": "pairs"}
        | {"original_max_position_embeddings": "count", "factor": "factor"}
        | {"max_position_embeddings": "optional_count", "seq_len": "optional_count"}
        | {"attention_factor": "optional_positive", "short_mscale": "optional_positive"}
        | {"long_mscale": "optional_positive"},
        [("original_max_position_embeddings", 1, V), ("max_position_embeddings", 8, V)],
    ),
    "scaling.llama3": (
        scaling.llama3,
        {"d": 64, "base": 5e5, "factor": 8.0, "low_freq_factor": 1.0}
        | {"high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
        {"d": "even", "base": "base", "factor": "factor", "low_freq_factor": "positive"}
        | {"high_freq_factor": "positive", "original_max_position_embeddings": "count"},
        [("low_freq_factor", 4.5, V)],
    ),
    "scaling.proportional": (
        scaling.proportional,
        {"d": 16, "base": BASE, "factor": 2.0, "partial_rotary_factor": 0.25},
        {"d": "even", "base": "base", "factor": "factor"}
        | {"partial_rotary_factor": "share"},
        [],
    ),
    "scaling.from_rope_scaling": (
        scaling.from_rope_scaling,
        {"d": 8, "base": BASE, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
        | {"max_position_embeddings": 16, "seq_len": 32}
        | {"original_max_position_embeddings": 8},
        {"d": "even", "base": "base", "rope_scaling": "rope_scaling"}
        | {"max_position_embeddings": "optional_count", "seq_len": "optional_count"}
        | {"original_max_position_embeddings": "optional_count"},
        [],
    ),
}


def _public_callables() -> dict:
    found = {}
    for short, module in MODULES.items():
        for name, obj in vars(module).items():
            mine = getattr(obj, "__module__", None) == module.__name__
            kind_ok = inspect.isfunction(obj) or inspect.isclass(obj)
            if name.startswith("_") or not mine or not kind_ok:
                continue
            found[f"{short}.{name}"] = obj
            if inspect.isclass(obj):
                found[f"{short}.{name}.forward"] = obj.forward
    return found


def test_every_public_callable_has_a_spec_for_every_argument():
    public = _public_callables()
    assert set(public) == set(SPECS)
    for name, obj in public.items():
        parameters = set(inspect.signature(obj).parameters) - {"self"}
        assert parameters == set(SPECS[name][2]), name


def _bad_cases():
    for name, (_, _, kinds, extra) in SPECS.items():
        for argument, kind in kinds.items():
            for value, error in BAD[kind]:
                yield pytest.param(
                    name, argument, value, error, id=f"{name}-{argument}"
                )
        for argument, value, error in extra:
            yield pytest.param(name, argument, value, error, id=f"{name}-{argument}")


@pytest.mark.parametrize("name, argument, value, error", list(_bad_cases()))
def test_bad_argument_raises_the_right_error_naming_it(name, argument, value, error):
    call, good, _, _ = SPECS[name]
    with pytest.raises((TypeError, ValueError)) as caught:
        call(**{**good, argument: value})
    assert caught.type is error, f"{argument}={value!r}: {caught.value!r}"
    assert re.match(rf"{argument}\b", str(caught.value)), str(caught.value)


def test_good_arguments_work():
    for call, good, _, _ in SPECS.values():
        call(**good)  # the bad cases above fail for the reason they say


def _alike(value):
    """The same number as a NumPy scalar and as a 0-d tensor."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [np.int64(value), torch.tensor(value)]
    if isinstance(value, float):
        return [np.float64(value), torch.tensor(value, dtype=torch.float64)]
    return []


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, torch.Tensor):
        return a.dtype == b.dtype and torch.equal(a, b)
    return a == b


def _alike_cases():
    for name, (_, good, _, _) in SPECS.items():
        for argument, value in good.items():
            for other in _alike(value):
                kind = type(other).__name__
                yield pytest.param(
                    name, argument, other, id=f"{name}-{argument}-{kind}"
                )


@pytest.mark.parametrize("name, argument, other", list(_alike_cases()))
def test_numpy_scalars_and_0d_tensors_are_numbers_like_python_ones(
    name, argument, other
):
    call, good, _, _ = SPECS[name]
    assert _same(call(**good), call(**{**good, argument: other}))


def _trainable_cases():
    for name, (_, good, _, _) in SPECS.items():
        for argument, value in good.items():
            if isinstance(value, float):
                yield pytest.param(name, argument, id=f"{name}-{argument}")


TRAINABLE = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
READ_AS_NUMBERS = [  # a review found these took a trainable tensor and lost its grad
    (lambda t: att.attention_torch(*[torch.ones(2, 4)] * 3, scale=t), "scale"),
    (lambda t: rope.RotaryEmbedding(8, attention_factor=t), "attention_factor"),
    (lambda t: rope.apply_rope_torch(X, torch.arange(2), base=10 * t), "base"),
    (
        lambda t: temperature.llama4_attention_scale_torch(
            torch.arange(3), attn_scale=t
        ),
        "attn_scale",
    ),
]


@pytest.mark.parametrize("call, name", READ_AS_NUMBERS)
def test_a_number_that_requires_grad_is_refused_by_name(call, name):
    """Read as a Python number, a trainable 0-d tensor would silently not train:
    the output had no grad_fn. `inv_freq` is refused alike (rope)."""
    with pytest.raises(TypeError, match=rf"^{name} is read as a number.*requires"):
        call(TRAINABLE)
    assert call(TRAINABLE.detach()) is not None  # the same value, detached: taken


@pytest.mark.parametrize("name, argument", list(_trainable_cases()))
def test_every_float_argument_refuses_a_tensor_that_requires_grad(name, argument):
    call, good, _, _ = SPECS[name]
    trainable = torch.tensor(good[argument], dtype=torch.float64, requires_grad=True)
    with pytest.raises(TypeError, match=rf"^{argument} is read as a number"):
        call(**{**good, argument: trainable})


def test_return_types_follow_the_docstrings():
    for name in ("linear", "ntk", "dynamic_ntk", "yarn", "longrope", "llama3"):
        call, good, _, _ = SPECS[f"scaling.{name}"]
        inv_freq, attention_factor = call(**{**good, "d": torch.tensor(good["d"])})
        assert type(inv_freq) is np.ndarray and inv_freq.dtype == np.float64, name
        assert type(attention_factor) is float, name
    assert type(scaling.ntk_base(torch.tensor(8), 1e4, 2.0)) is float
    assert type(sinusoidal.encode(torch.tensor(3.0), 8)) is np.ndarray


YARN_NO_FACTOR = {"rope_type": "yarn"}  # factor = max_position_embeddings / L0
LEARNED = learned.LearnedPositionalEmbedding(8, 8)
NO_CUDA = pytest.mark.skipif(torch.cuda.is_available(), reason="cuda is usable here")
# A second review (2026-12-05): each crashed inside NumPy or torch, or named
# another argument than the one at fault.
REVIEW_2026_12_05 = [
    (lambda: LEARNED(X, positions=torch.arange(2, device="meta")), V, "positions"),
    (lambda: LEARNED(X.to("meta")), V, "x must be on device"),
    (
        lambda: rope.permute_qk_weight(
            torch.zeros(8, 3), 1, X.new_empty(8, device="meta")
        ),
        V,
        "perm",
    ),
    pytest.param(
        lambda: alibi.alibi_bias_torch(2, 3, 3, device="cuda"),
        V,
        "device",
        marks=NO_CUDA,
    ),
    (lambda: sinusoidal.SinusoidalPositionalEncoding(8)(X, offset=10**20), V, "offset"),
    (lambda: rope.RotaryEmbedding(8)(X, X, offset=2**63), V, "offset"),
    (
        lambda: scaling.yarn_ramp_bounds(
            64, original_max_position_embeddings=2048, beta_slow=1e308
        ),
        V,
        "beta_slow",
    ),
    (
        lambda: att.attention(np.ones((2, 0)), np.ones((2, 0)), np.ones((2, 3))),
        V,
        "q must",
    ),
    (
        lambda: att.attention_torch(
            torch.ones(2, 0), torch.ones(2, 0), torch.ones(2, 3)
        ),
        V,
        "q must",
    ),
    (
        lambda: att.self_attention(
            np.ones((2, 4)), np.ones((4, 0)), np.ones((4, 0)), np.ones((4, 3))
        ),
        V,
        "w_q",
    ),
    (
        lambda: rope.permute_qk_weight(np.zeros((8, 3)), 1, np.arange(8).reshape(2, 4)),
        V,
        "perm must be 1-D",
    ),
    (
        lambda: mrope.mrope_pair_axes(np.array([[16, 24, 24]])),
        V,
        "mrope_section must be 1-D",
    ),
]
EIGHT_BITS = torch.float8_e4m3fn  # torch has no arithmetic in it
F8_FREQ = torch.tensor([1.0, 0.1, 0.01, 0.001]).to(EIGHT_BITS)  # 0.001 -> 0.00195
POS = torch.arange(2)
BF16_POS = torch.arange(2, dtype=torch.bfloat16)  # exact only up to 256
REVIEW_2026_12_06 = [  # float8 frequencies failed inside torch or were 2x off
    (lambda: rope.apply_rope_torch(X, BF16_POS), T, "positions"),  # and bf16, fp16
    (lambda: rope.angles_torch(BF16_POS, torch.ones(4)), T, "positions"),  # positions
    (
        lambda: mrope.apply_mrope_torch(
            X, torch.stack([POS] * 3).half(), mrope_section=(2, 1, 1)
        ),
        T,
        "positions_thw",
    ),
    (lambda: temperature.qwen_logn_scale_torch(BF16_POS), T, "positions"),
    (lambda: rope.apply_rope_torch(X, POS, inv_freq=F8_FREQ), T, "inv_freq"),
    (lambda: rope.angles_torch(POS, F8_FREQ), T, "inv_freq"),
    (lambda: rope.RotaryEmbedding(8, inv_freq=F8_FREQ), T, "inv_freq"),
    (
        lambda: partial_rotary.apply_partial_rope_torch(
            X, POS, rotary_dim=8, inv_freq=F8_FREQ
        ),
        T,
        "inv_freq",
    ),
    (
        lambda: mrope.apply_mrope_torch(
            X, torch.stack([POS] * 3), mrope_section=(2, 1, 1), inv_freq=F8_FREQ
        ),
        T,
        "inv_freq",
    ),
]


@pytest.mark.parametrize(
    "call, error, name",
    [
        *[
            (
                lambda L0=L0: scaling.from_rope_scaling(
                    64,
                    1e4,
                    {**YARN_NO_FACTOR, "original_max_position_embeddings": L0},
                    max_position_embeddings=8192,
                ),
                error,
                "original_max_position_embeddings",
            )
            for L0, error in [(0, V), ("4096", T), (-4096, V), (NAN, T)]
        ],
        (
            lambda: scaling.from_rope_scaling(
                64, 1e4, {"rope_type": "linear", "factor": 2.0, "rope_theta": "1e4"}
            ),
            T,
            "rope_theta",
        ),
        (lambda: rope.angles(np.arange(3), np.ones((3, 2))), V, "inv_freq"),
        (lambda: rope.angles_torch(torch.arange(3), torch.ones(3, 2)), V, "inv_freq"),
        (
            lambda: mrope.rotate_by_axes(
                np.ones((5, 8)), np.zeros((3, 5), int), [0, 1, 2, 0], np.ones((5, 4))
            ),
            V,
            "inv_freq",
        ),
        (
            lambda: mrope.apply_mrope_torch(
                torch.ones(5, 8),
                torch.zeros(3, 5, dtype=torch.long, device="meta"),
                mrope_section=[2, 1, 1],
            ),
            V,
            "positions_thw",
        ),  # fmt: skip
        (
            lambda: mrope.axial_rope_2d_torch(
                torch.ones(5, 8), torch.zeros(2, 5, dtype=torch.long, device="meta")
            ),
            V,
            "positions_hw",
        ),
        (lambda: mrope.mrope_pair_axes(torch.tensor(3)), T, "mrope_section"),
        (
            lambda: mrope.mrope_pair_axes({16: "t", 24: "h", 32: "w"}),
            T,
            "mrope_section",
        ),
        (lambda: alibi.alibi_bias_torch(4, 3, 3, dtype=EIGHT_BITS), T, "dtype"),
        (
            lambda: att.attention_torch(*[torch.ones(2, 4, dtype=EIGHT_BITS)] * 3),
            T,
            "q",
        ),
        (
            lambda: att.attention(np.ones((2, 4)), np.ones((0, 4)), np.ones((0, 4))),
            V,
            "k must",
        ),
        (
            lambda: att.attention_torch(
                torch.ones(2, 4), torch.ones(0, 4), torch.ones(0, 4)
            ),
            V,
            "k must",
        ),
        (lambda: rope.inv_freq(torch.tensor(8, device="meta")), T, "d must"),
        *REVIEW_2026_12_05,
        *REVIEW_2026_12_06,
    ],
)
def test_bad_input_a_differential_review_found_is_refused_by_name(call, error, name):
    """Each of these crashed inside NumPy or torch, or returned a silent answer."""
    with pytest.raises(error, match=rf"\b{re.escape(name)}\b"):
        call()


def test_t5_buckets_of_distances_past_int64_do_not_wrap():
    """A uint64 past 2**63 and int64's smallest (whose abs() wraps) land where the
    farthest representable distances do, in both twins and both directions."""
    unsigned = [2**63 + 5, 2**64 - 1, 5]
    signed = [-(2**63), 2**63 - 1, -5]
    for bidirectional, ahead, behind in [(True, 31, 15), (False, 0, 31)]:
        expected_unsigned = [ahead, ahead, 21 if bidirectional else 0]
        expected_signed = [behind, ahead, 5]
        for bucket, to in [
            (relative_bias.t5_relative_position_bucket, np.array),
            (relative_bias.t5_relative_position_bucket_torch, torch.tensor),
        ]:
            got = bucket(to(unsigned, dtype=UINT64[to]), bidirectional=bidirectional)
            assert got.tolist() == expected_unsigned, (bucket, bidirectional)
            got = bucket(to(signed, dtype=INT64[to]), bidirectional=bidirectional)
            assert got.tolist() == expected_signed, (bucket, bidirectional)


UINT64 = {np.array: np.uint64, torch.tensor: torch.uint64}
INT64 = {np.array: np.int64, torch.tensor: torch.int64}
EIGHT_BIT_ROTATIONS = {
    "apply_rope_torch half": lambda x: rope.apply_rope_torch(
        x, torch.arange(4), layout="half"
    ),
    "apply_rope_torch interleaved": lambda x: rope.apply_rope_torch(x, torch.arange(4)),
    "RotaryEmbedding": lambda x: rope.RotaryEmbedding(8)(x, x)[0],
    "apply_mrope_torch": lambda x: mrope.apply_mrope_torch(
        x, torch.zeros(3, 1, 1, 4, dtype=torch.long), mrope_section=[2, 1, 1]
    ),
}


@pytest.mark.parametrize("name", EIGHT_BIT_ROTATIONS)
def test_rotations_take_float8_and_compute_in_float32(name):
    """A rotation computes in float32 and casts back: float8 in, float8 out, equal
    to rotating the float32 copy."""
    x = torch.randn(1, 2, 4, 8, generator=torch.Generator().manual_seed(0))
    eight = x.to(EIGHT_BITS)
    out = EIGHT_BIT_ROTATIONS[name](eight)
    assert out.dtype == EIGHT_BITS
    wide = EIGHT_BIT_ROTATIONS[name](eight.float()).to(EIGHT_BITS)
    assert torch.equal(out.float(), wide.float())


def test_t5_bias_gathers_a_float8_table():
    table = torch.randn(32, 2).to(EIGHT_BITS)
    assert relative_bias.t5_bias_torch(table, 3, 3).dtype == EIGHT_BITS


def test_attention_with_no_queries_returns_an_empty_result():
    empty = (0, 4)
    assert att.attention(*[np.ones(empty)] * 3).shape == empty
    assert att.attention_torch(*[torch.ones(empty)] * 3).shape == empty
    w = np.ones((4, 4))
    assert att.self_attention(np.ones(empty), w, w, w).shape == empty


@pytest.mark.parametrize(
    "section", [(2, 1, 1), [2, 1, 1], np.array([2, 1, 1]), torch.tensor([2, 1, 1])]
)
def test_mrope_sections_come_as_any_sequence_of_ints(section):
    assert mrope.mrope_pair_axes(section).tolist() == [0, 0, 1, 2]


def test_yarn_without_factor_names_both_lengths_when_l0_is_longer():
    with pytest.raises(ValueError, match=r"max_position_embeddings.*8192 / 16384"):
        scaling.from_rope_scaling(
            64,
            1e4,
            {**YARN_NO_FACTOR, "original_max_position_embeddings": 16384},
            max_position_embeddings=8192,
        )


def test_yarn_ramp_bounds_are_floats_without_truncation():
    low, high = scaling.yarn_ramp_bounds(
        128, original_max_position_embeddings=100, truncate=False
    )
    assert (type(low), type(high)) == (float, float) and low == 0.0


def test_narrow_integer_sizes_are_numbers_like_python_ints():
    """text_image_positions added the unchecked height and width: an int16 height
    wrapped the positions after the image to -32536."""
    expected = mrope.text_image_positions(32000, 1000, 800, 1)
    for height in (np.int16(1000), torch.tensor(1000, dtype=torch.int16)):
        got = mrope.text_image_positions(32000, height, 800, 1)
        np.testing.assert_array_equal(got, expected)
    assert expected[:, -1].tolist() == [33000] * 3  # 32000 + max(1000, 800)


def test_yarn_logit_scale_lets_nan_positions_through_as_its_twin_does():
    """Values are not scanned: the NumPy function raised on a NaN position (naming
    a `scale` it has no argument for) where its torch twin returned NaN."""

    p = np.array([np.nan, 1.0, 9.0, np.inf])
    got = temperature.yarn_logit_scale(p, original_max_position_embeddings=4)
    twin = temperature.yarn_logit_scale_torch(
        torch.from_numpy(p), original_max_position_embeddings=4
    )
    np.testing.assert_array_equal(got, twin.numpy())
    assert np.isnan(got[0]) and got[1] == 1.0 and got[3] == np.inf
    g = scaling.yarn_mscale(10 / 4)  # p = 9: s = (9 + 1) / 4
    assert got[2] == pytest.approx(g * g, rel=1e-15)


@pytest.mark.parametrize("dtype", [torch.uint16, torch.uint32, torch.uint64])
def test_learned_takes_unsigned_positions(dtype):
    """torch has no min or max for uint16/32/64: the range check crashed."""
    positions = torch.tensor([3, 0])
    got = LEARNED(X, positions=positions.to(dtype))
    torch.testing.assert_close(got, LEARNED(X, positions=positions), rtol=0, atol=0)
    with pytest.raises(IndexError, match="no row for position 9"):
        LEARNED(X, positions=torch.tensor([0, 9], dtype=dtype))


def test_yarn_bounds_stay_finite_for_extreme_rotation_counts():
    """2*pi*r overflowed (log of 0) or L0 / (2*pi*r) did (floor of inf)."""
    assert math.isfinite(scaling.yarn_correction_dim(1e308, 64, 1e4, 2048))
    assert math.isfinite(scaling.yarn_correction_dim(1e-310, 64, 1e4, 2048))
    usual = 64 * math.log(2048 / (2 * math.pi * 32)) / (2 * math.log(1e4))
    assert scaling.yarn_correction_dim(32, 64, 1e4, 2048) == usual  # HF's, exactly


def test_numpy_references_return_float64_from_long_double_input():
    """A long-double operand left uncast made the result float128."""
    wide = np.longdouble
    assert scaling.scale_per_pair(np.array([0.5], wide), [1.0]).dtype == np.float64
    q = np.ones((2, 2))
    assert att.attention(q, q, q, bias=np.zeros((2, 2), wide)).dtype == np.float64
    x, positions = np.ones((2, 4)), np.zeros((1, 2), dtype=int)
    got = mrope.rotate_by_axes(x, positions, [0, 0], np.ones(2, wide))
    assert got.dtype == np.float64


def test_a_value_width_of_0_is_an_empty_result_not_an_error():
    """Only a query or key width of 0 is refused (the logits divide by its root):
    the review's first fix refused w_v of width 0 too, which attention takes."""
    x = np.ones((3, 4))
    got = att.self_attention(x, np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 0)))
    assert got.shape == (3, 0)
    assert att.attention(x, x, np.ones((3, 0))).shape == (3, 0)
