"""MkDocs hook: ``mkdocs serve`` converts a page's Markdown only when what the
conversion reads has changed.

After any edit, serve builds the whole site again, and converting the Markdown
of pages nobody touched was a third of a one-line page edit's rebuild. Within one
serve process, a page's conversion (its HTML, table of contents, title, anchors
and links to other pages' anchors) is kept under everything it reads:

- the page's Markdown, as the macros left it, its source path and its URL;
- markdown-exec's count of the outputs converted before it (its ids go on from it);
- the path and URL of every file of the build (the links it rewrites and checks);
- the bytes of the config file and of ``hooks/`` (the Markdown extensions and
  their settings);
- the package files the page reads: each file it includes a snippet of, each
  module it documents (mkdocstrings' ``::: posenc_docs.x``), and the package
  modules those files and the page's own import lines import, transitively, with
  the data files they name (`build_cache.dependencies`, which reads a page's
  import lines as it reads a notebook's). The examples a page runs
  are snippets, so an edit of one module converts again only the pages whose
  snippets, examples or API reference may read it.

What a conversion registers outside the page is replayed when it is reused:
mkdocs-autorefs' anchors, the items of mkdocstrings' inventory (``objects.inv``)
and markdown-exec's count of converted outputs. A conversion is not kept if it
logs anything (a warning must show on every build), if a markdown-exec session
shares globals with other pages, if a snippet comes from outside the package or
if mkdocstrings documents something else than the package. mkdocs-jupyter
renders its pages with its own method: not kept.
"""

import copy
import functools
import hashlib
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import build_cache  # hooks/build_cache.py
from mkdocs.structure.pages import Page

try:  # counts converted outputs across pages for their ids
    from markdown_exec._internal.rendering import MarkdownConverter
except ImportError:  # another markdown-exec: its pages are converted every time
    MarkdownConverter = None

AUTODOC = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*)?:::[ \t]*(.*?)[ \t]*$", re.MULTILINE)
PACKAGE_OBJECT = re.compile(r"posenc_docs(\.\w+)*")  # what ::: may document
SNIPPET = re.compile(r"--8<--(.*)")
PACKAGE_SNIPPET = re.compile(r'[ \t]+"posenc_docs/(?![^"]*\.\.)[^"]*"[ \t]*$')
SNIPPET_FILE = re.compile(r'"(posenc_docs/[^":]*)')  # without its ":section"
EXECUTED = re.compile(r"\bexec=")
SESSION = re.compile(r"\bsession=")  # markdown-exec: globals shared across pages
READ_BY_CONVERSIONS = ("hooks",)  # folders, with the config file; and `package_inputs`


def keepable(markdown: str) -> bool:
    """Whether a conversion of ``markdown`` can be kept and replayed."""
    if SESSION.search(markdown):
        return False
    if not all(PACKAGE_OBJECT.fullmatch(name) for name in AUTODOC.findall(markdown)):
        return False
    if MarkdownConverter is None and EXECUTED.search(markdown):
        return False
    return all(PACKAGE_SNIPPET.match(rest) for rest in SNIPPET.findall(markdown))


def _files_read(config) -> list[Path]:
    config_file = Path(config.config_file_path)
    paths = [config_file]
    for folder in READ_BY_CONVERSIONS:
        found = (config_file.parent / folder).rglob("*")
        paths += sorted(p for p in found if p.is_file() and p.suffix != ".pyc")
    return paths


def package_inputs(markdown: str, root: Path) -> bytes:
    """Digest of the package files a page's conversion reads (module docstring)."""
    digest = hashlib.sha256()
    lines = SNIPPET.findall(markdown)
    for name in sorted({n for rest in lines for n in SNIPPET_FILE.findall(rest)}):
        digest.update(name.encode() + included_file_inputs(root / name, root))
    for name in sorted(set(AUTODOC.findall(markdown))):  # `keepable`: the package's
        digest.update(name.encode())
        if module := documented_module(name, root):
            source = build_cache.module_source(module, root)
            digest.update(build_cache.dependency_digest(source, root, module))
    digest.update(build_cache.dependency_digest(markdown, root))  # its import lines
    return digest.digest()


def included_file_inputs(path: Path, root: Path) -> bytes:
    """Digest of a snippet's file: a module's with its dependencies, or its bytes."""
    if not path.is_file():  # the snippets extension reports it
        return b""
    if path.suffix != ".py":
        return build_cache.file_digest(path)
    module = ".".join(path.relative_to(root).with_suffix("").parts)
    source = path.read_text(encoding="utf-8")
    return build_cache.dependency_digest(source, root, module)


