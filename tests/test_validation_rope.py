"""Every public function and class of rope and attention rejects bad arguments.

The sweep calls each function with valid arguments except one, replaced by each kind
of bad value, and asserts the exception type (TypeError for a wrong kind, ValueError
for a wrong value or shape) and that the message names the argument.
"""

import math
import re

import numpy as np
import pytest
import torch

from posenc_docs import attention as att
from posenc_docs import rope

NAN, INF = math.nan, math.inf
X_NP, X_T = np.zeros((2, 3, 4, 8)), torch.zeros(2, 3, 4, 8)  # (B, H, T, d)
POS_NP, POS_T = np.arange(4), torch.arange(4)
META = torch.zeros(4, device="meta")

INT = [
    ("object", object(), TypeError),
    ("list", [8], TypeError),
    ("str", "8", TypeError),
    ("bool", True, TypeError),
    ("float", 8.0, TypeError),
    ("NaN", NAN, TypeError),
    ("inf", INF, TypeError),
    ("negative", -2, ValueError),
]
POSITIVE_INT = [*INT, ("zero", 0, ValueError)]
EVEN = [*POSITIVE_INT, ("odd", 7, ValueError)]
REAL = [
    ("object", object(), TypeError),
    ("list", [2.0], TypeError),
    ("str", "2", TypeError),
    ("bool", True, TypeError),
    ("NaN", NAN, ValueError),
    ("inf", INF, ValueError),
    ("-inf", -INF, ValueError),
    ("int past float", 10**400, ValueError),
]
POSITIVE = [*REAL, ("negative", -2.0, ValueError), ("zero", 0.0, ValueError)]
BASE = [
    *POSITIVE,
    ("one", 1.0, ValueError),
    ("0-d tensor 0.5", torch.tensor(0.5), ValueError),
]
LAYOUT = [
    ("int", 1, TypeError),
    ("list", ["half"], TypeError),
    ("str", "neox", ValueError),
]
BOOL = [("int", 1, TypeError), ("str", "yes", TypeError), ("None", None, TypeError)]


def numpy_data(shape_ok, *, bad_shape):
    """Bad values for an array argument of a NumPy function."""
    return [
        ("torch.Tensor (mixed)", torch.zeros(shape_ok), TypeError),
        ("str", "abc", TypeError),
        ("str dtype", np.full(shape_ok, "a"), TypeError),
        ("complex dtype", np.zeros(shape_ok, complex), TypeError),
        ("wrong shape", np.zeros(bad_shape), ValueError),
    ]


def torch_data(shape_ok, *, bad_shape, floating=True, device=True):
    """Bad values for a tensor argument of a torch function or module."""
    cases = [
        ("numpy array (mixed)", np.zeros(shape_ok), TypeError),
        ("list", np.zeros(shape_ok).tolist(), TypeError),
        ("str", "abc", TypeError),
        ("wrong shape", torch.zeros(bad_shape), ValueError),
        ("bool dtype", torch.zeros(shape_ok, dtype=torch.bool), TypeError),
        ("complex dtype", torch.zeros(shape_ok, dtype=torch.complex64), TypeError),
    ]
    if floating:
        cases.append(("int dtype", torch.zeros(shape_ok, dtype=torch.int64), TypeError))
    if device:
        cases.append(("other device", torch.zeros(shape_ok, device="meta"), ValueError))
    return cases


def rotary_forward(q=X_T, k=X_T, offset=0, positions=None):
    return rope.RotaryEmbedding(8)(q, k, offset=offset, positions=positions)


Q_NP, K_NP, V_NP = np.zeros((2, 3, 8)), np.zeros((2, 5, 8)), np.zeros((2, 5, 4))
Q_T, K_T, V_T = (torch.from_numpy(a) for a in (Q_NP, K_NP, V_NP))
W_NP = np.zeros((8, 4))  # (d_model, d_head)

