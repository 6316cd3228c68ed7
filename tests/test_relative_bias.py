"""Tests for posenc_docs.relative_bias (T5's bucketed relative position bias).

References: Hugging Face's ``T5Attention._relative_position_bucket`` (a staticmethod)
and ``T5Attention.compute_bias``, called directly; a scalar loop written here from
the Mesh TensorFlow description; and the bucket boundaries of T5's own config.
"""

import math

import mpmath
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs.attention import attention_torch
from posenc_docs.pages import part3_relative
from posenc_docs.relative_bias import (
    t5_bias,
    t5_bias_torch,
    t5_relative_position_bucket,
    t5_relative_position_bucket_torch,
)

FAST = settings(max_examples=40, deadline=None)
GRID = np.arange(-1000, 1001)
CONFIGS = [(32, 128), (16, 64), (64, 256), (8, 20), (32, 100), (128, 1024), (6, 5)]


def hf_bucket(rel, bidirectional, num_buckets, max_distance):
    from transformers.models.t5.modeling_t5 import T5Attention  # not at collection

    bucket = T5Attention._relative_position_bucket
    rel = torch.as_tensor(rel)
    kwargs = {"num_buckets": num_buckets, "max_distance": max_distance}
    return bucket(rel, bidirectional=bidirectional, **kwargs).numpy()


def scalar_bucket(rel: int, bidirectional: bool, num_buckets: int, max_distance: int):
    """One distance at a time, from the Mesh TensorFlow docstring, in plain math."""
    n = num_buckets // 2 if bidirectional else num_buckets
    side = n if bidirectional and rel > 0 else 0
    r = abs(rel) if bidirectional else max(-rel, 0)
    exact = n // 2
    if r < exact:
        return side + r
    log_steps = math.log(r / exact) / math.log(max_distance / exact) * (n - exact)
    return side + min(n - 1, exact + int(log_steps))


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), CONFIGS)
def test_equals_hugging_face_on_a_grid(bidirectional, num_buckets, max_distance):
    ours = t5_relative_position_bucket(
        GRID,
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )
    theirs = hf_bucket(GRID, bidirectional, num_buckets, max_distance)
    np.testing.assert_array_equal(ours, theirs)
    twin = t5_relative_position_bucket_torch(
        torch.from_numpy(GRID),
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )
    np.testing.assert_array_equal(twin.numpy(), ours)


def test_hugging_face_float32_log_rounds_one_bucket_up_at_a_near_integer():
    # 29 + ln(119/29)/ln(282/29)*29 = 46.99999995... (mpmath): bucket 46 + 58.
    # HF's float32 log gives 47 there; the float64 reference keeps 46.
    ours = t5_relative_position_bucket(np.array([119]), num_buckets=116,
                                       max_distance=282)  # fmt: skip
    assert ours[0] == 58 + 46 == scalar_bucket(119, True, 116, 282)
    assert hf_bucket(np.array([119]), True, 116, 282)[0] == 58 + 47
    # the page's numbers: the index before the floor, and HF's bucket
    index = part3_relative.index_before_floor(119, num_buckets=116, max_distance=282)
    with mpmath.workdps(30):
        exact = (
            29
            + mpmath.log(mpmath.mpf(119) / 29) / mpmath.log(282 / mpmath.mpf(29)) * 29
        )
    assert index == pytest.approx(float(exact), abs=1e-12)
    assert f"{index:.8f}" == "46.99999995"
    hf = part3_relative.float32_log_bucket(119, num_buckets=116, max_distance=282)
    assert hf == 47 == hf_bucket(np.array([-119]), True, 116, 282)[0]  # the past
    past = t5_relative_position_bucket(-119, num_buckets=116, max_distance=282)
    assert past == 46 == scalar_bucket(-119, True, 116, 282)


def test_hugging_face_float32_log_rounds_one_bucket_down_at_an_integer():
    # 24 + ln(54/24)/ln(81/24)*24 = 24 + 24 ln(1.5^2)/ln(1.5^3) = 40 exactly; HF's
    # float32 log lands just below 40 and floors to 39.
    ours = t5_relative_position_bucket(np.array([54]), num_buckets=96, max_distance=81)
    assert ours[0] == 48 + 40 == scalar_bucket(54, True, 96, 81)
    assert hf_bucket(np.array([54]), True, 96, 81)[0] == 48 + 39
    assert part3_relative.index_before_floor(54, num_buckets=96, max_distance=81) == 40
    hf = part3_relative.float32_log_bucket(54, num_buckets=96, max_distance=81)
    assert hf == 39 == hf_bucket(np.array([-54]), True, 96, 81)[0]  # the past
    past = t5_relative_position_bucket(-54, num_buckets=96, max_distance=81)
    assert past == 40 == scalar_bucket(-54, True, 96, 81)


