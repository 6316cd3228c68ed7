"""How pages write numbers and tables: one formatter each, for macros and tests."""

MINUS = "\N{MINUS SIGN}"


def fixed(value, places: int = 2) -> str:
    """``value`` to ``places`` decimals, thousands separated, with a true minus."""
    return f"{float(value):,.{places}f}".replace("-", MINUS)


def count(value) -> str:
    """``value`` rounded to a whole number, with thousands separators."""
    return f"{round(float(value)):,}".replace("-", MINUS)


def markdown_table(header, rows, align: str = "---:") -> str:
    """A Markdown table: header row, alignment row, one line per row."""
    lines = ["| " + " | ".join(map(str, header)) + " |"]
    lines.append("|" + f"{align}|" * len(header))
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return "\n".join(lines)


def percent(fraction, places: int = 2) -> str:
    """``fraction`` as a percentage (without the sign): 0.0123 -> "1.23"."""
    return fixed(100 * float(fraction), places)


def mantissa(value, power: int, places: int = 1) -> str:
    """The number written before ``x 10^power``: ``value / 10**power``."""
    return fixed(float(value) / 10.0**power, places)
