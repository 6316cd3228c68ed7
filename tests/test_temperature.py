"""Tests for posenc_docs.temperature against Hugging Face and Qwen's published code."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs.temperature import (
    llama4_attention_scale,
    llama4_attention_scale_torch,
    nope_layers,
    qwen_logn_scale,
    qwen_logn_scale_torch,
    yarn_logit_scale,
    yarn_logit_scale_torch,
)

FAST = settings(max_examples=40, deadline=None)
positions = st.lists(st.integers(0, 200_000), min_size=1, max_size=20).map(np.array)


def hf_llama4_query_scale(T, past, floor_scale, attn_scale, use_rope):
    """Run HF's Llama4TextAttention with q_proj = identity and read the queries
    it hands to the attention function: their ratio to the inputs is the scale."""
    modeling = pytest.importorskip("transformers.models.llama4.modeling_llama4")
    from transformers import Llama4TextConfig
    from transformers.cache_utils import DynamicCache

    config = Llama4TextConfig(
        hidden_size=8, num_attention_heads=1, num_key_value_heads=1, head_dim=8,
        num_hidden_layers=1, no_rope_layers=[int(use_rope)], floor_scale=floor_scale,
        attn_scale=attn_scale, use_qk_norm=False, attention_chunk_size=None,
    )  # fmt: skip
    config._attn_implementation = "eager"
    attention = modeling.Llama4TextAttention(config, layer_idx=0).double()
    with torch.no_grad():
        attention.q_proj.weight.copy_(torch.eye(8))
    seen = {}

    def capture(module, query, key, value, *args, **kwargs):
        seen["query"] = query  # (B, H, T, d)
        return torch.zeros(1, T, 1, 8, dtype=query.dtype), None

    cache = DynamicCache(config=config)
    if past:  # fill the cache with `past` tokens first
        cache.update(torch.zeros(1, 1, past, 8), torch.zeros(1, 1, past, 8), 0)
    hidden = torch.rand(1, T, 8, dtype=torch.float64) + 0.5
    rope = torch.ones(1, T, 4, dtype=torch.complex128)  # identity rotation
    original = modeling.eager_attention_forward
    modeling.eager_attention_forward = capture
    try:
        attention(hidden, rope, None, cache=cache)
    finally:
        modeling.eager_attention_forward = original
    return (seen["query"][0, 0] / hidden[0]).mean(-1).detach().numpy()  # (T,)


@pytest.mark.parametrize("past", [0, 5])
def test_llama4_scale_equals_hugging_face_attention(past):
    T, F, a = 40, 8, 0.1
    hf = hf_llama4_query_scale(T, past, F, a, use_rope=False)
    ours = llama4_attention_scale(
        np.arange(past, past + T), floor_scale=F, attn_scale=a
    )
    np.testing.assert_allclose(ours, hf, rtol=1e-6)
    assert hf.max() > 1.15  # the staircase did step
    rope_layer = hf_llama4_query_scale(T, past, F, a, use_rope=True)
    np.testing.assert_allclose(rope_layer, 1.0, rtol=1e-6)  # RoPE layers: no scale


def test_llama4_scale_steps_every_floor_scale_tokens():
    scale = llama4_attention_scale(np.array([0, 8190, 8191, 16382, 16383]))
    np.testing.assert_allclose(
        scale,
        [1, 1, 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(3)],
    )


def qwen_logn_list(seq_length, size=32767):
    """Qwen-7B modeling_qwen.py: logn_list, written out as published."""
    return [
        math.log(i, seq_length) if i > seq_length else 1 for i in range(1, size + 1)
    ]


@pytest.mark.parametrize("seq_length", [8192, 2048])
def test_qwen_logn_equals_the_published_list(seq_length):
    p = np.arange(32767)  # the published table covers positions 0..32766
    ours = qwen_logn_scale(p, seq_length=seq_length)
    np.testing.assert_allclose(ours, qwen_logn_list(seq_length), rtol=1e-13)
    assert ours[seq_length - 1] == 1.0 and ours[seq_length] > 1.0


def test_yarn_scale_equals_hugging_face_attention_factor():
    pytest.importorskip("transformers")
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    L = 4096
    for factor in (2.0, 4.0, 16.0):
        config = LlamaConfig(
            hidden_size=256, num_attention_heads=4, head_dim=64,
            max_position_embeddings=int(factor * L), rope_theta=1e4,
            rope_scaling={"rope_type": "yarn", "factor": factor,
                          "original_max_position_embeddings": L},
        )  # fmt: skip
        _, g = ROPE_INIT_FUNCTIONS["yarn"](config, None)
        p = int(factor * L) - 1  # the position whose length is factor * L
        ours = yarn_logit_scale([p], original_max_position_embeddings=L)
        assert ours[0] == pytest.approx(g**2, rel=1e-12)  # cos and sin both times g


def test_yarn_logit_scale_takes_mscale_0_as_yarn_mscale_does():
    """mscale >= 0 in both (0: no temperature), as in scaling.yarn_mscale."""
    p = np.array([100, 40_000])
    for scale in (yarn_logit_scale, yarn_logit_scale_torch):
        positions = p if scale is yarn_logit_scale else torch.from_numpy(p)
        tau = scale(positions, original_max_position_embeddings=4096, mscale=0.0)
        np.testing.assert_array_equal(np.asarray(tau), [1.0, 1.0])
        with pytest.raises(ValueError, match="mscale"):
            scale(positions, original_max_position_embeddings=4096, mscale=-1.0)


def test_a_scalar_position_gives_a_numpy_float64_from_all_three():
    """As their Returns say: a 0-d array from qwen_logn_scale was not (np.where
    keeps 0-d); log_2048(5001) = 1.11709."""
    for rule, value in [
        (qwen_logn_scale(5000, seq_length=2048), math.log(5001) / math.log(2048)),
        (llama4_attention_scale(5000, floor_scale=2048), None),
        (yarn_logit_scale(5000, original_max_position_embeddings=2048), None),
    ]:
        assert type(rule) is np.float64
        assert value is None or rule == pytest.approx(value, rel=1e-15)


@FAST
@given(positions)
def test_all_three_are_one_inside_training_and_grow_after(p):
    L = 8192
    rules = [
        llama4_attention_scale(p, floor_scale=L),
        qwen_logn_scale(p, seq_length=L),
        yarn_logit_scale(p, original_max_position_embeddings=L),
    ]
    inside = p + 1 < L
    for tau in rules:
        np.testing.assert_array_equal(tau[inside], 1.0)
        assert np.all(tau >= 1.0)
        order = np.argsort(p, kind="stable")
        assert np.all(np.diff(tau[order]) >= -1e-15)  # non-decreasing in p


@FAST
@given(positions)
def test_torch_twins_equal_numpy(p):
    t = torch.tensor(p, dtype=torch.float64)
    pairs = [
        (llama4_attention_scale(p), llama4_attention_scale_torch(t)),
        (qwen_logn_scale(p), qwen_logn_scale_torch(t)),
        (
            yarn_logit_scale(p, original_max_position_embeddings=4096),
            yarn_logit_scale_torch(t, original_max_position_embeddings=4096),
        ),
    ]
    for ours, twin in pairs:
        assert twin.dtype == torch.float64
        np.testing.assert_allclose(twin.numpy(), ours, rtol=1e-12)
    as_int = qwen_logn_scale_torch(torch.tensor(p))
    assert as_int.dtype == torch.float32


def test_gradcheck_in_the_position():
    # positions between the Llama 4 steps, so the staircase is locally flat
    p = torch.tensor(
        [9000.5, 20000.25, 50000.75], dtype=torch.float64, requires_grad=True
    )
    assert torch.autograd.gradcheck(lambda p: qwen_logn_scale_torch(p), (p,))
    assert torch.autograd.gradcheck(
        lambda p: yarn_logit_scale_torch(p, original_max_position_embeddings=4096), (p,)
    )
    assert torch.autograd.gradcheck(lambda p: llama4_attention_scale_torch(p), (p,))


@pytest.mark.parametrize("num_layers, interval", [(48, 4), (16, 4), (10, 3), (5, 1)])
def test_nope_layers_equal_hugging_face_llama4_config(num_layers, interval):
    pytest.importorskip("transformers")
    from transformers import Llama4TextConfig

    config = Llama4TextConfig(
        num_hidden_layers=num_layers, no_rope_layer_interval=interval
    )
    theirs = [layer for layer, uses in enumerate(config.no_rope_layers) if not uses]
    assert nope_layers(num_layers, no_rope_layer_interval=interval) == theirs
    explicit = [1, 0, 0, 1, 1][: min(5, num_layers)] + [1] * max(0, num_layers - 5)
    config = Llama4TextConfig(num_hidden_layers=num_layers, no_rope_layers=explicit)
    theirs = [layer for layer, uses in enumerate(config.no_rope_layers) if not uses]
    assert nope_layers(num_layers, no_rope_layers=explicit) == theirs


def test_nope_layers_default_is_every_fourth():
    assert nope_layers(48) == list(range(3, 48, 4))
    assert nope_layers(4, no_rope_layers=[]) == [3]  # empty list: the default


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: llama4_attention_scale([1], floor_scale=0), ValueError, "floor_scale"),
        (lambda: llama4_attention_scale([1], attn_scale=-1), ValueError, "attn_scale"),
        (lambda: qwen_logn_scale([1], seq_length=1), ValueError, "seq_length"),
        (lambda: qwen_logn_scale(["a"]), TypeError, "positions"),
        (lambda: qwen_logn_scale_torch([1.0]), TypeError, "positions"),
        (
            lambda: yarn_logit_scale([1], original_max_position_embeddings=0.5),
            TypeError,
            "original_max_position_embeddings",
        ),
        (lambda: nope_layers(4, no_rope_layers=[1, 2, 1, 1]), ValueError, "0/1"),
        (lambda: nope_layers(4, no_rope_layers=[1, 1]), ValueError, "4 flags"),
        (lambda: nope_layers(2, no_rope_layers=[1, 0, 1, 0]), ValueError, "2 flags"),
        (lambda: nope_layers(4, no_rope_layer_interval=0), ValueError, "interval"),
        (lambda: nope_layers(4, no_rope_layers=5), TypeError, "no_rope_layers"),
        (lambda: nope_layers(4, no_rope_layers="1101"), TypeError, "no_rope_layers"),
    ],
)
def test_bad_arguments_are_rejected(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_nope_layers_reads_flags_from_a_list_an_array_or_a_tensor():
    flags = [1, 1, 0, 1, 0, 0]
    want = nope_layers(6, no_rope_layers=flags)
    assert want == [2, 4, 5]  # the 0 flags, by hand
    assert nope_layers(6, no_rope_layers=np.array(flags)) == want
    assert nope_layers(6, no_rope_layers=torch.tensor(flags)) == want
    assert nope_layers(6, no_rope_layers=np.array([], dtype=int)) == nope_layers(6)


@FAST
@given(
    positions,
    st.integers(1, 20_000),
    st.floats(0, 2),
    st.integers(2, 50_000),
    st.floats(0, 4),
)
def test_every_rule_follows_its_arguments_as_a_scalar_loop_does(
    p, floor_scale, attn_scale, length, mscale
):
    """Each rule and its torch twin at non-default arguments, against the formulas
    written out position by position: the twins were compared with NumPy only at
    the defaults, so a twin that ignored F, a, L or mscale passed (a mutation
    audit). Qwen's n is the query's 1-based position, as in its model code."""
    t = torch.tensor(p, dtype=torch.float64)
    llama4 = [1 + attn_scale * math.log(1 + (q + 1) // floor_scale) for q in p]
    qwen = [math.log(q + 1) / math.log(length) if q + 1 > length else 1.0 for q in p]
    yarn = [(0.1 * mscale * math.log(max(1.0, (q + 1) / length)) + 1) ** 2 for q in p]
    rules = {
        "llama4": (llama4, llama4_attention_scale, llama4_attention_scale_torch,
                   {"floor_scale": floor_scale, "attn_scale": attn_scale}),
        "qwen": (qwen, qwen_logn_scale, qwen_logn_scale_torch,
                 {"seq_length": length}),
        "yarn": (yarn, yarn_logit_scale, yarn_logit_scale_torch,
                 {"original_max_position_embeddings": length, "mscale": mscale}),
    }  # fmt: skip
    for name, (expected, rule, twin, kwargs) in rules.items():
        np.testing.assert_allclose(
            rule(p, **kwargs), expected, rtol=1e-12, err_msg=name
        )
        got = twin(t, **kwargs).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=name)


def test_gradcheck_at_non_default_arguments():
    p = torch.tensor([900.5, 3000.25, 70000.75], dtype=torch.float64)
    p.requires_grad_()
    yarn = {"original_max_position_embeddings": 700, "mscale": 2.0}
    for fn, kwargs in [(qwen_logn_scale_torch, {"seq_length": 512}),
                       (yarn_logit_scale_torch, yarn)]:  # fmt: skip
        assert torch.autograd.gradcheck(lambda q, fn=fn, kw=kwargs: fn(q, **kw), (p,))
