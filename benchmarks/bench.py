"""Timings: RoPE against a copy and Hugging Face's rotary code; ALiBi bias construction.

Run ``python -m benchmarks.bench`` from the repository root. Each time is the
median of several repeats after a warm-up, on 2 torch threads, with the
functions timed round-robin in one process so that a change in machine load
affects all of them alike. Ratios below 1 mean faster than the reference. The
"compiled" rows are ``apply_rope_torch`` through ``torch.compile`` (inductor: it
needs a C++ compiler), which fuses the half layout's two passes into one.
"""

import statistics
import time
from functools import partial

import torch

from posenc_docs.alibi import alibi_bias_torch, alibi_slopes
from posenc_docs.rope import LAYOUTS, apply_rope_torch, inv_freq

THREADS = 2


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


def hf_cos_sin(T: int, d: int, base: float = 10000.0):
    """HF LLaMA's precomputed cos/sin, shape (1, T, d): ``emb = cat(freqs, freqs)``."""
    freqs = (
        torch.arange(T).float()[:, None] * torch.from_numpy(inv_freq(d, base)).float()
    )
    emb = torch.cat([freqs, freqs], dim=-1)[None]  # (1, T, d)
    return emb.cos(), emb.sin()


def hf_rope_pair(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
    """HF's ``apply_rotary_pos_emb`` on (q, k) = (x, x): twice one tensor's work."""
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb  # 1.4 s

    return apply_rotary_pos_emb(x, x, cos, sin)


def with_backward(fn, x: torch.Tensor):
    """A callable running ``fn(x)`` and the gradient wrt x for a fixed upstream grad."""
    x = x.detach().requires_grad_()
    grad = torch.randn(x.shape, generator=torch.Generator().manual_seed(0))

    def run():
        out = fn(x)
        outs = out if isinstance(out, tuple) else (out,)
        return torch.autograd.grad(outs, x, [grad] * len(outs))

    return run


def rope_candidates(x: torch.Tensor, compiled: bool = False) -> dict:
    """name -> function of x: clone, ours in each layout, HF on (x, x); with
    ``compiled``, also ours through ``torch.compile`` (inductor, fixed shapes)."""
    T, d = x.shape[-2:]
    positions, (cos, sin) = torch.arange(T), hf_cos_sin(T, d)
    fns = {
        "x.clone()": torch.clone,
        "HF (x, x)": partial(hf_rope_pair, cos=cos, sin=sin),
    }
    for layout in LAYOUTS:
        rope = partial(apply_rope_torch, positions=positions, layout=layout)
        fns[f"apply_rope_torch[{layout}]"] = rope
        if compiled:
            fns[f"compiled [{layout}]"] = torch.compile(rope, dynamic=False)
    return fns


def bench_rope(
    shape=(4, 16, 2048, 128), repeats: int = 7, compiled: bool = False
) -> dict[str, float]:
    """Milliseconds of each candidate, forward ("fwd") and forward+backward ("f+b")."""
    x = torch.randn(shape, generator=torch.Generator().manual_seed(0))  # (B, H, T, d)
    fns = {}
    for name, fn in rope_candidates(x, compiled).items():
        fns[f"{name} fwd"] = partial(fn, x)
        fns[f"{name} f+b"] = with_backward(fn, x)
    return median_ms(fns, repeats)


def bench_half_floor(shape=(4, 16, 2048, 128), repeats: int = 7) -> dict[str, float]:
    """Milliseconds of the two element-wise passes any eager half-layout rotation
    makes at least, beside a clone: no stock op forms ``a cos - b sin`` in one pass
    (two products), and a complex view cannot pair features i and i + d/2.

    ``fresh``: ``x * table`` into a new tensor, the first pass (like a clone, it
    pays for the new memory). ``in place``: ``out.addcmul_(x, table)`` over
    memory already touched, a contiguous second pass at its cheapest.
    """
    x = torch.randn(shape, generator=torch.Generator().manual_seed(0))  # (B, H, T, d)
    table = torch.rand(shape[-2:], generator=torch.Generator().manual_seed(1))
    out = torch.empty_like(x)
    fns = {
        "x.clone()": partial(torch.clone, x),
        "fresh": partial(torch.mul, x, table),
        "in place": partial(out.addcmul_, x, table),
    }
    return median_ms(fns, repeats)


def naive_alibi_bias(n_heads: int, q_len: int, k_len: int) -> torch.Tensor:
    """Loop-free causal ALiBi: ``slopes * -(i - j)``, then ``-inf`` where j > i."""
    slopes = torch.as_tensor(alibi_slopes(n_heads), dtype=torch.float32)
    i = torch.arange(k_len - q_len, k_len)[:, None]  # query positions (q, 1)
    j = torch.arange(k_len)[None, :]  # key positions (1, k)
    bias = slopes[:, None, None] * -(i - j)  # (H, q, k)
    return bias.masked_fill(j > i, float("-inf"))


def bench_alibi(n_heads=16, q_len=4096, k_len=4096, repeats: int = 5):
    """Milliseconds for the naive construction and ``alibi_bias_torch``."""
    fns = {
        "naive": partial(naive_alibi_bias, n_heads, q_len, k_len),
        "alibi_bias_torch": partial(alibi_bias_torch, n_heads, q_len, k_len),
    }
    return median_ms(fns, repeats)


def main() -> None:
    torch.set_num_threads(THREADS)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, median ms")
    rope = bench_rope(compiled=True)  # the warm-up call compiles (about 15 s)
    print("RoPE on x (4, 16, 2048, 128) float32, CPU (HF: half of its (x, x) time)")
    clone = rope["x.clone() fwd"]
    print(f"  {'':34s} {'ms':>8s} {'/clone fwd':>10s} {'/clone same':>11s} {'/HF':>5s}")
    for mode in ("fwd", "f+b"):
        hf = rope[f"HF (x, x) {mode}"] / 2
        names = [key.removesuffix(f" {mode}") for key in rope if key.endswith(mode)]
        for name in names:
            ms = rope[f"{name} {mode}"] / (2 if name.startswith("HF") else 1)
            label = "HF per tensor" if name.startswith("HF") else name
            same = ms / rope[f"x.clone() {mode}"]
            row = f"{ms:8.1f} {ms / clone:10.2f} {same:11.2f} {ms / hf:5.2f}"
            print(f"  {mode} {label:30s} {row}")
    floor = bench_half_floor()
    fresh, in_place, copy = floor["fresh"], floor["in place"], floor["x.clone()"]
    print("Eager half layout's floor: a fresh pass (x * table) and one in place")
    print(f"  {fresh:.1f} + {in_place:.1f} ms = {(fresh + in_place) / copy:.2f}x clone")
    alibi = bench_alibi()
    print("ALiBi bias (16, 4096, 4096) float32, causal")
    for name, ms in alibi.items():
        print(f"  {name:24s} {ms:8.1f} ms  {ms / alibi['naive']:5.2f}x naive")


if __name__ == "__main__":
    main()
