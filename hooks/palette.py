"""MkDocs hook: Material's palette no longer restyles the whole page on load.

Material's palette script marks the body ``data-md-color-switching`` whenever it
applies a palette, on page load too, and removes the mark a frame later; its
stylesheet matches ``[data-md-color-switching] *`` (to stop transitions while the
colours change), so each mark and unmark makes Chromium restyle every element of
the page: two full restyles at start-up, for a palette that did not change. The
built site's copy of the bundle is patched (one exact, version-pinned expression,
or the build stops) to mark the body only when the colour scheme really changes,
as when the reader flips the toggle.
"""

from pathlib import Path

from mkdocs.exceptions import PluginError

# Material 9.8.2's bundle: the palette subscriber marks the body unconditionally.
ALWAYS_MARKED = (
    'if(document.body.setAttribute("data-md-color-switching",""),'
    's.color.media==="(prefers-color-scheme)")'
)
# The same, only when the scheme it applies is not the body's already. In the
# "(prefers-color-scheme)" mode the scheme is resolved after this test, so there
# the body is still marked, as before.
MARKED_ON_CHANGE = (
    'if(document.body.getAttribute("data-md-color-scheme")!==s.color.scheme&&'
    'document.body.setAttribute("data-md-color-switching",""),'
    's.color.media==="(prefers-color-scheme)")'
)


def palette_bundle(bundle: str) -> str:
    """Material's bundle marking the body only when the colour scheme changes."""
    if bundle.count(ALWAYS_MARKED) != 1:
        raise PluginError(
            "Material's bundle changed: the palette's switching mark is not there "
            "once; update hooks/palette.py for this Material version."
        )
    return bundle.replace(ALWAYS_MARKED, MARKED_ON_CHANGE)


def on_post_build(config):
    (bundle,) = (Path(config.site_dir) / "assets" / "javascripts").glob("bundle.*.js")
    bundle.write_text(palette_bundle(bundle.read_text(encoding="utf-8")))
