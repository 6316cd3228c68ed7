"""Learned absolute position embeddings (BERT, GPT-2).

The model keeps a trainable table with one row per position, `max_len` rows
of width `d`, and adds row p to the token vector at position p. The table
is a hard ceiling: there is no row for position `max_len` or beyond, which
is why GPT-2 stops at 1,024 tokens and BERT at 512.
"""

import torch
from torch import nn

from posenc_docs._checks import (
    checked_broadcasts_into,
    checked_computable,
    checked_int,
    checked_integer_dtype,
    checked_real,
    checked_same_device,
    checked_tensor,
)


# --8<-- [start:parameter_count]
def parameter_count(max_len: int, d: int) -> int:
    # --8<-- [end:parameter_count]
    r"""Number of trainable numbers in a learned position table.

    Parameters
    ----------
    max_len : int
        Number of positions (rows).
    d : int
        Model width (row length).

    Returns
    -------
    int
        $\text{max\_len} \cdot d$.

    Notes
    -----
    One row of d numbers per position. GPT-2 small has
    $1024 \cdot 768 = 786{,}432$; BERT-base has $512 \cdot 768 = 393{,}216$.
    """
    # --8<-- [start:parameter_count-body]
    return checked_int("max_len", max_len) * checked_int("d", d)


# --8<-- [end:parameter_count-body]


class _PositionTable(nn.Embedding):
    """`nn.Embedding` whose `reset_parameters` draws rows from N(0, init_std^2):
    a module built on the meta device, then `to_empty` and reset, starts as
    `__init__` made it (nn.Embedding's own reset draws N(0, 1))."""

    def __init__(self, max_len: int, d: int, init_std: float):
        self.init_std = init_std  # first: nn.Embedding.__init__ calls the reset
        super().__init__(max_len, d)

    def reset_parameters(self) -> None:
        super().reset_parameters()  # N(0, 1) first: seeded runs draw as they did
        nn.init.normal_(self.weight, std=self.init_std)


class LearnedPositionalEmbedding(nn.Module):
    r"""Trainable table of `max_len` position vectors, added to the input.

    Parameters
    ----------
    max_len : int
        Number of rows: positions 0..max_len-1 exist, nothing else.
    d : int
        Model width (row length).
    init_std : float, default 0.02
        Rows start as $\mathcal{N}(0, \sigma^2)$ with $\sigma$ = `init_std`, finite
        and >= 0; 0.02 is the
        `initializer_range` of Hugging Face's GPT-2 and BERT configs.

    Notes
    -----
    `forward(x)` returns $x + E_p$ where E is the table and p is
    `offset + t` for the token at index t of `x` (a floating-point tensor of
    shape `(..., T, d)`), or the given `positions` (an integer tensor whose
    shape broadcasts to `x.shape[:-1]`). The output has the dtype of `x`.
    A position outside 0..max_len-1 is an IndexError (naming the ceiling when
    it is too large). The table is `table.weight`, as an `nn.Embedding`'s (a
    GPT-2 `wpe.weight` loads into it); `reset_parameters` draws it again from
    $\mathcal{N}(0, \sigma^2)$, so deferred (meta-device) initialisation keeps
    `init_std`.
    """

    def __init__(self, max_len: int, d: int, *, init_std: float = 0.02):
        super().__init__()
        self.max_len = checked_int("max_len", max_len)
        self.d = checked_int("d", d)
        init_std = checked_real("init_std", init_std, ge=0)
        self.table = _PositionTable(self.max_len, self.d, init_std)  # (max_len, d)

    def reset_parameters(self) -> None:
        r"""Draw the table again from $\mathcal{N}(0, \sigma^2)$, $\sigma$ =
        `init_std` (deferred initialisation)."""
        self.table.reset_parameters()

    def forward(self, x: torch.Tensor, *, offset: int = 0, positions=None):
        """Add the rows for `offset..offset+T-1` (or `positions`) to x.

        Parameters
        ----------
        x : torch.Tensor
            Floating-point input, shape `(..., T, d)`, on the table's device.
        offset : int, default 0
            Position of the first token (>= 0); must be 0 with `positions`.
        positions : torch.Tensor, optional
            Integer positions broadcastable to `x.shape[:-1]`, on x's device,
            instead of `offset + arange(T)`. Their smallest and largest are read
            back to name one past the table: a device sync, and a graph break
            under `torch.compile` (the `offset` path has neither).

        Returns
        -------
        torch.Tensor
            `x` plus the rows, in the dtype of `x`.
        """
        x = checked_tensor("x", x, min_ndim=2, last_dim=self.d)  # (..., T, d)
        checked_computable("x", x)  # x + the encoding is in x's dtype
        checked_same_device("x", x, self.table.weight.device)
        start = checked_int("offset", offset, minimum=0)
        if positions is None:  # the range is known: no values read back
            if x.shape[-2]:
                self._check_range(start, start + x.shape[-2] - 1)
            positions = torch.arange(start, start + x.shape[-2], device=x.device)
        elif start:
            raise ValueError(
                f"offset must be 0 when positions are given, got {offset!r}"
            )
        else:
            positions = checked_tensor(
                "positions", positions, min_ndim=0, floating=False
            )
            checked_same_device("positions", positions, x.device)
            self._check_positions(positions, x.shape[:-1])
        rows = self.table(positions.long())  # positions.shape + (d,)
        return x + rows.to(x.dtype)  # (..., T, d)

    def _check_positions(self, positions: torch.Tensor, batch_shape) -> None:
        checked_integer_dtype("positions", positions)
        checked_broadcasts_into(
            "positions", positions.shape, batch_shape, "x.shape[:-1]"
        )
        if positions.numel():  # given positions are read back, to name a bad one
            wide = positions.double()  # torch has no min or max for uint16/32/64
            self._check_range(int(wide.min()), int(wide.max()))

    def _check_range(self, low: int, high: int) -> None:
        if high >= self.max_len:
            raise IndexError(
                f"the learned table has no row for position {high}: it has "
                f"max_len={self.max_len} rows (positions 0..{self.max_len - 1}), "
                "a hard ceiling on sequence length (GPT-2: 1,024; BERT: 512)"
            )
        if low < 0:
            raise IndexError(f"positions must be >= 0, got {low}")
