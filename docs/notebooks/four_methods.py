# ---
# jupyter:
#   description: >-
#     Notebook: sinusoidal, learned, RoPE and ALiBi run side by side on one toy
#     batch, each printing what it checks.
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 08 Code: four methods side by side
#
# Sinusoidal encodings, a learned position table, RoPE and ALiBi, all run on the
# same toy batch with the tested functions of `posenc_docs`. Every cell prints
# what it checks, and the site runs this notebook on every build, so the numbers
# below are current. Download it with the link above. To run it yourself,
# install the `posenc_docs` wheel this site serves (its Install page has the
# command), or use a checkout of the site.
#
# The four methods put position in three different places:
#
# - **sinusoidal**: a fixed vector added to each token embedding, once;
# - **learned**: a trained row added to each token embedding, once;
# - **RoPE**: the query and key at position $m$ rotated, pair $i$ by the angle
#   $m\theta_i$, in every attention layer;
# - **ALiBi**: a penalty $-m_h (i - j)$ added to the attention logit of query $i$
#   and key $j$, where $m_h$ is head $h$'s slope, in every layer.

# %%
import numpy as np
import torch

from posenc_docs import alibi, attention, learned, rope, sinusoidal
from posenc_docs.pages import pitfalls

torch.manual_seed(0)
np.set_printoptions(precision=4, suppress=True, linewidth=40)

B, T, d_model = 2, 8, 64  # batch, length, model width
H, d_head = 4, 16  # heads and head width (RoPE, ALiBi)
x = torch.randn(B, T, d_model)  # token embeddings
print("token embeddings x:", tuple(x.shape))

# %% [markdown]
# ## 1. Sinusoidal: a fixed vector added to each token
#
# The module adds row $pos$ of the table to the token at position $pos$. Nothing is
# trained. Vaswani et al. (2017, section 3.5) chose it because $PE(p+k)$ is a
# linear function of $PE(p)$ for any fixed offset $k$, which they *hypothesized*
# would let the model easily learn to attend by relative positions; they also
# expected it might let the model extrapolate to sequences longer than those seen
# in training. Linearity alone does not make the dot product of two encodings
# depend only on their offset. Two more facts do: the map rotates each
# (sin, cos) pair by the angle $k\,\omega_i$, where $\omega_i = 10000^{-2i/d}$ is
# pair $i$'s frequency, and every pair has length 1. So
# $PE(p)\cdot PE(p+k) = \sum_i \cos(k\,\omega_i)$ wherever $p$ is, which the cell
# below checks.

# %%
sin_pe = sinusoidal.SinusoidalPositionalEncoding(d_model)
out = sin_pe(x)
print("output:", tuple(out.shape), "(same as x)")
gap = (out - x - sin_pe.pe[:T]).abs().max()
print(f"max |out - x - PE[:T]| = {gap:.1e} (float32)")

for p in (0, 100, 5_000):
    a = sinusoidal.encode(p, d_model)
    b = sinusoidal.encode(p + 3, d_model)
    print(f"PE({p}) . PE({p + 3}) = {a @ b:.6f}")
closed = sinusoidal.offset_similarity(3, d_model)
print(f"closed form, k = 3:  {closed:.6f}")

# %% [markdown]
# ## 2. Learned: a trained row per position, and a hard ceiling
#
# A learned table is an `nn.Embedding` with one row per position. It can learn any
# pattern, and it has no row for a position it was not built with. Here the
# table has 16 rows; a sequence of 17 tokens has nowhere to look up its last
# position, and the module raises an `IndexError` that names the ceiling (a bare
# `nn.Embedding` raises too on CPU, with "index out of range in self"; on a GPU it
# is usually a device-side assert instead).

# %%
table = learned.LearnedPositionalEmbedding(max_len=16, d=d_model)
print("output:", tuple(table(x).shape))
print("trainable numbers:", learned.parameter_count(16, d_model))

too_long = torch.randn(1, 17, d_model)
try:
    table(too_long)
except IndexError as error:
    print("IndexError:", str(error).split(" (")[0])  # up to its row count

# %% [markdown]
# ## 3. RoPE: rotate queries and keys, leave the values alone
#
# RoPE splits a head's $d$ features into $d/2$ pairs and turns pair $i$ of the token
# at position $m$ by the angle $m\theta_i$, with $\theta_i = 10000^{-2i/d}$. The
# interleaved layout pairs dimensions $(2i, 2i+1)$, as in Meta's LLaMA code and the
# RoFormer paper; the half layout pairs $(i, i + d/2)$, as in Hugging Face's
# `rotate_half`.
# Rotations keep lengths, and a query at $m$ against a key at $n$ sees only the
# difference of their angles, so the score depends on $m - n$. Below, one fixed
# query vector and one fixed key vector are placed at three position pairs with
# the same offset, in both pair layouts.

