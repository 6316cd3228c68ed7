"""Every figure: deterministic (the served file is drawn again here), its dark
variant the light one recoloured (equal to the figure drawn in the dark theme),
described by alt text. Each served variant is drawn once here: the desktop one in
light, the phone one in dark (drawing is the slow part; both sizes come from the
same code)."""

import io
import re
from itertools import combinations
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib import colormaps
from matplotlib.colors import to_hex, to_rgba

from posenc_docs.figures import FIGURES, draw, render
from posenc_docs.figures.spec import (
    DATA_COLOURS,
    PAGE_BACKGROUNDS,
    SVG_RC,
    THEMES,
    _wrapped,
    dark_variant,
)
from posenc_docs.figures.style import CELL_INKS, data_colour, ink_on, themed
from tests.page_checks import contrast, linear_rgb


def test_slugs_are_unique():
    slugs = [spec.slug for spec in FIGURES]
    assert len(slugs) == len(set(slugs))


@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.slug)
def test_alt_text_describes_the_figure(spec):
    assert len(spec.alt.split()) >= 12, spec.alt


def same_up_to_id_names(svg: bytes) -> str:
    """The SVG with each id, and each reference to it, renamed in order of use."""
    text, names = svg.decode(), {}
    for name in re.findall(r'\bid="([^"]+)"', text):
        names.setdefault(name, f"id{len(names)}")
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    return pattern.sub(lambda match: names[match[0]], text) if names else text


def saved_by_savefig_alone(slug: str, theme: str, phone: bool) -> bytes:
    """The figure as matplotlib's savefig writes it, which lays a figure out and
    draws it twice where `render` does each once."""
    fig = draw(slug, theme, phone)
    buffer = io.BytesIO()
    with plt.rc_context(SVG_RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return buffer.getvalue()


@pytest.mark.build
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.slug)
def test_served_svg_is_deterministic_and_its_dark_variant_is_the_dark_drawing(
    spec, phone, site_dir
):
    """The build's figure (drawn by `render` in the build's process) is the figure
    savefig writes here (desktop), and the dark file it serves is that figure
    recoloured, equal to the figure drawn in the dark theme (phone)."""
    served = site_dir / "figures" / f"{spec.slug}{'-phone' if phone else ''}"
    light = Path(f"{served}-light.svg").read_bytes()
    assert light.startswith(b"<?xml") and b"<svg" in light
    assert b"<dc:date>" not in light
    dark = Path(f"{served}-dark.svg").read_bytes()
    assert dark == dark_variant(light)
    if phone:
        drawn_dark = render(spec.slug, "dark", phone)  # what the build no longer draws
        assert same_up_to_id_names(dark) == same_up_to_id_names(drawn_dark)
    else:
        assert light == saved_by_savefig_alone(spec.slug, "light", phone)  # again


def test_dark_variant_swaps_theme_and_data_colours_in_one_pass():
    light = b'<svg><path style="fill: #1F1F1F; stroke: #6b6b6b"/><g fill="#0072b2"/>'
    light += b'<path style="stroke: #7a4a00"/><path style="stroke: #262626"/>'
    light += b'<g fill="#3a3a98"/><g fill="#009e73"/>'  # indigo: to blue, not on
    assert dark_variant(light) == (
        b'<svg><path style="fill: #e6e6e6; stroke: #a0a0a0"/><g fill="#56b4e9"/>'
        b'<path style="stroke: #e69f00"/><path style="stroke: #f0e442"/>'
        b'<g fill="#0072b2"/><g fill="#009e73"/>'
    )


def test_data_colours_come_from_the_theme_in_use():
    with themed("light"):
        assert data_colour(1) == "#7A4A00"
    with themed("dark"):
        assert data_colour(9) == "#E69F00"  # k mod 8
    with pytest.raises(RuntimeError, match="themed"):
        data_colour(1)  # matplotlib's own cycle: its orange, in no theme


@given(st.tuples(*[st.integers(0, 255)] * 3))
def test_ink_on_a_cell_has_4_5_to_1_on_any_colour(rgb):
    cell = "#{:02x}{:02x}{:02x}".format(*rgb)
    assert contrast(ink_on(to_rgba(cell)), cell) >= 4.5


@pytest.mark.parametrize("cmap", ["RdBu_r", "cividis", "Blues_r", "viridis_r"])
def test_ink_on_is_the_better_of_black_and_white_on_the_colour_maps(cmap):
    for cell in map(to_hex, colormaps[cmap](np.linspace(0, 1, 257))):
        best = max(CELL_INKS, key=lambda ink: contrast(ink, cell))
        assert ink_on(to_rgba(cell)) == best, cell


