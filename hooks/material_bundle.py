"""MkDocs hook: Material's bundle added after the first paint; it and its stylesheet
patched.

- **Material's script after the first paint.** Every page ran Material's bundle
  as soon as the parser reached it, which on a long page forces the first style
  and layout of every element inside the script's own task: when the bundle
  arrived before Chromium's first frame, the page painted only after all of it
  (Lighthouse's simulated first paint then counts that task four times over,
  90 against 99). Each page now preloads the bundle (from a script, so a reader
  without JavaScript does not download it) and adds it just after its first frame
  (at once in a tab that is not shown, which draws no frames), then announces it
  with a `posenc:material` event and `window.posencMaterialSettled` for
  `widgets/index.js`, the one script of `extra_javascript`; another must wait
  for them too before it uses `document$`, or the build stops. Patched, the
  bundle starts on a document parsed before it ran as on one being parsed.
  `overrides/main.html` gives the body its palette, and the palette toggle its
  button, before that first paint.

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
- **Stylesheet links left as written.** With instant navigation Material rewrites
  every relative URL on the page to an absolute one at start-up, so that it can
  compare the head's elements by their markup with the next page's. On a
  `<link rel=stylesheet>` the rewrite makes Chromium re-apply the sheet and
  restyle every element. Patched, the page as loaded keeps its stylesheet links as
  written and notes each one's absolute URL, and the head comparison uses that
  URL, so it matches the next page's link as before.
- **Tables wrapped at build time left in place.** Material moves each table into
  its scroll wrapper at start-up; `hooks/tables.py` writes the wrapper into the
  page, and patched, Material leaves a table already inside one.
- **A listing's buttons not a landmark.** Material holds each listing's copy
  button in a `<nav>`: an unnamed navigation landmark per listing (9 of 07's 21)
  in a screen reader's list of landmarks. Patched, a `<div>` of the same class
  holds them.
- **Tables without a class test.** Material styles plain tables, their cells,
  rows and links with rules such as `table:not([class]) td`; Chromium cannot tell
  which element's class such a test is about, so any change of any element's
  class attribute restyled the matching elements inside it (every element, for
  `td > :first-child`), and Material's start-up changes the root's classes.
  Patched, the rules name the plain tables as those in Material's scroll wrapper,
  `.md-typeset__table > table`, the same specificity: `hooks/tables.py` writes
  that wrapper around every table without a class, and only there (a build test
  checks), so they reach the same tables, and a widget's classed table still is
  not one of them.
"""

import re
from pathlib import Path

from mkdocs.exceptions import PluginError

