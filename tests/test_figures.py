"""Every figure: deterministic (the served file is drawn again here), its dark
variant the light one recoloured (equal to the figure drawn in the dark theme),
described by alt text. Each served variant is drawn once here: the desktop one in
light, the phone one in dark (drawing is the slow part; both sizes come from the
same code)."""

import io
import re
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from posenc_docs.figures import FIGURES, draw, render
from posenc_docs.figures.spec import SVG_RC, dark_variant


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


def test_dark_variant_swaps_theme_colours_only():
    light = b'<svg><path style="fill: #1F1F1F; stroke: #6b6b6b"/><g fill="#0072b2"/>'
    assert dark_variant(light) == (
        b'<svg><path style="fill: #e6e6e6; stroke: #a0a0a0"/><g fill="#0072b2"/>'
    )


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
