"""The runner of the copied-block tests reports what ``python -I SCRIPT`` would."""

import json
import subprocess
import sys

from tests.conftest import ROOT

SCRIPTS = {
    "passes": "import json, sys\nprint(__name__, json.__name__)\n",
    "raises": "import json\nraise ValueError('from the page')\n",
    "exits": "import sys\nsys.exit(3)\n",
    "exits_quietly": "import sys\nsys.exit()\n",
    "exits_with_words": "import sys\nsys.exit('refused')\n",
    "imports": "import colorsys\nprint(colorsys.__name__)\n",
    "fresh": "import sys\nprint('colorsys' in sys.modules, __file__)\n",
}


def test_each_script_runs_alone_in_its_directory_with_its_exit_status(tmp_path):
    for name, source in SCRIPTS.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "blocks.py").write_text(source)
    scripts = [str(tmp_path / name / "blocks.py") for name in SCRIPTS]
    result = subprocess.run(
        [sys.executable, "-I", ROOT / "tests" / "run_scripts.py", *scripts],
        capture_output=True,
        text=True,
        check=True,
    )
    status = json.loads(result.stdout)
    by_name = dict(zip(SCRIPTS, map(status.get, scripts), strict=True))
    assert by_name == {
        "passes": 0, "raises": 1, "exits": 3, "exits_quietly": 0,
        "exits_with_words": 1, "imports": 0, "fresh": 0,
    }  # fmt: skip

    def output(name, stream="stdout"):
        return (tmp_path / name / f"{stream}.txt").read_text()

    assert output("passes") == "__main__ json\n"
    assert "ValueError: from the page" in output("raises", "stderr")
    assert output("exits_with_words", "stderr") == "refused\n"
    fresh = tmp_path / "fresh" / "blocks.py"
    assert output("fresh") == f"False {fresh}\n"  # no module left by another script
