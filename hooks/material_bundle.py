"""MkDocs hook: the built site's copies of Material's bundle and stylesheet, patched.

Each patch replaces one exact expression of Material 9.8.2's minified bundle or
stylesheet; if an expression is not there exactly once (another Material version),
the build stops and names the patch to update. Most of them spare Chromium a
restyle of every element of the page, which on a long page of formulas costs more
than anything else the page does while it loads.

- **Search index on first focus.** Material fetches the whole search index on
  every first page load; patched, it fetches it when the reader first focuses the
  search form (`hooks/search_index.py` makes the index itself lighter).
- **Palette switching mark only on a switch.** Material marks the body
  `data-md-color-switching` whenever it applies a palette, on page load too, and
  removes the mark a frame later; its stylesheet matches
  `[data-md-color-switching] *` (no transitions while colours change), so each
  mark and unmark made Chromium restyle every element of the page. Patched, the
  body is marked only when the colour scheme really changes, as when the reader
  flips the toggle. In the "(prefers-color-scheme)" mode the scheme is resolved
  after this test, so there the body is still marked, as before.
- **Colour-scheme meta written only on a change.** Material appends an empty
  `<meta name="color-scheme">` and then fills it in; Chromium restyles every
  element each time that meta changes. Patched, it takes the meta the page's head
  already holds (`overrides/main.html` fills it in before the body is parsed) and
  writes it only when the scheme differs, as when the reader flips the toggle.
- **Table cells' edge margins without a class test above them.** Material's
  `table:not([class]) td > :first-child` (and `:last-child`) make any change of
  any element's class attribute restyle everything inside that element, since
  Chromium cannot tell which descendants such a selector reaches; Material's own
  start-up changes the root's classes. Patched, the rules match the cells of every
  table, which on this site is the same: no table here has a class (a build test
  checks).
"""

from pathlib import Path

from mkdocs.exceptions import PluginError

PATCHES = {
    "search index on first focus": (
        # The index observable, built eagerly at start-up...
        'zi=document.forms.namedItem("search")?ks():tt',
        # ... and after the first focus inside the search form: fromEvent (h),
        # take(1) (Ee), switchMap (b), shareReplay(1) (Z).
        'zi=document.forms.namedItem("search")?h(document.forms.namedItem("search"),'
        '"focusin").pipe(Ee(1),b(()=>ks()),Z(1)):tt',
    ),
    "palette switching mark only on a switch": (
        'if(document.body.setAttribute("data-md-color-switching",""),'
        's.color.media==="(prefers-color-scheme)")',
        'if(document.body.getAttribute("data-md-color-scheme")!==s.color.scheme&&'
        'document.body.setAttribute("data-md-color-switching",""),'
        's.color.media==="(prefers-color-scheme)")',
    ),
    "colour-scheme meta from the page's head": (
        'let o=x("meta",{name:"color-scheme"});document.head.appendChild(o);',
        "let o=document.querySelector('meta[name=\"color-scheme\"]')"
        '||document.head.appendChild(x("meta",{name:"color-scheme"}));',
    ),
    "colour-scheme meta written only on a change": (
        "return o.content=a.colorScheme,",
        "return o.content!==a.colorScheme&&(o.content=a.colorScheme),",
    ),
}

STYLESHEET_PATCHES = {
    "table cells' first children without a class test": (
        ".md-typeset table:not([class]) td>:first-child,"
        ".md-typeset table:not([class]) th>:first-child{",
        ".md-typeset td>:first-child,.md-typeset th>:first-child{",
    ),
    "table cells' last children without a class test": (
        ".md-typeset table:not([class]) td>:last-child,"
        ".md-typeset table:not([class]) th>:last-child{",
        ".md-typeset td>:last-child,.md-typeset th>:last-child{",
    ),
}


def patched(text: str, patches: dict, what: str) -> str:
    """`text` (Material's `what`) with every patch in `patches` applied."""
    for name, (expression, replacement) in patches.items():
        if text.count(expression) != 1:
            raise PluginError(
                f"Material's {what} changed: the expression of the patch {name!r} "
                "is not there once; update hooks/material_bundle.py for this "
                "Material version."
            )
        text = text.replace(expression, replacement)
    return text


def patched_bundle(bundle: str) -> str:
    """Material's bundle with every patch in `PATCHES` applied."""
    return patched(bundle, PATCHES, "bundle")


def patched_stylesheet(stylesheet: str) -> str:
    """Material's main stylesheet with every patch in `STYLESHEET_PATCHES` applied."""
    return patched(stylesheet, STYLESHEET_PATCHES, "stylesheet")


def on_post_build(config):
    assets = Path(config.site_dir) / "assets"
    (bundle,) = (assets / "javascripts").glob("bundle.*.js")
    (stylesheet,) = (assets / "stylesheets").glob("main.*.css")
    for path, patch in ((bundle, patched_bundle), (stylesheet, patched_stylesheet)):
        path.write_text(patch(path.read_text(encoding="utf-8")), encoding="utf-8")
        path.with_name(path.name + ".map").unlink(missing_ok=True)  # no longer true
