"""Timings: RoPE against a rotate-half baseline and a copy; ALiBi bias construction.

Run ``python -m benchmarks.bench``. Each time is the median of several repeats
after a warm-up, with torch's default thread count. Ratios below 1 mean
faster than the reference they are divided by.
"""

import statistics
import time
from functools import partial

import torch

from posenc_docs.alibi import alibi_bias_torch, alibi_slopes
from posenc_docs.rope import LAYOUTS, apply_rope_torch


def median_ms(fns: dict, repeats: int = 7, warmup: int = 1) -> dict[str, float]:
    """Median wall time in ms of each ``fns[name]()``, after ``warmup`` calls.

    Repeats go round-robin over the functions, so a change in machine load
    affects all of them alike and the ratios stay meaningful.
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: 1e3 * statistics.median(t) for name, t in times.items()}


def rotate_half_baseline(x: torch.Tensor, positions: torch.Tensor, base=10000.0):
    """Straightforward half-layout RoPE: ``x*cos + rotate_half(x)*sin`` with cat."""
    d = x.shape[-1]
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
    freqs = positions.float()[:, None] * inv_freq  # (T, d/2)
    emb = torch.cat([freqs, freqs], dim=-1)  # (T, d)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return x * emb.cos() + torch.cat([-x2, x1], dim=-1) * emb.sin()


def naive_alibi_bias(n_heads: int, q_len: int, k_len: int) -> torch.Tensor:
    """Loop-free causal ALiBi: ``slopes * -(i - j)``, then ``-inf`` where j > i."""
    slopes = torch.as_tensor(alibi_slopes(n_heads), dtype=torch.float32)
    i = torch.arange(k_len - q_len, k_len)[:, None]  # query positions (q, 1)
    j = torch.arange(k_len)[None, :]  # key positions (1, k)
    bias = slopes[:, None, None] * -(i - j)  # (H, q, k)
    return bias.masked_fill(j > i, float("-inf"))


def bench_rope(shape=(4, 16, 2048, 128), repeats: int = 7) -> dict[str, float]:
    """Milliseconds for x.clone(), the baseline and apply_rope in each layout."""
    x = torch.randn(shape)  # (B, H, T, d) float32
    positions = torch.arange(shape[-2])
    fns = {
        "x.clone()": x.clone,
        "rotate-half baseline": lambda: rotate_half_baseline(x, positions),
    }
    for layout in LAYOUTS:
        fns[f"apply_rope[{layout}]"] = partial(
            apply_rope_torch, x, positions, layout=layout
        )
    return median_ms(fns, repeats)


def bench_alibi(n_heads=16, q_len=4096, k_len=4096, repeats: int = 5):
    """Milliseconds for the naive construction and ``alibi_bias_torch``."""
    fns = {
        "naive": partial(naive_alibi_bias, n_heads, q_len, k_len),
        "alibi_bias_torch": partial(alibi_bias_torch, n_heads, q_len, k_len),
    }
    return median_ms(fns, repeats)


def main() -> None:
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, median ms")
    rope = bench_rope()
    print("RoPE on x (4, 16, 2048, 128) float32, CPU")
    base, copy = rope["rotate-half baseline"], rope["x.clone()"]
    for name, ms in rope.items():
        ratios = f"{ms / base:5.2f}x baseline  {ms / copy:5.2f}x clone"
        print(f"  {name:24s} {ms:8.1f} ms  {ratios if 'apply' in name else ''}")
    alibi = bench_alibi()
    print("ALiBi bias (16, 4096, 4096) float32, causal")
    for name, ms in alibi.items():
        print(f"  {name:24s} {ms:8.1f} ms  {ms / alibi['naive']:5.2f}x naive")


if __name__ == "__main__":
    main()