# function, valid keyword arguments, {argument: bad values}
SWEEP = [
    (rope.inv_freq, {"d": 8}, {"d": EVEN, "base": BASE}),
    (
        rope.angles,
        {"positions": POS_NP, "inv_freq": np.ones(4)},
        {
            "positions": numpy_data((4,), bad_shape=()),
            "inv_freq": numpy_data((4,), bad_shape=()),
        },
    ),
    (
        rope.angles_torch,
        {"positions": POS_T, "inv_freq": torch.ones(4)},
        {
            "positions": torch_data((4,), bad_shape=(), floating=False, device=False),
            "inv_freq": torch_data((4,), bad_shape=()),
        },
    ),
    *[
        (
            fn,
            {"x": X_NP, "positions": POS_NP},
            {
                "x": numpy_data((4, 8), bad_shape=(8,)),
                "positions": numpy_data((4,), bad_shape=(5,)),
                "inv_freq": numpy_data((4,), bad_shape=(3,)),
                "base": BASE,
                **({"layout": LAYOUT} if fn is rope.apply_rope else {}),
            },
        )
        for fn in (rope.apply_rope, rope.apply_rope_complex)
    ],
    *[
        (
            fn,
            {"x": X_T, "positions": POS_T},
            {
                "x": torch_data((4, 8), bad_shape=(8,), device=False),
                "positions": torch_data((4,), bad_shape=(5,), floating=False),
                "inv_freq": torch_data((4,), bad_shape=(3,)),
                "base": BASE,
                **({"layout": LAYOUT} if fn is rope.apply_rope_torch else {}),
            },
        )
        for fn in (rope.apply_rope_torch, rope.apply_rope_complex_torch)
    ],
    (
        rope.rotation_matrix,
        {"m": 3, "d": 8},
        {"m": REAL, "d": EVEN, "base": BASE, "layout": LAYOUT},
    ),
    (
        rope.relative_upper_bound,
        {"distance": np.arange(3)},
        {
            "distance": numpy_data((3,), bad_shape=(3,))[:-1],  # any shape is fine
            "d": EVEN,
            "base": BASE,
        },
    ),
    (rope.interleaved_to_half_permutation, {"d": 8}, {"d": EVEN}),
    (rope.half_to_interleaved_permutation, {"d": 8}, {"d": EVEN}),
    (
        rope.permute_qk_weight,
        {"w": np.zeros((8, 3)), "n_heads": 2, "perm": np.arange(4)},
        {
            "w": [
                ("str", "abc", TypeError),
                ("list", [[0.0]] * 8, TypeError),
                ("wrong shape", np.zeros((9, 3)), ValueError),
            ],
            "n_heads": POSITIVE_INT,
            "perm": [
                ("repeated", np.array([0, 0, 1, 1]), ValueError),
                ("wrong length", np.arange(5), ValueError),
                ("float dtype", np.arange(4.0), TypeError),
                ("2-D", np.arange(4).reshape(2, 2), ValueError),
                ("str", "abc", TypeError),
            ],
        },
    ),
    (
        rope.RotaryEmbedding,
        {"d": 8},
        {
            "d": EVEN,
            "rotary_dim": [
                *EVEN,
                ("past d", 10, ValueError),
                ("NumPy array", np.array([4]), TypeError),
            ],
            "base": BASE,
            "max_len": POSITIVE_INT,
            "layout": LAYOUT,
            "attention_factor": POSITIVE,
            "inv_freq": [
                ("wrong shape", np.ones(3), ValueError),
                ("2-D", np.ones((1, 4)), ValueError),
                ("str", "abc", TypeError),
                ("int dtype", np.ones(4, dtype=int), TypeError),
            ],
        },
    ),
    (
        rotary_forward,
        {},
        {
            "q": torch_data((4, 8), bad_shape=(4, 6), device=False),
            "k": torch_data((4, 8), bad_shape=(8,), device=False),
            "offset": [*INT, ("float 1.0", 1.0, TypeError)],
            "positions": [
                ("numpy array (mixed)", np.arange(4), TypeError),
                ("list", [0, 1, 2, 3], TypeError),
                ("str", "abc", TypeError),
                ("float dtype", torch.arange(4.0), TypeError),
                ("bool dtype", torch.ones(4, dtype=torch.bool), TypeError),
                ("wrong shape", torch.arange(3), ValueError),
                ("3-D", torch.zeros(2, 1, 4, dtype=torch.long), ValueError),
                ("other device", torch.arange(4, device="meta"), ValueError),
            ],
        },
    ),
    (
        att.attention,
        {"q": Q_NP, "k": K_NP, "v": V_NP},
        {
            "q": numpy_data((3, 8), bad_shape=(8,)),
            "k": numpy_data((5, 8), bad_shape=(5,)),
            "v": numpy_data((5, 4), bad_shape=(4,)),
            "bias": [*numpy_data((3, 5), bad_shape=(4, 4))],
            "causal": BOOL,
            "return_weights": BOOL,
            "scale": POSITIVE,
        },
    ),
    (
        att.attention_torch,
        {"q": Q_T, "k": K_T, "v": V_T},
        {
            "q": torch_data((3, 8), bad_shape=(8,), device=False),
            "k": [
                *torch_data((5, 8), bad_shape=(5,)),
                ("float32", K_T.float(), TypeError),
            ],
            "v": torch_data((5, 4), bad_shape=(4,)),
            "bias": [
                *torch_data((3, 5), bad_shape=(4, 4), floating=False),
                ("float32", torch.zeros(3, 5), TypeError),
            ],
            "causal": BOOL,
            "return_weights": BOOL,
            "scale": POSITIVE,
        },
    ),
    (
        att.self_attention,
        {"x": np.zeros((5, 8)), "w_q": W_NP, "w_k": W_NP, "w_v": W_NP},
        {
            "x": numpy_data((5, 8), bad_shape=(8,)),
            "w_q": numpy_data((8, 4), bad_shape=(6, 4)),
            "w_v": numpy_data((8, 4), bad_shape=(8,)),
            "rotate": [("int", 5, TypeError), ("str", "rope", TypeError)],
            "causal": BOOL,
        },
    ),
    (
        att.self_attention_torch,
        {"x": torch.zeros(5, 8), "w_q": torch.zeros(8, 4), "w_k": torch.zeros(8, 4)}
        | {"w_v": torch.zeros(8, 4)},
        {
            "x": torch_data((5, 8), bad_shape=(8,), device=False),
            "w_k": torch_data((8, 4), bad_shape=(6, 4)),
            "rotate": [("int", 5, TypeError)],
            "causal": BOOL,
        },
    ),
]