@pytest.mark.parametrize(("num_buckets", "max_distance"), CONFIGS)
def test_the_pages_float32_bucket_is_hugging_faces(num_buckets, max_distance):
    """part3_relative.float32_log_bucket, which the page quotes as Hugging Face's,
    equals it for every key before the query past the exact buckets, on a grid."""
    back = np.arange(num_buckets // 4, 1001)  # distances past the exact buckets
    theirs = hf_bucket(-back, True, num_buckets, max_distance)
    ours = [
        part3_relative.float32_log_bucket(
            int(r), num_buckets=num_buckets, max_distance=max_distance
        )
        for r in back
    ]
    assert ours == theirs.tolist()


def test_a_key_one_ahead_skips_the_first_bucket_of_the_upper_half():
    """Distance 0 counts as the past: bucket n/2 is never used (Hugging Face too)."""
    grid = np.arange(-3000, 3001)
    for n in (8, 32, 64):
        unused = set(range(n)) - set(hf_bucket(grid, True, n, 128).tolist())
        assert unused == {n // 2}
        ours = t5_relative_position_bucket(grid, num_buckets=n, max_distance=128)
        assert set(range(n)) - set(ours.tolist()) == {n // 2}


def test_t5_default_boundaries():
    """T5 (32 buckets, 128): exact below 8, log bins, 15 from 128 on; +16 ahead."""
    b = t5_relative_position_bucket(np.array([0, -7, -8, -11, -12, -127, -128, -9999]))
    assert b.tolist() == [0, 7, 8, 8, 9, 15, 15, 15]
    ahead = t5_relative_position_bucket(np.array([1, 7, 8, 128, 9999]))
    assert ahead.tolist() == [17, 23, 24, 31, 31]


@FAST
@given(
    rel=st.integers(-5000, 5000),
    bidirectional=st.booleans(),
    per_side=st.integers(2, 64),
    extra=st.integers(1, 500),
)
def test_matches_the_scalar_loop(rel, bidirectional, per_side, extra):
    num_buckets = 2 * per_side if bidirectional else per_side
    max_distance = per_side // 2 + extra
    ours = t5_relative_position_bucket(
        np.array(rel),
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )
    assert int(ours) == scalar_bucket(rel, bidirectional, num_buckets, max_distance)


@FAST
@given(
    bidirectional=st.booleans(),
    per_side=st.integers(2, 64),
    extra=st.integers(1, 500),
)
def test_buckets_are_in_range_and_monotone_in_distance(bidirectional, per_side, extra):
    num_buckets = 2 * per_side if bidirectional else per_side
    kwargs = {"num_buckets": num_buckets, "max_distance": per_side // 2 + extra}
    past = t5_relative_position_bucket(
        -np.arange(3000), bidirectional=bidirectional, **kwargs
    )
    assert past.min() >= 0 and past.max() < num_buckets
    assert np.all(np.diff(past) >= 0)  # farther back: same or later bucket
    assert past[-1] == per_side - 1  # beyond max_distance: the last bucket
    if bidirectional:
        ahead = t5_relative_position_bucket(np.arange(1, 3000), **kwargs)
        assert np.all(np.diff(ahead) >= 0) and ahead.max() < num_buckets
        np.testing.assert_array_equal(ahead, past[1:] + per_side)  # mirrored


def test_causal_buckets_hide_the_future_in_bucket_zero():
    b = t5_relative_position_bucket(np.arange(0, 50), bidirectional=False)
    assert np.all(b == 0)


def test_bias_equals_hugging_face_compute_bias():
    from transformers import T5Config
    from transformers.models.t5.modeling_t5 import T5Attention

    config = T5Config(
        d_model=16, d_kv=4, num_heads=4, relative_attention_num_buckets=32
    )
    for is_decoder in (False, True):
        config.is_decoder = is_decoder
        layer = T5Attention(config, has_relative_attention_bias=True, layer_idx=0)
        table = layer.relative_attention_bias.weight.detach().double()  # (32, 4)
        for q_len, k_len in ((40, 40), (1, 300), (5, 200)):
            past = k_len - q_len
            theirs = layer.compute_bias(q_len, k_len, past_seen_tokens=past)[0]
            kwargs = {"bidirectional": not is_decoder, "max_distance": 128}
            ours = t5_bias(table.numpy(), q_len, k_len, **kwargs)
            np.testing.assert_allclose(ours, theirs.detach().double().numpy())
            twin = t5_bias_torch(table, q_len, k_len, **kwargs)
            np.testing.assert_allclose(twin.numpy(), ours)


def test_an_integer_table_is_data_like_any_numpy_reference_takes():
    """The policy: NumPy references take integer arrays and compute in float64
    (an int table was refused as not floating)."""
    table = np.arange(64).reshape(32, 2)  # (num_buckets, n_heads)
    got = t5_bias(table, 3, 5)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, t5_bias(table.astype(np.float64), 3, 5))


def test_bias_torch_gradcheck():
    table = torch.randn(8, 3, dtype=torch.float64, requires_grad=True)
    for bidirectional in (True, False):  # encoder and decoder buckets
        assert torch.autograd.gradcheck(
            lambda t, b=bidirectional: t5_bias_torch(
                t, 6, 9, bidirectional=b, max_distance=10
            ),
            (table,),
        )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_buckets": 31}, ValueError, "num_buckets"),  # odd, bidirectional
        ({"num_buckets": 2}, ValueError, "num_buckets"),
        ({"num_buckets": 32.0}, TypeError, "num_buckets"),
        ({"num_buckets": True}, TypeError, "num_buckets"),
        ({"max_distance": 8}, ValueError, "max_distance"),  # not beyond exact range
        ({"max_distance": 0}, ValueError, "max_distance"),
        ({"bidirectional": False, "num_buckets": 1}, ValueError, "num_buckets"),
        ({"bidirectional": 1}, TypeError, "bidirectional"),
    ],
)
def test_bad_config_is_rejected(kwargs, error, match):
    with pytest.raises(error, match=match):
        t5_relative_position_bucket(np.arange(3), **kwargs)
    with pytest.raises(error, match=match):
        t5_relative_position_bucket_torch(torch.arange(3), **kwargs)


def test_bad_positions_and_tables_are_rejected():
    with pytest.raises(TypeError, match="integer dtype"):
        t5_relative_position_bucket(np.arange(3.0))
    with pytest.raises(TypeError, match="real numbers, got dtype torch.bool"):
        t5_relative_position_bucket_torch(torch.tensor([True, False]))
    with pytest.raises(TypeError, match="torch.Tensor"):
        t5_relative_position_bucket(torch.arange(3))
    with pytest.raises(TypeError, match="torch.Tensor"):
        t5_relative_position_bucket_torch(np.arange(3))
    with pytest.raises(ValueError, match="num_buckets, n_heads"):
        t5_bias(np.zeros(32), 4, 4)
    with pytest.raises(ValueError, match="q_len"):
        t5_bias_torch(torch.zeros(32, 2), 0, 4)
    with pytest.raises(ValueError, match="q_len must be <= k_len"):
        t5_bias(np.zeros((32, 2)), 5, 4)
    for bias in (t5_bias, t5_bias_torch):  # the count comes from the table
        table = np.zeros((31, 2)) if bias is t5_bias else torch.zeros(31, 2)
        with pytest.raises(ValueError, match=r"table\.shape\[0\] must be an even"):
            bias(table, 3, 3)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint32])
