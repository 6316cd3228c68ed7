"""MkDocs hook: the widget modules ship minified (terser, from ``npm ci``).

``docs/javascripts/widgets/`` stays readable; only the copies in the built site are
minified, in one Node process per build.
"""

import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError

SCRIPT = Path(__file__).with_name("minify.mjs")
WIDGETS = "javascripts/widgets"


def minify_widgets(site_dir: Path, project_dir: Path) -> list[Path]:
    """Minify every ``.js`` under the site's widget folder; return what was done."""
    files = sorted((site_dir / WIDGETS).glob("*.js"))
    result = subprocess.run(
        ["node", str(SCRIPT), *map(str, files)],
        cwd=project_dir,
        capture_output=True,
        text=True,
    )
    if result.returncode:
        raise PluginError(f"minifying the widgets failed:\n{result.stderr[-2000:]}")
    return files


def on_post_build(config):
    minify_widgets(Path(config.site_dir), Path(config.config_file_path).parent)