CASES = [
    pytest.param(fn, good, arg, value, error, id=f"{fn.__name__}-{arg}-{kind}")
    for fn, good, bad in SWEEP
    for arg, values in bad.items()
    for kind, value, error in values
]


@pytest.mark.parametrize(("fn", "good", "arg", "value", "error"), CASES)
def test_bad_argument_is_rejected_by_name(fn, good, arg, value, error):
    with pytest.raises(error, match=rf"\b{re.escape(arg)}\b"):
        fn(**{**good, arg: value})


@pytest.mark.parametrize(("fn", "good"), [(fn, good) for fn, good, _ in SWEEP])
def test_valid_arguments_pass(fn, good):
    fn(**good)  # the sweep's baseline call is valid, so each failure is the bad value


def test_numpy_scalars_and_0d_tensors_are_numbers_and_keep_numpy_results():
    base, d = torch.tensor(500000.0), np.int64(8)
    theta = rope.inv_freq(d, base)
    assert isinstance(theta, np.ndarray)
    np.testing.assert_array_equal(theta, rope.inv_freq(8, 500000.0))
    out = rope.apply_rope(X_NP + 1, POS_NP, base=base)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, rope.apply_rope(X_NP + 1, POS_NP, base=5e5))
    R = rope.rotation_matrix(torch.tensor(3), d, base=np.float32(100.0))
    assert isinstance(R, np.ndarray) and R.shape == (8, 8)
    bound = rope.relative_upper_bound(np.arange(3), d=d, base=base)
    assert isinstance(bound, np.ndarray)
    module = rope.RotaryEmbedding(d, base=base, attention_factor=np.float32(1.5))
    q, _ = module(X_T + 1, X_T + 1, offset=torch.tensor(3))
    assert q.dtype == torch.float32
