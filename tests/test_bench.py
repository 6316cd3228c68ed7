"""Keep benchmarks.bench runnable: tiny sizes, and the baselines it times are right."""

import numpy as np
import torch

from benchmarks import bench
from posenc_docs.alibi import alibi_bias_torch
from posenc_docs.rope import LAYOUTS, apply_rope_torch


def test_bench_functions_run_on_tiny_sizes():
    rope = bench.bench_rope(shape=(1, 2, 8, 16), repeats=2)
    assert set(rope) == {"x.clone()", "rotate-half baseline"} | {
        f"apply_rope[{layout}]" for layout in LAYOUTS
    }
    alibi = bench.bench_alibi(n_heads=3, q_len=4, k_len=6, repeats=2)
    assert set(alibi) == {"naive", "alibi_bias_torch"}
    assert all(ms >= 0 for ms in [*rope.values(), *alibi.values()])


def test_baselines_compute_what_they_are_compared_with():
    x = torch.randn(2, 3, 9, 16, generator=torch.Generator().manual_seed(0))
    positions = torch.arange(9)
    torch.testing.assert_close(
        bench.rotate_half_baseline(x, positions),
        apply_rope_torch(x, positions, layout="half"),
    )
    naive = bench.naive_alibi_bias(5, 3, 7)
    torch.testing.assert_close(naive, alibi_bias_torch(5, 3, 7))
    assert np.isneginf(naive[:, 0, -1].numpy()).all()  # causal mask present


def test_median_ms_calls_warmup_plus_repeats():
    calls = {"a": [], "b": []}
    fns = {name: (lambda name=name: calls[name].append(1)) for name in calls}
    times = bench.median_ms(fns, repeats=3, warmup=2)
    assert set(times) == {"a", "b"}
    assert len(calls["a"]) == len(calls["b"]) == 5
