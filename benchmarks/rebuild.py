"""Build times: cold, warm, and serve-style rebuilds after a page and a module edit.

Run ``python -m benchmarks.rebuild [REV ...]`` from the repository root (``make
rebuild``). Each REV (a git revision; ``WORKTREE`` for the files as they are now,
the default) is exported to a temporary copy, so the edits never touch this tree,
and measured in the same run, one after the other:

- cold: ``mkdocs build`` in a fresh process with an empty ``.cache/``;
- warm: the same again, with the cache the cold build left;
- page edit, module edit: one process starts and builds, like ``mkdocs serve``
  does (``on_startup`` with ``command="serve"``, then a build), then a line is
  appended to a page (or a comment to a package module) and it rebuilds;
  whether torch is imported in that process by then is printed too.

Wall and CPU seconds are printed, and each time as a ratio to the cold build of
the same revision. CPU counts this process and the children it waits for; the
figure workers, forked by multiprocessing's fork server, are not among them.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EDITS = {  # step -> (file, text appended to it)
    "page edit": ("docs/part2/05-alibi.md", "\nOne more line.\n"),
    "module edit": ("posenc_docs/alibi.py", "\n# one more comment\n"),
}
MARK = "TIMES "  # the session's answer on stdout
STEPS = ("cold", "warm", "page edit", "module edit")


def export(rev: str, destination: Path) -> Path:
    """The files of ``rev`` (or of the work tree) in ``destination``, with npm's."""
    if rev == "WORKTREE":
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=ROOT, capture_output=True, check=True,
        ).stdout.decode().split("\0")  # fmt: skip
        for name in filter(None, listed):
            source = ROOT / name
            if source.is_file() and not source.is_symlink():
                (destination / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, destination / name)
    else:
        archive = subprocess.run(
            ["git", "archive", rev], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", destination], input=archive, check=True)
    (destination / "node_modules").symlink_to((ROOT / "node_modules").resolve())
    return destination


def clock() -> tuple[float, float]:
    """Wall seconds and CPU seconds of this process and its waited-for children."""
    t = os.times()
    return time.perf_counter(), t.user + t.system + t.children_user + t.children_system


def since(start: tuple[float, float]) -> tuple[float, float]:
    now = clock()
    return now[0] - start[0], now[1] - start[1]


def serve_session(project: Path) -> dict[str, tuple[float, float]]:
    """In this process, as ``mkdocs serve`` does: build, edit, rebuild (twice)."""
    import logging

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    site = tempfile.mkdtemp(prefix="rebuild-site-")

    def config():
        return load_config(str(project / "mkdocs.yml"), site_dir=site, strict=True)

    first = config()
    first.plugins.on_startup(command="serve", dirty=False)  # as mkdocs serve does
    build(first)
    rebuild = lambda: build(config())  # noqa: E731
    times = {}
    for step, (name, text) in EDITS.items():
        with open(project / name, "a", encoding="utf-8") as file:
            file.write(text)
        start = clock()
        rebuild()
        times[step] = since(start)
        times[f"torch after {step}"] = ["torch" in sys.modules]
    shutil.rmtree(site)
    return times


def run(project: Path, *args: str) -> tuple[float, float]:
    """Time one child process running from ``project``; stop if it fails."""
    env = {**os.environ, "PYTHONPATH": str(project), "NO_MKDOCS_2_WARNING": "1"}
    start = clock()
    result = subprocess.run(
        [sys.executable, *args], cwd=project, env=env, capture_output=True, text=True
    )
    if result.returncode:
        sys.exit(f"{' '.join(args)} failed in {project}:\n{result.stderr[-3000:]}")
    marked = [line for line in result.stdout.splitlines() if line.startswith(MARK)]
    return since(start) if not marked else json.loads(marked[-1][len(MARK) :])


def measure(rev: str) -> dict[str, tuple[float, float]]:
    """Wall and CPU seconds of the four steps for one revision."""
    with tempfile.TemporaryDirectory(prefix="rebuild-") as tmp:
        project = export(rev, Path(tmp))
        site = str(Path(tmp) / "site")
        build = ["-m", "mkdocs", "build", "--strict", "--site-dir", site]
        times = {"cold": run(project, *build), "warm": run(project, *build)}
        script = str(Path(__file__).resolve())
        times.update(run(project, script, "--session", str(project)))
    return times


def report(rev: str, times: dict[str, tuple[float, float]]) -> None:
    cold_wall, cold_cpu = times["cold"]
    print(f"{rev}:")
    for step in STEPS:
        wall, cpu = times[step]
        ratio = f"{wall / cold_wall:5.2f}x cold wall, {cpu / cold_cpu:5.2f}x cold CPU"
        torch = times.get(f"torch after {step}", [None])[0]
        imported = (
            "" if torch is None else f"  torch imported: {'yes' if torch else 'no'}"
        )
        print(f"  {step:12s} {wall:6.1f} s wall  {cpu:6.1f} s CPU   {ratio}{imported}")


def main(revs: list[str]) -> None:
    for rev in revs or ["WORKTREE"]:
        report(rev, measure(rev))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--session"]:
        print(MARK + json.dumps(serve_session(Path(sys.argv[2]))))
    else:
        main(sys.argv[1:])
