"""Run scripts as ``python -I SCRIPT`` would, each in a process of its own.

Usage: ``python -I run_scripts.py SCRIPT...`` with the interpreter under test.

Each page's copied blocks begin by importing NumPy and torch, and that import is
most of a script's time (about 1.5 s of 2 here). So this imports both once and
forks a child per script, one per core at a time: the child changes into the script's
directory, sends its output to ``stdout.txt`` and ``stderr.txt`` there and runs the
script as ``__main__``, with the interpreter's own ``sys.path`` (``-I``: no script
directory on it). Prints ``{script: exit status}`` as JSON.
"""

import json
import os
import runpy
import sys
import traceback
from pathlib import Path

import numpy  # noqa: F401  (imported once, before the forks)
import torch  # noqa: F401

AT_ONCE = len(os.sched_getaffinity(0))  # the cores this process may use


def run_child(script: Path) -> int:
    """In the forked child: run ``script`` as ``__main__``; its exit status."""
    os.chdir(script.parent)
    for fd, name in [(1, "stdout.txt"), (2, "stderr.txt")]:
        os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    sys.argv = [str(script)]
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as stop:  # as the interpreter reports sys.exit(code)
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def main(scripts: list[Path]) -> dict[str, int]:
    running, status = {}, {}
    for script in [*scripts, None]:
        while running and (script is None or len(running) == AT_ONCE):
            pid, code = os.wait()
            status[running.pop(pid)] = os.waitstatus_to_exitcode(code)
        if script is not None:
            sys.stdout.flush()
            if (pid := os.fork()) == 0:
                code = run_child(script)
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
            running[pid] = str(script)
    return status


if __name__ == "__main__":
    print(json.dumps(main([Path(name).resolve() for name in sys.argv[1:]])))
