"""Interleaved and half-split RoPE agree only after permuting W_q, W_k rows."""

import numpy as np

from posenc_docs.rope import (
    apply_rope,
    interleaved_to_half_permutation,
    permute_qk_weight,
)

rng = np.random.default_rng(2)
d_model, d, T = 16, 8, 5  # one head of size 8
x = rng.normal(size=(T, d_model))  # token vectors
w_q, w_k = rng.normal(size=(2, d, d_model)) / 4  # nn.Linear layout: (out, in)
positions = np.arange(T)


def scores(w_q, w_k, layout):
    q = apply_rope(x @ w_q.T, positions, layout=layout)  # (T, d)
    k = apply_rope(x @ w_k.T, positions, layout=layout)
    return q @ k.T  # (T, T)


meta = scores(w_q, w_k, "interleaved")  # as trained (RoFormer / GPT-J / Meta)
perm = interleaved_to_half_permutation(d)
print("row order for the half layout:", perm.tolist())
w_q_hf, w_k_hf = (permute_qk_weight(w, 1, perm) for w in (w_q, w_k))
converted = scores(w_q_hf, w_k_hf, "half")  # as Hugging Face LLaMA runs it
forgot = scores(w_q, w_k, "half")  # half layout on unpermuted weights

right, wrong = np.abs(converted - meta).max(), np.abs(forgot - meta).max()
print(f"permuted weights, half layout:   max |score diff| = {right:.1e}")
print(f"unpermuted weights, half layout: max |score diff| = {wrong:.2f}")
print(f"(for scale: largest |score| = {np.abs(meta).max():.2f})")
