"""MkDocs hook: a sitemap whose bytes do not depend on the day it is built.

mkdocs gives every page of the sitemap the build date as ``<lastmod>`` and stamps
the gzip copy's header with it: a new site every day, for a date that says nothing
about when a page changed. ``overrides/sitemap.xml`` leaves ``<lastmod>`` out (the
sitemap protocol makes it optional) and this hook writes ``sitemap.xml.gz`` again
with a zero modification time.
"""

import gzip
from pathlib import Path


def gzipped(data: bytes) -> bytes:
    """``data`` gzip-compressed with no file name and a zero mtime in the header."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def on_post_build(config):
    sitemap = Path(config.site_dir) / "sitemap.xml"
    if sitemap.is_file():
        sitemap.with_name("sitemap.xml.gz").write_bytes(gzipped(sitemap.read_bytes()))
