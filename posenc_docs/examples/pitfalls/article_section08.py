"""The source article's section 08 listing, as published, with its bugs.

Only one line is changed: the article's ``x1 = x[..., :0::2]`` (a SyntaxError, so
the listing never ran) is deleted. Everything else, including the slopes
2^(-8h/H) for every head count and a bias the docstring says to *subtract*
although it is already negative, is the article's. Not part of the package's
API; the notebook "08 Code: four methods side by side" runs it and shows what it prints.
"""

import torch, math
import torch.nn as nn

# ─────────────────────────────────────────────────────────────────────────
# 1. Sinusoidal Positional Encoding (Vaswani et al. 2017)
# ─────────────────────────────────────────────────────────────────────────
class SinusoidalPE(nn.Module):
    def __init__(self, d_model, max_len=4096):
        super().__init__()
        pe  = torch.zeros(max_len, d_model)
        pos = torch.arange(0, max_len).unsqueeze(1).float()
        div = torch.exp(torch.arange(0, d_model, 2).float()
                        * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(pos * div)    # even dims → sin
        pe[:, 1::2] = torch.cos(pos * div)    # odd  dims → cos
        self.register_buffer('pe', pe.unsqueeze(0))   # (1, max_len, d_model)

    def forward(self, x):
        return x + self.pe[:, :x.size(1)]   # add PE to token embeddings


# ─────────────────────────────────────────────────────────────────────────
# 2. Learned Absolute Positional Encoding (BERT / GPT-2 style)
# ─────────────────────────────────────────────────────────────────────────
class LearnedPE(nn.Module):
    def __init__(self, d_model, max_len=512):
        super().__init__()
        self.pe = nn.Embedding(max_len, d_model)   # fully learnable lookup table

    def forward(self, x):
        B, T, _ = x.shape
        positions = torch.arange(T, device=x.device)   # [0, 1, 2, ..., T-1]
        return x + self.pe(positions)          # add learned PE to token embeddings


# ─────────────────────────────────────────────────────────────────────────
# 3. RoPE — Rotary Position Embedding (Su et al. 2021)
#    Applied to Q and K vectors INSIDE attention — not to the token embedding
# ─────────────────────────────────────────────────────────────────────────
def precompute_rope_freqs(d_k, max_len=4096, base=10000):
    """Precompute cosine and sine tables for RoPE rotation."""
    theta = 1.0 / (base ** (torch.arange(0, d_k, 2).float() / d_k))
    positions = torch.arange(max_len).float()
    angles = torch.outer(positions, theta)          # (max_len, d_k/2)
    freqs_cos = torch.cos(angles)                   # (max_len, d_k/2)
    freqs_sin = torch.sin(angles)                   # (max_len, d_k/2)
    return freqs_cos, freqs_sin

def apply_rope(x, freqs_cos, freqs_sin):
    """
    Apply RoPE rotation to Q or K vectors.
    x: (batch, heads, seq_len, d_k)
    """
    B, H, T, d_k = x.shape
    cos = freqs_cos[:T].unsqueeze(0).unsqueeze(0)   # (1, 1, T, d_k/2)
    sin = freqs_sin[:T].unsqueeze(0).unsqueeze(0)

    # (the article's line `x1 = x[..., :0::2]` is deleted here: a SyntaxError)
    x_r = x.reshape(B, H, T, d_k // 2, 2)         # (B, H, T, d_k/2, 2)
    x_even = x_r[..., 0]                            # (B, H, T, d_k/2)
    x_odd  = x_r[..., 1]

    # Apply 2D rotation: [x_even, x_odd] → [x_even·cos − x_odd·sin, x_even·sin + x_odd·cos]
    rotated_even = x_even * cos - x_odd * sin
    rotated_odd  = x_even * sin + x_odd * cos

    # Interleave back: (B, H, T, d_k/2, 2) → (B, H, T, d_k)
    out = torch.stack([rotated_even, rotated_odd], dim=-1).reshape(B, H, T, d_k)
    return out


# ─────────────────────────────────────────────────────────────────────────
# 4. ALiBi — Attention with Linear Biases (Press et al. 2022)
#    Returns an additive bias matrix to subtract from attention scores
# ─────────────────────────────────────────────────────────────────────────
def build_alibi_bias(n_heads, seq_len):
    """
    Returns (n_heads, seq_len, seq_len) bias matrix.
    Subtract from attention scores before softmax.
    """
    # Head-specific slopes: m_h = 2^(-8h/H) for h = 1 … H
    slopes = torch.pow(2, -torch.arange(1, n_heads + 1).float() * (8 / n_heads))

    # Distance matrix: entry [i,j] = |i − j|
    positions = torch.arange(seq_len)
    distances = (positions.unsqueeze(0) - positions.unsqueeze(1)).abs().float()  # (T, T)

    # Bias = −slope × distance, one per head
    bias = -slopes.view(n_heads, 1, 1) * distances.unsqueeze(0)  # (H, T, T)
    return bias


# ─────────────────────────────────────────────────────────────────────────
# Quick sanity checks
# ─────────────────────────────────────────────────────────────────────────
d_model, seq_len = 64, 8
x = torch.randn(2, seq_len, d_model)   # batch=2

# Sinusoidal
sin_pe = SinusoidalPE(d_model)
out_sin = sin_pe(x)
print(f"Sinusoidal PE output: {out_sin.shape}")
print(f"  PE values differ by position: {not torch.allclose(sin_pe.pe[0,0], sin_pe.pe[0,3])}")

# Learned
learned_pe = LearnedPE(d_model)
out_learned = learned_pe(x)
print(f"Learned PE output:    {out_learned.shape}  ({sum(p.numel() for p in learned_pe.parameters()):,} params)")

# RoPE
cos_f, sin_f = precompute_rope_freqs(d_k=d_model, max_len=128)
q = torch.randn(2, 4, seq_len, d_model)   # (batch, heads, seq, d_k)
q_rotated = apply_rope(q, cos_f, sin_f)
print(f"RoPE Q rotated:       {q_rotated.shape}  (same shape, values rotated)")
print(f"  Rotation changes values: {not torch.allclose(q, q_rotated)}")

# ALiBi
alibi = build_alibi_bias(n_heads=4, seq_len=seq_len)
print(f"ALiBi bias shape:     {alibi.shape}  ← add to attn scores before softmax")
print(f"  Head-0 bias [0→0]: {alibi[0,0,0]:.3f} (same pos, no penalty)")
print(f"  Head-0 bias [0→3]: {alibi[0,0,3]:.3f} (3 apart, penalty applied)")
print(f"  Head-3 bias [0→3]: {alibi[3,0,3]:.3f} (same distance, smaller slope = less penalty)")
