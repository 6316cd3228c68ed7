"""MkDocs hook: the built site's copy of Material's bundle, patched.

Each patch replaces one exact expression of Material 9.8.2's minified bundle; if
an expression is not there exactly once (another Material version), the build
stops and names the patch to update.

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
}


def patched_bundle(bundle: str) -> str:
    """Material's bundle with every patch in `PATCHES` applied."""
    for name, (expression, replacement) in PATCHES.items():
        if bundle.count(expression) != 1:
            raise PluginError(
                f"Material's bundle changed: the expression of the patch {name!r} "
                "is not there once; update hooks/material_bundle.py for this "
                "Material version."
            )
        bundle = bundle.replace(expression, replacement)
    return bundle


def on_post_build(config):
    (bundle,) = (Path(config.site_dir) / "assets" / "javascripts").glob("bundle.*.js")
    bundle.write_text(patched_bundle(bundle.read_text(encoding="utf-8")))
    bundle.with_name(bundle.name + ".map").unlink(missing_ok=True)  # no longer true
