"""What every page must be when loaded in Chromium, checked on each load of the
two every-page passes (test_pages_phone_light.py, test_pages_desktop_dark.py, one
file each so two workers run them at once)."""

import re

from tests.conftest import figure_slugs

RAW_TEX = ["$$", "\\frac", "\\sin", "\\(", "\\["]
# Display formulas: [scrolls sideways, takes keyboard focus] for each.
FORMULAS = """() => [...document.querySelectorAll('div.arithmatex')]
  .map(block => [block.scrollWidth > block.clientWidth, block.tabIndex === 0])"""
# Walks the text in place: a clone of the content would fetch every image it holds,
# the hidden fallbacks of mounted widgets included.
VISIBLE_TEXT = """() => {
  const skip = 'pre, code, .katex, script, style, noscript';
  const walk = document.createTreeWalker(
    document.querySelector('.md-content'), NodeFilter.SHOW_TEXT);
  const parts = [];
  while (walk.nextNode()) {
    const parent = walk.currentNode.parentElement;
    if (!parent.closest(skip) && parent.checkVisibility()) {
      parts.push(walk.currentNode.textContent);
    }
  }
  return parts.join(' ');
}"""


# Each figure outside a widget (with ``true``: inside one too, its static fallback),
# scrolled to (lazy images load near the screen) and decoded, as the reader sees it.
SHOWN_FIGURES = """async (withWidgets = false) => {
  const images = [...document.querySelectorAll('picture.posenc-figure img')]
    .filter(img => withWidgets || !img.closest('.posenc-widget'));
  const seen = [];
  for (const img of images) {
    img.scrollIntoView({block: 'center'});
    await img.decode();
    const shown = img.getBoundingClientRect().width;
    seen.push({src: img.currentSrc, naturalWidth: img.naturalWidth,
               alt: img.getAttribute('alt'), width: Number(img.getAttribute('width')),
               shown, visible: img.checkVisibility({visibilityProperty: true})
                 && shown > 0});
  }
  return seen;
}"""

# Fonts: the KaTeX faces the page set text in, and the font files it requested
# that no preload link asked for first (hooks/katex_fonts.py).
FONTS = """async () => {
  await document.fonts.ready;
  const drawn = [...document.fonts].filter(f => f.status === "loaded").length;
  const late = performance.getEntriesByType("resource").filter(
    e => e.name.endsWith(".woff2") && e.initiatorType !== "link");
  const preloaded = document.querySelectorAll('link[rel=preload][as=font]').length;
  return {drawn, preloaded, late: late.map(e => e.name.split("/").pop())};
}"""


def check_fonts(tab, page) -> None:
    """Every font the page's math is set in was preloaded, and no other: a font
    that arrives after the first frame moves the text around it."""
    fonts = tab.page.evaluate(FONTS)
    assert fonts["late"] == [], f"{page}: fonts not preloaded: {fonts['late']}"
    assert fonts["drawn"] == fonts["preloaded"], f"{page}: fonts preloaded: {fonts}"


def check_figures(tab, page, scheme) -> int:
    """Figures show in ``scheme``, sized before load; the other scheme's never load."""
    shown = tab.page.evaluate(SHOWN_FIGURES)
    for image in shown:
        assert image["visible"], f"{page}: figure hidden"
        assert image["src"].endswith(f"-{scheme}.svg"), (page, image)
        assert image["naturalWidth"] > 100, (page, image)
        assert image["alt"], f"{page}: figure without alt text"
        assert image["width"] > 100, f"{page}: figure unsized"
    other = "dark" if scheme == "light" else "light"
    fetched = [u for u in tab.requested if u.endswith(f"-{other}.svg")]
    assert not fetched, f"{page}: fetched the {other} variant: {fetched}"
    hidden = tab.page.locator(".posenc-widget[data-mounted] picture img")
    names = figure_slugs(hidden)
    fetched = [u for u in tab.requested for name in names if f"/{name}-" in u]
    assert not fetched, f"{page}: a mounted widget's fallback was fetched: {fetched}"
    return len(shown)


def check_loaded(tab, page, scheme) -> int:
    """What every loaded page must be: local, quiet, its math and figures drawn."""
    assert tab.blocked == [], f"{page}: requests left 127.0.0.1: {tab.blocked}"
    assert tab.errors == [], f"{page}: {tab.errors}"
    katex_scripts = tab.page.locator('script[src*="katex"]').count()
    assert katex_scripts == 0, f"{page}: ships KaTeX JavaScript"
    raw = [t for t in RAW_TEX if t in tab.page.evaluate(VISIBLE_TEXT)]
    assert not raw, f"{page}: TeX left unrendered: {raw}"
    check_fonts(tab, page)
    return check_figures(tab, page, scheme)


def check_narrow(tab, page) -> None:
    overflow = tab.page.evaluate(
        "document.documentElement.scrollWidth - window.innerWidth"
    )
    assert overflow <= 1, f"{page}: {overflow}px wider than a 390 px screen"


def linear_rgb(colour: str) -> list[float]:
    """Linear-light sRGB channels of an opaque colour, CSS rgb() or #rgb / #rrggbb."""
    if colour.startswith("#"):
        digits = colour[1:] if len(colour) == 7 else "".join(2 * c for c in colour[1:])
        channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    else:
        channels = [int(c) / 255 for c in re.findall(r"\d+", colour)[:3]]
    return [
        c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels
    ]


def contrast(foreground: str, background: str) -> float:
    """WCAG contrast ratio of two opaque colours, CSS rgb() or #rgb / #rrggbb."""

    def luminance(colour):
        red, green, blue = linear_rgb(colour)
        return 0.2126 * red + 0.7152 * green + 0.0722 * blue

    high, low = sorted([luminance(foreground), luminance(background)], reverse=True)
    return (high + 0.05) / (low + 0.05)
