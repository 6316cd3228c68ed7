"""What the Install page quotes: the wheel on this site and what it runs with.

``WHEEL_PATH`` is where ``hooks/wheel.py`` puts the wheel in the built site; the
page links it relative to itself. The versions are those of the interpreter that
builds the site, which also runs every code block on it.
"""

import platform
from importlib import metadata

import posenc_docs
from posenc_docs.pages.format import markdown_table

DISTRIBUTION = "posenc_docs"
WHEEL = f"{DISTRIBUTION}-{posenc_docs.__version__}-py3-none-any.whl"
WHEEL_PATH = f"downloads/{WHEEL}"


def requirements() -> list[str]:
    """The package's ``Requires-Dist`` lines, as installed here (extras included)."""
    return metadata.requires(DISTRIBUTION) or []


def requirements_table() -> str:
    """Markdown table: Python, then each requirement and the extra that asks for it."""
    python = metadata.metadata(DISTRIBUTION)["Requires-Python"]
    rows = [(f"Python {python}", "always")]
    for line in requirements():
        requirement, _, marker = line.partition(";")
        extra = marker.split("==")[-1].strip(" '\"") if marker else ""
        needed = f"with the `{extra}` extra" if extra else "always"
        rows.append((f"`{requirement.strip()}`", needed))
    return markdown_table(["Requirement", "Needed"], rows, align=":---")


def built_with() -> str:
    """Markdown table: Python, NumPy and torch versions of this build."""
    rows = [
        ("Python", platform.python_version()),
        ("NumPy", metadata.version("numpy")),  # as installed: nothing imported
        ("PyTorch", metadata.version("torch")),
    ]
    return markdown_table(["Software", "Version"], rows, align=":---")
