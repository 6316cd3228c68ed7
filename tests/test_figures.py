"""Every figure: drawable in both themes, deterministic, described by alt text."""

import pytest

from posenc_docs.figures import FIGURES, to_svg


def test_slugs_are_unique():
    slugs = [spec.slug for spec in FIGURES]
    assert len(slugs) == len(set(slugs))


@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.slug)
def test_alt_text_describes_the_figure(spec):
    assert len(spec.alt.split()) >= 12, spec.alt


@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.slug)
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_svg_is_deterministic(spec, theme):
    first = to_svg(spec.draw(**spec.params, theme=theme))
    assert first.startswith(b"<?xml") and b"<svg" in first
    assert b"<dc:date>" not in first
    assert first == to_svg(spec.draw(**spec.params, theme=theme))


def test_unknown_theme_is_refused():
    with pytest.raises(ValueError, match="theme"):
        FIGURES[0].draw(**FIGURES[0].params, theme="sepia")