# %%
q = torch.randn(B, H, T, d_head)  # (B, H, T, d)
k = torch.randn(B, H, T, d_head)
rotary = rope.RotaryEmbedding(d_head, layout="half")
q_rot, k_rot = rotary(q, k)
print("rotated q, k:", tuple(q_rot.shape), tuple(k_rot.shape))
stretch = (q_rot.norm(dim=-1) - q.norm(dim=-1)).abs().max()
print(f"vector lengths change by at most {stretch:.1e}")

q_vec = np.random.default_rng(1).standard_normal(d_head)
k_vec = np.random.default_rng(2).standard_normal(d_head)
for layout in ("interleaved", "half"):
    for m, n in [(5, 2), (105, 102), (10_005, 10_002)]:
        q_m = rope.apply_rope(q_vec[None], [m], layout=layout)
        k_n = rope.apply_rope(k_vec[None], [n], layout=layout)
        score = (q_m @ k_n.T).item()
        print(f"{layout:>11}: m={m:>6}, n={n:>6}: {score:.6f}")

# %% [markdown]
# The two layouts give different scores because they pair different features of
# the same vectors, so they rotate them differently. What matters is that within
# each layout the score is the same at all three position pairs.
#
# Two more checks on the same tensors. Meta's complex-number form of RoPE is the
# interleaved layout, to rounding. And with a KV cache, a new token is rotated
# alone at its true position (`offset = past length`), which must give the same
# vector as rotating the whole sequence.

# %%
positions = torch.arange(T)
as_complex = rope.apply_rope_complex_torch(q, positions)
as_pairs = rope.apply_rope_torch(q, positions, layout="interleaved")
diff = (as_complex - as_pairs).abs().max()
print(f"complex form vs pair form: max diff {diff:.1e}")

last = slice(T - 1, T)
q_last, _ = rotary(q[..., last, :], k[..., last, :], offset=T - 1)
diff = (q_last - q_rot[..., last, :]).abs().max()
print(f"last token alone, offset {T - 1}: max diff {diff:.1e}")

# %% [markdown]
# ## 4. ALiBi: a distance penalty on the logits
#
# ALiBi adds $-m_h (i - j)$ to the scaled logit of query $i$ and key $j \le i$
# in head $h$, and $-\infty$ above the diagonal. The slopes $m_h$ come from the
# paper's reference code. For a head count $n$ that is a power of two they are
# $2^{-8/n}, 2^{-16/n}, \dots, 2^{-8}$; for 8 heads, $1/2, 1/4, \dots, 1/256$. When
# the head count
# is not a power of two, such as 12, the code takes the sequence for the power of
# two below it (8 heads) and appends every other slope of the sequence for twice
# that many (16 heads), as many as are missing:
# $2^{-0.5}, 2^{-1.5}, 2^{-2.5}, 2^{-3.5}$. They sit at the end of the list;
# in value, $2^{-0.5}$ is the largest slope of all and the other three fall
# between the first eight. This batch has 4 heads, whose slopes are
# $2^{-2}, 2^{-4}, 2^{-6}, 2^{-8}$: head 1's penalty grows by 1/4 for each token of
# distance.

# %%
for n_heads in (8, 12, H):
    x_h = -np.log2(alibi.alibi_slopes(n_heads))
    print(f"{n_heads} heads, slopes 2^-x with x =")
    print(" " + np.array2string(np.round(x_h, 1), prefix=" "))

bias = alibi.alibi_bias_torch(H, T, T)  # (H, T, T), causal
print("bias:", tuple(bias.shape))
for h in (0, 3):  # heads 1 and 4, counted from 1 as in the paper
    row = [round(v + 0.0, 4) for v in bias[h, 3, :4].tolist()]
    print(f"head {h + 1}, query 3, keys 0..3:", row)
same = {bias[0, i, i - 2].item() for i in range(2, T)}
print("head 1, every (i, i-2) entry:", same)

# %% [markdown]
# ## All four in one attention call
#
# The same attention function serves all four: the additive encodings change the
# input, RoPE changes $q$ and $k$, ALiBi arrives as `bias`. Each produces a
# $(B, H, T, T)$ matrix of weights whose rows sum to 1, and causal rows never
# look ahead.