def documented_module(name: str, root: Path) -> str | None:
    """The package module that holds object ``name`` (``posenc_docs.rope`` for
    ``posenc_docs.rope.RotaryEmbedding.forward``), or None."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if build_cache.module_path(".".join(parts[:end]), root):
            return ".".join(parts[:end])
    return None


def build_inputs(config, files) -> bytes:
    """Digest of what every page's conversion reads besides its own Markdown and
    package files."""
    digest = hashlib.sha256()
    for file in sorted(files, key=lambda f: f.src_uri):
        digest.update(repr((file.src_uri, file.dest_uri, file.url)).encode())
        digest.update(repr(file.inclusion).encode())
    for path in _files_read(config):
        digest.update(str(path).encode())
        digest.update(build_cache.file_digest(path))
    return digest.digest()


@dataclass
class Conversion:
    """What `Page.render` leaves on a page and registers elsewhere."""

    content: str
    toc: object
    title: str | None
    anchor_ids: set[str]
    links_to_anchors: dict[str, dict[str, str]] | None  # by linked file's src_uri
    autorefs_anchors: list[tuple[tuple, dict]]  # register_anchor's other arguments
    inventory_items: list[dict]  # mkdocstrings' Inventory.register arguments
    outputs: int  # markdown-exec outputs converted


@dataclass
class Registries:
    """Where a conversion registers things outside its page, those present:
    mkdocs-autorefs' plugin and mkdocstrings' inventory."""

    autorefs: object | None
    inventory: object | None

    @classmethod
    def of(cls, config) -> "Registries":
        inventory, mkdocstrings = None, config.plugins.get("mkdocstrings")
        if mkdocstrings is not None:  # its handlers are made in its on_config
            inventory = mkdocstrings.handlers.inventory
        return cls(config.plugins.get("autorefs"), inventory)


class Recording(logging.Handler):
    """While a page converts: whether anything is logged, and what it registers
    with mkdocs-autorefs, mkdocstrings' inventory and markdown-exec."""

    def __init__(self, page: Page, registries: Registries):
        super().__init__(logging.INFO)
        self.page, self.logged, self.anchors, self.items = page, False, [], []
        self.autorefs, self.inventory = registries.autorefs, registries.inventory
        self.others = False  # an anchor registered for another page

    def emit(self, record):
        self.logged |= record.thread == self.thread  # not a background job's

    def register_anchor(self, page, *args, **kwargs):
        self.others |= page is not self.page
        self.anchors.append((args, kwargs))
        type(self.autorefs).register_anchor(self.autorefs, page, *args, **kwargs)

    def register_item(self, **item):  # mkdocstrings passes keywords only
        self.items.append(item)
        type(self.inventory).register(self.inventory, **item)

    def __enter__(self):
        self.thread = threading.get_ident()
        self.outputs = MarkdownConverter.counter if MarkdownConverter else 0
        for logger in (logging.getLogger(), logging.getLogger("mkdocs")):
            logger.addHandler(self)
        if self.autorefs is not None:
            self.autorefs.register_anchor = self.register_anchor
        if self.inventory is not None:
            self.inventory.register = self.register_item
        return self

    def __exit__(self, *exc):
        for logger in (logging.getLogger(), logging.getLogger("mkdocs")):
            logger.removeHandler(self)
        if self.autorefs is not None:
            del self.autorefs.register_anchor  # the class's method again
        if self.inventory is not None:
            del self.inventory.register
        if MarkdownConverter:
            self.outputs = MarkdownConverter.counter - self.outputs


def conversion(page: Page, recording: Recording) -> Conversion:
    links = page.links_to_anchors
    return Conversion(
        content=page.content,
        toc=copy.deepcopy(page.toc),
        title=page._title_from_render,
        anchor_ids=set(page.present_anchor_ids),
        links_to_anchors=None
        if links is None
        else {file.src_uri: dict(anchors) for file, anchors in links.items()},
        autorefs_anchors=recording.anchors,
        inventory_items=recording.items,
        outputs=recording.outputs,
    )


def replay(page: Page, kept: Conversion, files, registries: Registries) -> None:
    """Leave on ``page`` and register what its conversion did."""
    page.content, page.toc = kept.content, copy.deepcopy(kept.toc)
    page._title_from_render = kept.title
    page.present_anchor_ids = set(kept.anchor_ids)
    if kept.links_to_anchors is not None:
        page.links_to_anchors = {
            files.get_file_from_path(uri): dict(anchors)
            for uri, anchors in kept.links_to_anchors.items()
        }
    for args, kwargs in kept.autorefs_anchors:
        registries.autorefs.register_anchor(page, *args, **kwargs)
    for item in kept.inventory_items:  # an alias (priority 2) only if not taken
        if item.get("priority", 1) < 2 or item["name"] not in registries.inventory:
            registries.inventory.register(**item)
    if MarkdownConverter:
        MarkdownConverter.counter += kept.outputs


def memoized(render):
    """`render` (the unbound `Page.render`) with each page's conversion kept: those
    of the last build and of this one, so an edit leaves no stale ones behind."""
    kept: dict[str, dict[bytes, Conversion]] = {"last": {}, "this": {}}
    build: list = [None, b""]  # this build's files and their `build_inputs`

    @functools.wraps(render)
    def render_once(self, config, files):
        if not keepable(self.markdown):
            return render(self, config, files)
        if build[0] is not files:  # the first page of a build
            build[:] = [files, build_inputs(config, files)]
            kept["last"], kept["this"] = kept["this"], {}
        outputs = MarkdownConverter.counter if MarkdownConverter else 0  # for ids
        identity = (self.markdown, self.file.src_uri, self.url, outputs)
        root = Path(config.config_file_path).parent
        package = package_inputs(self.markdown, root)
        key = hashlib.sha256(repr(identity).encode() + build[1] + package).digest()
        registries = Registries.of(config)
        if (found := kept["this"].get(key) or kept["last"].get(key)) is not None:
            kept["this"][key] = found
            return replay(self, found, files, registries)
        with Recording(self, registries) as recording:
            render(self, config, files)
        if not (recording.logged or recording.others):
            kept["this"][key] = conversion(self, recording)

    render_once.memoized = True
    return render_once


def on_startup(command, dirty):
    if command == "serve" and not getattr(Page.render, "memoized", False):
        Page.render = memoized(Page.render)  # once per process