PATCHES = {
    "start on a document already parsed": (
        # Material's document observable, which emits on DOMContentLoaded...
        'return h(document,"DOMContentLoaded",{once:!0})'
        ".subscribe(()=>e.next(document))",
        # ... or at once when the bundle runs after it.
        'return document.readyState==="loading"?h(document,"DOMContentLoaded",'
        "{once:!0}).subscribe(()=>e.next(document)):e.next(document)",
    ),
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
    "stylesheet links left as written at start-up": (
        # Every relative URL of a page, the loaded one too, made absolute...
        "if(o&&!/^(?:[a-z]+:)?\\/\\//i.test(o)){t[r]=t[r];break}",
        # ... but the loaded page's stylesheet links, which note it instead...
        'if(o&&!/^(?:[a-z]+:)?\\/\\//i.test(o)){e===document&&t.rel==="stylesheet"'
        "?t.posencHref=t.href:t[r]=t[r];break}",
    ),
    "head comparison by absolute stylesheet URLs": (
        # ... for the head comparison: a copy of such a link with that URL.
        "t.set(r.outerHTML,r)",
        "t.set((r.posencHref?Object.assign(r.cloneNode(),{href:r.posencHref}):r)"
        ".outerHTML,r)",
    ),
    "tables wrapped at build time left in place": (
        'M("table:not([class])",e).map(i=>ti(i))',
        'M("table:not([class])",e).map(i=>i.parentElement.className==="md-typeset__table"'
        "?$({ref:i}):ti(i))",
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
    "a listing's buttons in a div, not a nav landmark": (
        'x("nav",{class:"md-code__nav"})',
        'x("div",{class:"md-code__nav"})',
    ),
}

STYLESHEET_PATCHES = {
    "tables without a class test": (
        # Material's 16 rules for plain tables (and their cells, rows, links)...
        "table:not([class])",
        # ... for the tables in the wrapper hooks/tables.py writes: the same ones.
        ".md-typeset__table>table",
        16,
    ),
}


def patched(text: str, patches: dict, what: str) -> str:
    """`text` (Material's `what`) with every patch in `patches` applied.

    A patch is (expression, replacement), the expression there once, or
    (expression, replacement, times), there exactly that many times."""
    for name, (expression, replacement, *count) in patches.items():
        times = count[0] if count else 1
        if text.count(expression) != times:
            raise PluginError(
                f"Material's {what} changed: the expression of the patch {name!r} "
                f"is not there {times} time(s); update hooks/material_bundle.py "
                "for this Material version."
            )
        text = text.replace(expression, replacement)
    return text


def patched_bundle(bundle: str) -> str:
    """Material's bundle with every patch in `PATCHES` applied."""
    return patched(bundle, PATCHES, "bundle")


def patched_stylesheet(stylesheet: str) -> str:
    """Material's main stylesheet with every patch in `STYLESHEET_PATCHES` applied."""
    return patched(stylesheet, STYLESHEET_PATCHES, "stylesheet")


BUNDLE_TAG = re.compile(
    r'<script src="(?P<src>[^"]*assets/javascripts/bundle\.[0-9a-f]{8}\.min\.js)">'
    r"</script>"
)
CHARSET = '<meta charset="utf-8">'
# In the head, before any stylesheet: fetch the bundle now (with JavaScript only).
PRELOAD = """<script>(function () {{
  var preload = document.createElement("link");
  preload.rel = "preload"; preload.as = "script"; preload.href = "{src}";
  document.head.appendChild(preload);
}})();</script>"""
# Where the bundle was: run it after the first frame; posencMaterialSettled tells a
# script that runs after the event (it failed to load early, say) that it passed.
AFTER_FIRST_PAINT = """<script>(function () {{
  var bundle = document.createElement("script");
  bundle.src = "{src}";
  bundle.onload = bundle.onerror = function () {{
    window.posencMaterialSettled = true;
    dispatchEvent(new Event("posenc:material"));
  }};
  function add() {{ document.body.appendChild(bundle); }}
  if (document.visibilityState === "hidden") add();
  else requestAnimationFrame(function () {{ setTimeout(add); }});
}})();</script>"""
# Scripts of extra_javascript known to wait for that event (or the flag) before they
# use Material's document$, which is not there before the bundle has run.
WAITS_FOR_MATERIAL = {"javascripts/widgets/index.js"}


def bundle_after_first_paint(page_html: str) -> str:
    """`page_html` with Material's bundle preloaded and added after the first frame."""
    found = BUNDLE_TAG.findall(page_html)
    if len(found) != 1 or page_html.count(CHARSET) != 1:
        raise PluginError(
            f"a page has {len(found)} tags of Material's bundle, not one, or not one "
            f"{CHARSET}; update hooks/material_bundle.py for this Material version."
        )
    (src,) = found
    page_html = BUNDLE_TAG.sub(AFTER_FIRST_PAINT.format(src=src), page_html)
    return page_html.replace(CHARSET, CHARSET + PRELOAD.format(src=src))


def on_config(config):
    for script in config.extra_javascript:
        path = getattr(script, "path", script)
        if path not in WAITS_FOR_MATERIAL:
            raise PluginError(
                f"extra_javascript {path!r}: Material's script now runs after the "
                "first paint (hooks/material_bundle.py), so a script that uses "
                "document$ must wait for the posenc:material event, or "
                "window.posencMaterialSettled, as javascripts/widgets/index.js does; "
                "then add it to WAITS_FOR_MATERIAL there."
            )
    return config


def on_post_page(output, page, config):
    return bundle_after_first_paint(output)


def on_post_template(output_content, template_name, config):
    if template_name == "404.html":
        return bundle_after_first_paint(output_content)
    return output_content


def on_post_build(config):
    assets = Path(config.site_dir) / "assets"
    (bundle,) = (assets / "javascripts").glob("bundle.*.js")
    (stylesheet,) = (assets / "stylesheets").glob("main.*.css")
    for path, patch in ((bundle, patched_bundle), (stylesheet, patched_stylesheet)):
        path.write_text(patch(path.read_text(encoding="utf-8")), encoding="utf-8")
        path.with_name(path.name + ".map").unlink(missing_ok=True)  # no longer true
