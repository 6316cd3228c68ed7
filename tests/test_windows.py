"""Tests for posenc_docs.windows against Hugging Face masks, configs and caches."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs.windows import (
    layer_types,
    rolling_cache_positions,
    sink_cache_positions,
    sliding_window_mask,
    sliding_window_mask_torch,
)

FAST = settings(max_examples=40, deadline=None)
lengths = st.integers(1, 24).flatmap(lambda k: st.tuples(st.integers(1, k), st.just(k)))


def test_matches_hugging_face_docstring_example():
    # masking_utils.sdpa_mask docstring, sliding_window=3 on 5 tokens
    expected = [
        [1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0],
        [1, 1, 1, 0, 0],
        [0, 1, 1, 1, 0],
        [0, 0, 1, 1, 1],
    ]
    np.testing.assert_array_equal(
        sliding_window_mask(5, 5, 3), np.array(expected, bool)
    )


@pytest.mark.parametrize(
    "q_len, k_len, window", [(5, 5, 3), (1, 9, 4), (3, 10, 4), (6, 6, 1), (4, 7, 50)]
)
def test_equals_hugging_face_sdpa_mask(q_len, k_len, window):
    masking = pytest.importorskip("transformers.masking_utils")
    hf = masking.sdpa_mask(
        batch_size=1,
        q_length=q_len,
        kv_length=k_len,
        q_offset=k_len - q_len,  # the queries are the last q_len positions
        mask_function=masking.sliding_window_causal_mask_function(window),
        allow_is_causal_skip=False,
    )  # (B, 1, q, k)
    np.testing.assert_array_equal(sliding_window_mask(q_len, k_len, window), hf[0, 0])


@FAST
@given(lengths, st.integers(1, 30))
def test_a_window_at_least_the_length_is_the_causal_mask(lk, extra):
    q_len, k_len = lk
    causal = np.tril(np.ones((k_len, k_len), bool))[k_len - q_len :]
    np.testing.assert_array_equal(sliding_window_mask(q_len, k_len, k_len), causal)
    window = k_len + extra
    np.testing.assert_array_equal(sliding_window_mask(q_len, k_len, window), causal)


@FAST
@given(lengths, st.integers(1, 30))
def test_each_query_sees_a_contiguous_run_ending_at_itself(lk, window):
    q_len, k_len = lk
    mask = sliding_window_mask(q_len, k_len, window)
    for r, row in enumerate(mask):
        i = k_len - q_len + r
        seen = np.flatnonzero(row)
        assert seen[-1] == i and len(seen) == min(window, i + 1)
        assert np.all(np.diff(seen) == 1)
    twin = sliding_window_mask_torch(q_len, k_len, window)
    assert twin.dtype == torch.bool
    np.testing.assert_array_equal(twin.numpy(), mask)


@pytest.mark.parametrize("num_layers", [1, 6, 26, 34, 62])
def test_layer_types_equal_gemma_configs(num_layers):
    transformers = pytest.importorskip("transformers")
    gemma2 = transformers.Gemma2Config(num_hidden_layers=num_layers)
    assert layer_types(num_layers, 2) == gemma2.layer_types
    for pattern in (6, 3, 1):
        gemma3 = transformers.Gemma3TextConfig(
            num_hidden_layers=num_layers, sliding_window_pattern=pattern
        )
        assert layer_types(num_layers, pattern) == gemma3.layer_types


def test_gemma3_has_five_local_layers_per_global_one():
    types = layer_types(12, 6)
    assert types[:6] == ["sliding_attention"] * 5 + ["full_attention"]
    assert types[6:] == types[:6]


@pytest.mark.parametrize("window, prefill", [(4, 1), (4, 6), (3, 2), (8, 3)])
def test_rolling_cache_tokens_equal_hugging_face_sliding_window_layer(window, prefill):
    cache_utils = pytest.importorskip("transformers.cache_utils")
    layer = cache_utils.DynamicSlidingWindowLayer(sliding_window=window)

    def step(tokens):  # keys whose one feature is the token index
        keys = torch.tensor(tokens, dtype=torch.float64).view(1, 1, -1, 1)
        returned, _ = layer.update(keys, keys.clone())
        return returned.view(-1).long().numpy()

    step(list(range(prefill)))
    for token in range(prefill, prefill + 12):  # decode one token at a time
        held = step([token])
        tokens, positions = rolling_cache_positions(window, token)
        np.testing.assert_array_equal(held, tokens)
        np.testing.assert_array_equal(positions, tokens)  # RoPE before caching


def test_sink_cache_matches_the_streamingllm_example():
    # Xiao et al. 2023, Section 3.2: cache [0, 1, 2, 3, 6, 7, 8] decoding token 9
    tokens, positions = sink_cache_positions(n_sink=4, window=4, step=9)
    assert tokens.tolist() == [0, 1, 2, 3, 6, 7, 8, 9]
    assert positions.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]


@FAST
@given(st.integers(0, 6), st.integers(1, 20), st.integers(0, 500))
def test_sink_positions_stay_inside_the_cache(n_sink, window, step):
    tokens, positions = sink_cache_positions(n_sink, window, step)
    assert len(tokens) == min(step + 1, n_sink + window)
    assert tokens[-1] == step and np.all(np.diff(tokens) > 0)
    assert positions.tolist() == list(range(len(tokens)))
    assert set(tokens[:n_sink].tolist()) == set(range(min(n_sink, step + 1)))
    if step < n_sink + window:  # cache not full yet: positions are the absolute ones
        np.testing.assert_array_equal(tokens, positions)
    rolling, _ = rolling_cache_positions(window, step)
    assert set(rolling.tolist()) <= set(tokens.tolist())  # sinks only add tokens


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: sliding_window_mask(4, 3, 2), ValueError, "q_len must be <= k_len"),
        (lambda: sliding_window_mask(2, 3, 0), ValueError, "window"),
        (lambda: sliding_window_mask(2, 3, 2.0), TypeError, "window"),
        (lambda: sliding_window_mask_torch(0, 3, 2), ValueError, "q_len"),
        (lambda: sliding_window_mask_torch(2, 3, 2, device="x"), ValueError, "device"),
        (lambda: sliding_window_mask_torch(2, 3, 2, device=3), TypeError, "device"),
        (lambda: layer_types(0, 6), ValueError, "num_layers"),
        (lambda: layer_types(4, True), TypeError, "pattern"),
        (lambda: rolling_cache_positions(4, -1), ValueError, "step"),
        (lambda: sink_cache_positions(-1, 4, 3), ValueError, "n_sink"),
        (lambda: sink_cache_positions(4, 0, 3), ValueError, "window"),
    ],
)
def test_bad_arguments_are_rejected(call, error, match):
    with pytest.raises(error, match=match):
        call()
