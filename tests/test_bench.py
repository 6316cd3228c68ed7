"""Keep benchmarks.bench runnable: tiny sizes, and what it times computes the same."""

import numpy as np
import torch

from benchmarks import bench
from posenc_docs.alibi import alibi_bias_torch
from posenc_docs.rope import LAYOUTS, apply_rope, apply_rope_torch


def test_bench_functions_run_on_tiny_sizes():
    rope = bench.bench_rope(shape=(1, 2, 8, 16), repeats=2)
    names = {"x.clone()", "HF (x, x)"} | {f"apply_rope_torch[{lt}]" for lt in LAYOUTS}
    assert set(rope) == {f"{n} {mode}" for n in names for mode in ("fwd", "f+b")}
    alibi = bench.bench_alibi(n_heads=3, q_len=4, k_len=6, repeats=2)
    assert set(alibi) == {"naive", "alibi_bias_torch"}
    assert all(ms >= 0 for ms in [*rope.values(), *alibi.values()])


def test_half_floor_times_its_two_passes_and_a_clone():
    floor = bench.bench_half_floor(shape=(1, 2, 8, 16), repeats=2)
    assert set(floor) == {"x.clone()", "fresh", "in place"}
    assert all(ms >= 0 for ms in floor.values())


def test_hf_rotation_is_ours_in_the_half_layout():
    x = torch.randn(2, 3, 9, 16, generator=torch.Generator().manual_seed(0))
    cos, sin = bench.hf_cos_sin(9, 16)
    q_hf, k_hf = bench.hf_rope_pair(x, cos, sin)
    ours = apply_rope_torch(x, torch.arange(9), layout="half")
    torch.testing.assert_close(q_hf, ours)
    torch.testing.assert_close(k_hf, ours)
    reference = apply_rope(x.double().numpy(), np.arange(9), layout="half")
    np.testing.assert_allclose(q_hf.double().numpy(), reference, atol=1e-5)


def test_with_backward_returns_the_transposed_rotation_of_the_grad():
    x = torch.randn(1, 2, 5, 8, dtype=torch.float64)
    for layout in LAYOUTS:
        fn = bench.rope_candidates(x)[f"apply_rope_torch[{layout}]"]
        (grad_x,) = bench.with_backward(fn, x)()
        grad = torch.randn(x.shape, generator=torch.Generator().manual_seed(0))
        back = apply_rope(grad.double().numpy(), -np.arange(5), layout=layout)
        np.testing.assert_allclose(grad_x.numpy(), back, atol=1e-6)


def test_naive_alibi_is_the_library_bias():
    naive = bench.naive_alibi_bias(5, 3, 7)
    torch.testing.assert_close(naive, alibi_bias_torch(5, 3, 7))
    assert np.isneginf(naive[:, 0, -1].numpy()).all()  # causal mask present


def test_median_ms_calls_warmup_plus_repeats():
    calls = {"a": [], "b": []}
    fns = {name: (lambda name=name: calls[name].append(1)) for name in calls}
    times = bench.median_ms(fns, repeats=3, warmup=2)
    assert set(times) == {"a", "b"}
    assert len(calls["a"]) == len(calls["b"]) == 5
