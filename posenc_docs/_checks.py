"""Argument checks shared by the scheme modules."""

import operator


def checked_int(name: str, value, minimum: int = 1) -> int:
    """Return ``value`` as an int, or raise naming ``name`` if not >= minimum."""
    kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
    if isinstance(value, bool):
        raise TypeError(f"{name} must be {kind}, got {value!r}")
    try:
        as_int = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be {kind}, got {value!r}") from None
    if as_int < minimum:
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return as_int