# %%
scale = d_model**-0.5
shape = (d_model, H * d_head)
w_q, w_k, w_v = (torch.randn(shape) * scale for _ in range(3))


def heads(t):  # (B, T, H*d) -> (B, H, T, d)
    return t.unflatten(-1, (H, d_head)).transpose(1, 2)


def weights_of(inputs, *, rotate=False, bias=None):
    q, k, v = (heads(inputs @ w) for w in (w_q, w_k, w_v))
    if rotate:
        q, k = rotary(q, k)
    _, weights = attention.attention_torch(
        q, k, v, bias=bias, causal=True, return_weights=True
    )
    return weights  # (B, H, T, T)


cases = {
    "sinusoidal": weights_of(sin_pe(x)),
    "learned": weights_of(table(x)),
    "RoPE": weights_of(x, rotate=True),
    "ALiBi": weights_of(x, bias=bias),
}
print("attention weights: (B, H, T, T) =", tuple(cases["RoPE"].shape))
for name, w in cases.items():
    sums = w.sum(-1)
    ok = torch.allclose(sums, torch.ones_like(sums))
    ahead = w.triu(diagonal=1).abs().max().item()
    print(f"{name:>10}: rows sum to 1: {ok}, largest weight ahead: {ahead}")

# %% [markdown]
# ## The bug in the source listing
#
# The source article's code for this section never prints anything. Its RoPE
# function keeps a half-edited line, `x1 = x[..., :0::2]`, followed by a comment
# that reconsiders it. Python cannot parse `:0::2` as a slice, so the whole file
# is rejected with a `SyntaxError` before its first line runs:

# %%
try:
    compile("x1 = x[..., :0::2]", "<source listing>", "exec")
except SyntaxError as error:
    print(f"SyntaxError: {error.msg}, column {error.offset}")

# %% [markdown]
# Here is what the listing prints once that one line is deleted and nothing else
# changed. The file is `posenc_docs/examples/pitfalls/article_section08.py` in the
# site's repository, labelled as the article's code with its bugs; this cell runs it.

# %%
import runpy
from pathlib import Path

article = Path(pitfalls.__file__).parents[1] / "examples/pitfalls/article_section08.py"
_ = runpy.run_path(str(article))

# %% [markdown]
# (Its learned table has 512 rows of 64 numbers, so 32,768 parameters; the one in
# section 2 has 16 rows.) Every check it prints passes. The output itself shows
# two slips: `-0.000` is a negative zero from negating a zero distance, and
# `[0→3]` is query 0 reading a key three positions *ahead*, which a causal
# decoder never does; the bias is built from $|i - j|$ and penalises the future
# as much as the past.
#
# Two more mistakes remain that the listing's own checks cannot catch, because the
# checks use 4 heads and never compute attention:
#
# - **Slopes.** It computes $2^{-8h/H}$ for heads $h = 1, \dots, H$, whatever
#   $H$. For 4 heads (or 8, 16, ...) that is right; for 12 heads it is not what
#   the ALiBi authors' code uses, and released ALiBi checkpoints (BLOOM, MPT)
#   follow that code.
# - **Sign.** Its docstring says to *subtract* the bias from the scores, but the
#   bias it returns is already negative. Subtracting it rewards distance.
#
# The cells above use `alibi.alibi_slopes`, which follows the reference code, and
# add the (negative) bias. Both mistakes, measured:

# %%
prose = pitfalls.prose_alibi_slopes(12)
code = alibi.alibi_slopes(12)
print("12 heads, 2^(-8h/12):\n", np.round(prose, 4))
print("12 heads, reference code:\n", np.round(code, 4))
print("heads that differ:", int(np.sum(~np.isclose(prose, code))))

zeros = torch.zeros(1, 1, T, d_head)  # equal logits: bias decides
one_head = bias[:1]  # head 1 of the 4-head bias: slope 1/4
for sign, label in [(1, "added"), (-1, "subtracted")]:
    _, w = attention.attention_torch(
        zeros,
        zeros,
        zeros,
        bias=sign * one_head,
        causal=True,
        return_weights=True,
    )
    far, itself = w[0, 0, -1, 0], w[0, 0, -1, -1]
    print(f"{label:>10}: farthest {far:.4f} itself {itself:.4f}")

# %% [markdown]
# With the bias added, the last query's own key gets the most weight and the
# farthest key, 7 tokens back, the least. Subtracting the bias swaps them: the
# farthest key gets the most weight.
