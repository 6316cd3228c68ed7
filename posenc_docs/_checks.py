"""The package's one set of argument checks (the policy is in `posenc_docs`).

Each check takes the argument's name and value, returns the value in its canonical
type, or raises `TypeError` (wrong kind) / `ValueError` (wrong range or shape)
with a message that names the argument and repeats the value it got. Numbers may be
Python numbers, NumPy scalars or 0-d tensors; `bool` and strings never count as
numbers. Tensor and array *values* are never scanned: only shape, dtype, device.
`work_dtype` is the one rule for the dtype the torch twins compute in.
"""

import math
import numbers
import operator
from collections.abc import Mapping

import numpy as np
import torch

_INT64_MAX = 2**63 - 1  # widths, lengths and offsets are int64 in NumPy and torch


def _scalar(name: str, value):
    """A 0-d tensor or 0-d array as a Python number; anything else unchanged (a
    meta tensor has no value, so it stays a tensor and is refused by name). A
    0-d tensor that requires grad is refused: read as a number, it would not train."""
    if isinstance(value, torch.Tensor) and value.ndim == 0 and value.requires_grad:
        raise TypeError(
            f"{name} is read as a number, so a tensor that requires grad would not "
            f"be trained; pass it detached or as a float, got {value!r}"
        )
    if isinstance(value, torch.Tensor) and value.is_meta:
        return value
    if isinstance(value, torch.Tensor | np.ndarray) and value.ndim == 0:
        return value.item()
    return value


def checked_int(name: str, value, minimum: int = 1) -> int:
    """`value` as an int >= `minimum` that an int64 holds; floats (even 4.0) are
    rejected. While torch.compile or torch.export traces, the int64 bound is
    left to torch: a traced int may be a symbolic size, which the bound would
    narrow (dynamo shows it as an int, so it cannot be told from a constant)."""
    kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
    value = _scalar(name, value)
    if isinstance(value, bool | np.bool_ | torch.Tensor | np.ndarray):
        raise TypeError(f"{name} must be {kind}, got {value!r}")
    if isinstance(value, int | torch.SymInt):  # symbolic under torch.compile and
        as_int = value  # torch.export: index() would fix it to its example value
    else:
        try:
            as_int = operator.index(value)
        except TypeError:
            raise TypeError(f"{name} must be {kind}, got {value!r}") from None
    if as_int < minimum:
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    traced = isinstance(as_int, torch.SymInt) or torch.compiler.is_compiling()
    if not traced and as_int > _INT64_MAX:  # e.g. 2**63: NumPy and torch overflow
        # (not while traced: a guard n <= 2**63 - 1 would narrow a dynamic size)
        raise ValueError(f"{name} must be <= 2**63 - 1 (int64), got {value!r}")
    return as_int


def checked_int_list(name: str, values, minimum: int = 0) -> list[int]:
    """`values` (a sequence or 1-D array, not a string or a dict) as a list of
    ints, each >= `minimum`."""
    ndim = getattr(values, "ndim", 1)  # a 0-d array or tensor has no items
    if (
        isinstance(values, str | bytes | Mapping)
        or ndim == 0
        or not hasattr(values, "__len__")
    ):
        raise TypeError(f"{name} must be a list of integers, got {values!r}")
    if ndim > 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(values.shape)}")
    return [checked_int(f"{name}[{k}]", v, minimum) for k, v in enumerate(values)]


def checked_query_len(q_len, k_len) -> tuple[int, int]:
    """`q_len` and `k_len` as positive ints with `q_len <= k_len`: the queries are
    the last `q_len` of the `k_len` keys."""
    q_len, k_len = checked_int("q_len", q_len), checked_int("k_len", k_len)
    if q_len > k_len:
        raise ValueError(
            f"q_len must be <= k_len (queries are the last q_len of the keys), "
            f"got q_len={q_len}, k_len={k_len}"
        )
    return q_len, k_len


def checked_even(name: str, value, minimum: int = 2) -> int:
    """`value` as an even int >= `minimum` (a rotary or model width)."""
    as_int = checked_int(name, value, minimum)
    if as_int % 2:
        raise ValueError(f"{name} must be an even integer >= {minimum}, got {value!r}")
    return as_int


def _is_finite(x: float) -> bool:
    """math.isfinite in comparisons, which torch.compile traces for a symbolic
    float (with dynamic=True a float argument is one; isfinite broke the graph)."""
    return -math.inf < x < math.inf  # False for NaN too