@pytest.mark.parametrize("theme", THEMES)
def test_every_data_colour_has_3_to_1_contrast_on_its_page(theme):
    """WCAG 1.4.11: a line or marker needs 3:1 against what it is drawn on.
    Okabe & Ito's orange, sky blue and yellow have 2.3, 2.3 and 1.3 on white."""
    page = PAGE_BACKGROUNDS[theme]
    ratios = {c: round(contrast(c, page), 2) for c in DATA_COLOURS[theme]}
    assert min(ratios.values()) >= 3, ratios


# Machado, Oliveira & Fernandes (2009), severity 1, on linear RGB.
CVD = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
    "typical": np.eye(3),
}  # fmt: skip


def cielab(hex_colour: str, seen_as) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour as a viewer with matrix ``seen_as`` sees it."""
    linear = np.clip(np.asarray(seen_as) @ linear_rgb(hex_colour), 0, 1)
    to_xyz = [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
              [0.0193, 0.1192, 0.9505]]  # fmt: skip
    xyz = np.array(to_xyz) @ linear / [0.95047, 1.0, 1.08883]
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("vision", CVD)
def test_data_colours_stay_apart_under_colour_vision_deficiencies(theme, vision):
    """Every two data colours differ by a CIELAB distance of at least 15 as each
    common deficiency sees them (Okabe & Ito's closest pair, green and sky blue
    under tritanopia, is 16.1 apart)."""
    lab = {c: cielab(c, CVD[vision]) for c in DATA_COLOURS[theme]}
    gaps = {(a, b): np.linalg.norm(lab[a] - lab[b]) for a, b in combinations(lab, 2)}
    closest = min(gaps, key=gaps.get)
    assert gaps[closest] >= 15, (closest, round(gaps[closest], 1))


@pytest.mark.build
def test_each_served_figure_uses_only_its_own_themes_data_colours(site_dir):
    light_only = set(DATA_COLOURS["light"]) - set(DATA_COLOURS["dark"])
    dark_only = set(DATA_COLOURS["dark"]) - set(DATA_COLOURS["light"])
    wrong = {}
    for svg in sorted((site_dir / "figures").glob("*.svg")):
        other = dark_only if svg.stem.endswith("-light") else light_only
        used = set(re.findall(r"#[0-9a-f]{6}\b", svg.read_text().lower()))
        if found := used & {c.lower() for c in other}:
            wrong[svg.name] = sorted(found)
    assert len(list((site_dir / "figures").glob("*.svg"))) > 100
    assert wrong == {}


def test_the_id_renaming_keeps_structure():
    a = b'<svg><path id="m1"/><use href="#m1"/><use href="#m1"/></svg>'
    b = b'<svg><path id="m2"/><use href="#m2"/><use href="#m2"/></svg>'
    c = b'<svg><path id="m2"/><use href="#m2"/><use href="#m3"/></svg>'
    assert same_up_to_id_names(a) == same_up_to_id_names(b)
    assert same_up_to_id_names(a) != same_up_to_id_names(c)


def test_unknown_theme_is_refused():
    with pytest.raises(ValueError, match="theme"):
        FIGURES[0].draw(**FIGURES[0].params, theme="sepia")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_finetune_accuracy_ranges_are_bars_set_apart(phone):
    """The fine-tune figure's accuracy panel shows each model's seed range as a bar
    (six filled bands overlapped into one murky area): no band there, and no two
    bars at one x. The perplexity panel keeps its narrow bands."""
    from matplotlib.collections import LineCollection, PolyCollection

    fig = draw("lab-finetune", "light", phone)
    perplexity, accuracy = fig.axes[:2]
    bars = [
        segment[0][0]
        for collection in accuracy.collections
        if isinstance(collection, LineCollection)
        for segment in collection.get_segments()
    ]
    assert not any(isinstance(c, PolyCollection) for c in accuracy.collections)
    assert len(bars) == 6 * 5 and len({round(x, 6) for x in bars}) == len(bars)
    assert sum(isinstance(c, PolyCollection) for c in perplexity.collections) == 6
    plt.close(fig)


@given(st.integers(60, 400))
def test_phone_text_wraps_at_spaces_but_not_in_math_or_around_an_equals_sign(width):
    """A phone figure's title wrapped at any width keeps "d = 64" and each $math$
    on one line (a phone showed "..., d =" over "64"), and a number or a lone
    capital with the word before it ("fine-tuned at 4" / "L", "RoPE + Llama" /
    "3.1", "(16, 24," / "24)"), and loses no word."""
    title = (
        "Trained on positions 0 to 2,047 with $R_m$ at $m$ = 3, d = 64 and L ≈ 8k;"
        " RoPE + Llama 3.1, fine-tuned at 4 L, sections (16, 24, 24)"
    )
    lines = _wrapped(title, width, 9).split("\n")
    assert " ".join(lines) == title
    for line in lines:
        assert line.count("$") % 2 == 0, lines
        assert not re.search(r"(^[=≈])|([=≈]$)", line), lines
        assert not re.match(r"(\d|[A-Z]\b)", line), lines  # "3.1", "L", "24)"
