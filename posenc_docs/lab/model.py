"""A tiny decoder-only transformer, one variant per positional scheme.

nanoGPT-style: token embedding, pre-norm blocks (attention, MLP), final norm,
linear head. Attention is `posenc_docs.attention.attention_torch`; the scheme
decides what reaches it:

- ``"none"``: nothing (only the causal mask carries any order information);
- ``"learned"`` / ``"sinusoidal"``: a position vector added to each token;
- ``"rope"``: q and k rotated by `posenc_docs.rope.apply_rope_torch`;
- ``"alibi"``: `posenc_docs.alibi.alibi_bias_torch` added to the logits.
"""

# --8<-- [start:setup]
import torch
from torch import nn

from posenc_docs._checks import checked_choice
from posenc_docs.alibi import alibi_bias_torch
from posenc_docs.attention import attention_torch
from posenc_docs.lab.config import ROPE_BASE, SCHEMES
from posenc_docs.learned import LearnedPositionalEmbedding
from posenc_docs.rope import apply_rope_torch
from posenc_docs.rope import inv_freq as rope_inv_freq
from posenc_docs.sinusoidal import SinusoidalPositionalEncoding

# --8<-- [end:setup]


# --8<-- [start:CausalSelfAttention]
class CausalSelfAttention(nn.Module):
    """Multi-head causal attention; RoPE and ALiBi act inside it."""

    def __init__(self, d_model: int, n_head: int):
        super().__init__()
        self.n_head, self.d_head = n_head, d_model // n_head
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.out = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, rope=None, bias=None):
        B, T, C = x.shape
        heads = self.qkv(x).view(B, T, 3, self.n_head, self.d_head)
        q, k, v = heads.permute(2, 0, 3, 1, 4)  # each (B, H, T, d_head)
        if rope is not None:  # (inv_freq, attention_factor)
            positions = torch.arange(T, device=x.device)
            q = apply_rope_torch(q, positions, inv_freq=rope[0]) * rope[1]
            k = apply_rope_torch(k, positions, inv_freq=rope[0]) * rope[1]
        y = attention_torch(q, k, v, bias=bias, causal=True)  # (B, H, T, d_head)
        return self.out(y.transpose(1, 2).reshape(B, T, C))  # (B, T, C)


# --8<-- [end:CausalSelfAttention]


# --8<-- [start:Block]
class Block(nn.Module):
    """Pre-norm residual block: x + attn(norm(x)), then x + mlp(norm(x))."""

    def __init__(self, d_model: int, n_head: int):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_head)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model)
        )

    def forward(self, x, rope=None, bias=None):
        x = x + self.attn(self.norm1(x), rope, bias)
        return x + self.mlp(self.norm2(x))  # (B, T, C)


# --8<-- [end:Block]


# --8<-- [start:TinyGPT]
class TinyGPT(nn.Module):
    """Decoder-only language model whose only difference is ``scheme``.

    Parameters
    ----------
    scheme : {"none", "learned", "sinusoidal", "rope", "alibi"}
    vocab, d_model, n_head, n_layer : int
        Sizes; the head width is ``d_model / n_head``.
    max_len : int
        Rows of the learned table (the training length); ignored otherwise.

    Notes
    -----
    ``rope_inv_freq`` and ``rope_attention_factor`` may be replaced after
    training (a context-extension method from `posenc_docs.scaling`). They stay
    float32 (``.half()`` leaves them, the rotation runs in float32) and go to
    the activations' device at each call; the ALiBi bias is made there, in the
    activations' dtype.
    """

    def __init__(self, scheme, vocab, d_model, n_head, n_layer, max_len):
        super().__init__()
        self.scheme = checked_choice("scheme", scheme, SCHEMES)
        self.n_head = n_head
        self.embed = nn.Embedding(vocab, d_model)
        self.position = {
            "learned": lambda: LearnedPositionalEmbedding(max_len, d_model),
            "sinusoidal": lambda: SinusoidalPositionalEncoding(d_model),
        }.get(scheme, nn.Identity)()
        self.blocks = nn.ModuleList(Block(d_model, n_head) for _ in range(n_layer))
        self.norm, self.head = nn.LayerNorm(d_model), nn.Linear(d_model, vocab)
        theta = rope_inv_freq(d_model // n_head, ROPE_BASE)  # (d_head / 2,)
        self.rope_inv_freq = torch.from_numpy(theta).float()
        self.rope_attention_factor = 1.0

    def forward(self, tokens):
        T = tokens.shape[1]
        x = self.position(self.embed(tokens))  # (B, T, C)
        rope = bias = None
        if self.scheme == "rope":
            rope = (self.rope_inv_freq.to(x.device), self.rope_attention_factor)
        if self.scheme == "alibi":  # (H, T, T), in the activations' dtype
            bias = alibi_bias_torch(self.n_head, T, T, dtype=x.dtype, device=x.device)
        for block in self.blocks:
            x = block(x, rope, bias)
        return self.head(self.norm(x))  # (B, T, vocab) next-token logits


# --8<-- [end:TinyGPT]