def checked_real(name: str, value, *, gt=None, ge=None, le=None) -> float:
    """`value` as a finite float with `value > gt`, `>= ge` and `<= le`."""
    value = _scalar(name, value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    try:
        as_float = float(value)
    except OverflowError:  # an int past float's range, e.g. 10**400
        as_float = math.inf
    if not _is_finite(as_float):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if gt is not None and not as_float > gt:
        raise ValueError(f"{name} must be > {gt}, got {value!r}")
    if ge is not None and not as_float >= ge:
        raise ValueError(f"{name} must be >= {ge}, got {value!r}")
    if le is not None and not as_float <= le:
        raise ValueError(f"{name} must be <= {le}, got {value!r}")
    return as_float


def checked_bool(name: str, value) -> bool:
    """`value` if it is a bool (Python or NumPy); 0, 1 and strings are rejected."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def checked_choice(name: str, value, choices):
    """`value` if it is one of `choices` (compared by equality, strings only)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def checked_float_dtype(name: str, dtype) -> torch.dtype:
    """A torch floating-point dtype of 16 bits or more (`torch.float32`,
    `torch.bfloat16`, ...): torch has no arithmetic for the 8-bit ones."""
    if not isinstance(dtype, torch.dtype) or not _computes(dtype):
        raise TypeError(
            f"{name} must be a floating-point torch.dtype of 16 bits or more, "
            f"got {dtype!r}"
        )
    return dtype


def _computes(dtype: torch.dtype) -> bool:
    """A floating dtype torch does arithmetic in: not float8 (1 byte) or smaller."""
    return dtype.is_floating_point and dtype.itemsize >= 2


def checked_device(name: str, device):
    """`device` as a `torch.device`, or None (torch's default device)."""
    if device is None:
        return None
    if not isinstance(device, str | torch.device) or isinstance(device, bool):
        raise TypeError(f"{name} must be a torch.device, a str or None, got {device!r}")
    try:
        as_device = torch.device(device)
        torch.empty(0, device=as_device)  # "cuda" on a CPU build, "hpu" without
        # its module: each fails here
    except (RuntimeError, AssertionError, NotImplementedError, ImportError):
        raise ValueError(
            f"{name} must name a torch device this build can use, got {device!r}"
        ) from None
    return as_device


def checked_tensor(
    name: str, x, *, min_ndim: int = 1, last_dim=None, floating=True, ndim=None
):
    """`x` if it is a torch tensor of at least `min_ndim` dims (exactly `ndim`, if
    given); float8 passes (see `checked_computable`).

    As in `checked_array`, booleans and complex numbers are not numbers.
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype == torch.bool or x.is_complex():
        raise TypeError(f"{name} must hold real numbers, got dtype {x.dtype}")
    return _checked_shape(
        name, x, min_ndim, last_dim, floating, x.is_floating_point(), ndim
    )


def checked_positions(name: str, positions, **shape) -> torch.Tensor:
    """A position tensor as `checked_tensor` checks it (integer or floating), but
    not in a float narrower than float32: it has rounded the positions already,
    past the last integer it holds exactly (bf16: 256, so 257 reads as 256), and
    no later upcast restores them."""
    positions = checked_tensor(name, positions, floating=False, **shape)
    if positions.is_floating_point() and positions.dtype.itemsize < 4:
        exact = round(2 / torch.finfo(positions.dtype).eps)
        raise TypeError(
            f"{name} must be integers, float32 or float64, got dtype "
            f"{positions.dtype}, exact only up to {exact}"
        )
    return positions


def checked_frequencies(name: str, theta, **shape) -> torch.Tensor:
    """A frequency tensor as `checked_tensor` checks it, float8 refused: its angles
    failed in torch's type promotion, or (where a cast came first) were formed from
    frequencies rounded by up to a factor of 2 (0.001 to 0.00195)."""
    return checked_computable(name, checked_tensor(name, theta, **shape))


def checked_array(
    name: str, x, *, min_ndim: int = 1, last_dim=None, floating=True, ndim=None
):
    """`x` as a NumPy array of at least `min_ndim` dims (exactly `ndim`, if given);
    tensors are rejected.

    A 0-d tensor counts as a number. Booleans, strings and ragged lists are not
    numbers (`TypeError`).
    """
    x = _scalar(name, x)
    if isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a NumPy array, got a torch.Tensor")
    if isinstance(x, str | bytes):
        raise TypeError(f"{name} must be a NumPy array, got {type(x).__name__}")
    try:
        x = np.asarray(x)
    except ValueError:
        raise TypeError(f"{name} must be a rectangular array, got {x!r}") from None
    if x.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold numbers, got dtype {x.dtype}")
    is_float = x.dtype.kind == "f"
    return _checked_shape(name, x, min_ndim, last_dim, floating, is_float, ndim)


def checked_computable(name: str, x: torch.Tensor) -> torch.Tensor:
    """`x` if torch does arithmetic in its dtype: for functions that compute in
    x's dtype (a rotation computes in float32 and only casts back to float8)."""
    if x.is_floating_point() and not _computes(x.dtype):
        raise TypeError(f"{name} must be 16-bit floats or wider, got dtype {x.dtype}")
    return x


def _checked_shape(name, x, min_ndim, last_dim, floating, is_float, ndim=None):
    if floating and not is_float:
        raise TypeError(f"{name} must have a floating dtype, got {x.dtype}")
    if x.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dims, got shape {tuple(x.shape)}"
        )
    if last_dim is not None and x.shape[-1] != last_dim:
        raise ValueError(
            f"{name} must have last dim {last_dim}, got shape {tuple(x.shape)}"
        )
    if ndim is not None and x.ndim != ndim:
        dims = "be 1-D" if ndim == 1 else f"have {ndim} dims"
        raise ValueError(f"{name} must {dims}, got shape {tuple(x.shape)}")
    return x


