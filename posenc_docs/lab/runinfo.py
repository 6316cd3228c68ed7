"""Where, when and how fast the lab's numbers were made, for ``results.json``."""

import datetime
import os
import platform
import subprocess
import time
from pathlib import Path

import torch

import posenc_docs


def git_commit() -> tuple[str, bool]:
    """``git rev-parse HEAD`` of this checkout and whether files differ from it.

    An installed wheel is no checkout: ``("unknown", False)``, even when the
    environment it is installed in lies inside some other git repository.
    """
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():  # a directory, or a file in a worktree
        return "unknown", False
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=root,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain"],
            cwd=root,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False
    return head, bool(status.strip())


class Clock:
    """Commit, wall-clock time, CPU time and load average since it was made."""

    def __init__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        self.commit = git_commit()  # the code as it was when the run started
        self.load = [round(x, 2) for x in os.getloadavg()]  # 1, 5, 15 minutes

    def stop(self, worker_cpu: float = 0.0) -> dict:
        """Seconds since the start; CPU time here plus ``worker_cpu`` (the jobs')."""
        own = time.process_time() - self.cpu
        return {
            "git_commit": self.commit[0],
            "git_dirty": self.commit[1],
            "run_seconds": round(time.perf_counter() - self.wall, 1),
            "cpu_seconds": round(own + worker_cpu, 1),
            "load_average_at_start": self.load,
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        }


def provenance(timing: dict, workers: int, threads: int) -> dict:
    """Where and when the numbers were made (``timing``: from ``Clock.stop``)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return {
        "package_version": posenc_docs.__version__,
        "date_utc": now.isoformat(timespec="seconds"),
        **timing,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "cpu_count": os.cpu_count(),
            "workers": workers,
            "threads": threads,  # torch threads in each worker
        },
    }
