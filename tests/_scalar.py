"""Reference rotations written as scalar loops, for tests at non-default bases."""

import math


def rotated_row(row, angles, layout="half"):
    """One row with pair i turned by angles[i]: pair i is (row[i], row[i + n]) in
    the half layout, (row[2i], row[2i + 1]) interleaved; features past the pairs
    pass through."""
    out, n = [float(v) for v in row], len(angles)
    for i, angle in enumerate(angles):
        first, second = (i, i + n) if layout == "half" else (2 * i, 2 * i + 1)
        a, b = out[first], out[second]
        out[first] = a * math.cos(angle) - b * math.sin(angle)
        out[second] = b * math.cos(angle) + a * math.sin(angle)
    return out


def frequencies(width, base):
    """base^(-2i/width) for the width/2 pairs of a rotated width."""
    return [base ** (-2 * i / width) for i in range(width // 2)]