def checked_indices(name: str, values, length: int, n: int) -> np.ndarray:
    """`values` as a 1-D integer array of `length` entries, each one of 0..n-1."""
    values = checked_array(name, values, ndim=1, last_dim=length, floating=False)
    if values.dtype.kind not in "iu":
        raise TypeError(f"{name} must be a 1-D integer array, got {values.tolist()}")
    if length and not 0 <= values.min() <= values.max() < n:
        raise ValueError(
            f"{name} must hold indices from 0 to {n - 1}, got {values.tolist()}"
        )
    return values


def checked_permutation(name: str, perm, n: int) -> np.ndarray:
    """`perm` as an int array holding each of 0..n-1 exactly once."""
    if isinstance(perm, torch.Tensor) and perm.is_meta:  # no values to check
        raise ValueError(f"{name} must hold values, got a tensor on the meta device")
    values = np.asarray(perm.detach().cpu() if isinstance(perm, torch.Tensor) else perm)
    if values.dtype.kind not in "iu":
        raise TypeError(f"{name} must be a 1-D integer permutation, got {perm!r}")
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {values.shape}")
    if values.shape[0] != n or not np.array_equal(np.sort(values), np.arange(n)):
        raise ValueError(f"{name} must be a permutation of 0..{n - 1}, got {perm!r}")
    return values


def checked_same_device(name: str, x: torch.Tensor, device) -> torch.Tensor:
    """`x` if it lives on `device` (the device of the tensor it goes with)."""
    if x.device != device:
        raise ValueError(f"{name} must be on device {device}, got {x.device}")
    return x


def checked_same_dtype(name: str, x, dtype, owner: str):
    """`x` if its dtype is `dtype`, the dtype of the tensor named `owner`."""
    if x.dtype != dtype:
        raise TypeError(f"{name} must have {owner}'s dtype {dtype}, got {x.dtype}")
    return x


def broadcast_shapes(*shapes) -> tuple:
    """The shapes' broadcast shape, or ValueError. Sizes are compared, not read as
    ints (as `np.broadcast_shapes` does), so torch.export keeps a symbolic size."""
    try:
        return tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError as error:
        raise ValueError(str(error)) from None


def checked_broadcasts_into(name: str, shape, target, what: str) -> None:
    """Refuse a `shape` that does not broadcast to `target` (described by `what`)
    or would enlarge it: (7, T, T) against (T, T) would silently add a dim."""
    shape, target = tuple(shape), tuple(target)
    try:
        fits = broadcast_shapes(shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{name} must broadcast to {what} {target}, got shape {shape}")


def work_dtype(*tensors: torch.Tensor) -> torch.dtype:
    """The dtype torch twins compute in: float64 if any of `tensors` is float64,
    else float32 (bf16 and fp16 inputs are never computed in)."""
    wide = any(t.dtype == torch.float64 for t in tensors)
    return torch.float64 if wide else torch.float32


def checked_integer_dtype(name: str, x):
    """`x` (array or tensor) if its dtype is a signed or unsigned integer."""
    if isinstance(x, torch.Tensor):
        ok = not x.is_floating_point() and not x.is_complex() and x.dtype != torch.bool
    else:
        ok = x.dtype.kind in "iu"
    if not ok:
        raise TypeError(f"{name} must have an integer dtype, got {x.dtype}")
    return x


def checked_position_dims(name: str, lead: tuple, x_shape: tuple, hint: str) -> None:
    """Refuse positions whose leading dims `lead` are fewer than x's (other than
    1s): aligned right, HF's per-sequence (B, T) would pair with (B, H, T, d)'s H."""
    x_lead = tuple(x_shape[:-2])
    if 0 < len(lead) < len(x_lead) and any(n != 1 for n in lead):
        raise ValueError(
            f"{name} has leading dims {tuple(lead)}, fewer than x of shape "
            f"{tuple(x_shape)}, so they would pair with x's last ones (for "
            f"(B, H, T, d) pass {hint})"
        )