@pytest.mark.parametrize("bidirectional", [True, False])
def test_narrow_and_unsigned_integers_bucket_as_int64(dtype, bidirectional):
    """-uint8 wraps and abs(int8(-128)) stays negative unless widened first."""
    info = np.iinfo(dtype)
    rel = np.arange(max(info.min, -300), min(info.max, 300) + 1)
    kwargs = {"bidirectional": bidirectional}
    want = t5_relative_position_bucket(rel.astype(np.int64), **kwargs)
    got = t5_relative_position_bucket(rel.astype(dtype), **kwargs)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int64


def test_t5_attention_is_attention_with_scale_1_and_the_bias():
    """t5_bias's Notes: T5 adds its bias to unscaled logits, so `scale=1.0`.
    HF's T5Attention layer, its own projections around attention_torch."""
    from transformers import T5Config
    from transformers.models.t5.modeling_t5 import T5Attention

    torch.manual_seed(0)
    config = T5Config(
        d_model=16, d_kv=4, num_heads=4, relative_attention_num_buckets=32
    )
    layer = T5Attention(config, has_relative_attention_bias=True, layer_idx=0).eval()
    x = torch.randn(2, 7, 16)  # (B, T, d_model)
    theirs = layer(x)[0]

    def heads(t):  # (B, T, H * d) -> (B, H, T, d)
        return t.view(2, 7, 4, 4).transpose(1, 2)

    table = layer.relative_attention_bias.weight
    bias = t5_bias_torch(table, 7, 7, bidirectional=True, max_distance=128)
    for scale, close in ((1.0, True), (None, False)):  # None: 1/sqrt(d), not T5's
        out = attention_torch(
            heads(layer.q(x)), heads(layer.k(x)), heads(layer.v(x)), bias=bias,
            scale=scale,
        )  # fmt: skip
        ours = layer.o(out.transpose(1, 2).reshape(2, 7, 16))
        assert torch.allclose(ours, theirs, atol=1e-6) == close
