"""The tutorial's command lines for a family of one's own (``--env module:id``) run as written."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial_new_family.md"
# The package `mylab`: the tutorial's own code, from its first block to its "Checking it" section
# (the SQLQuery family, registered by the import), and the CFunction family's block.
FAMILY_END = "## Checking it"
C_FAMILY = "class CFunctionEnv"
C_TASK = {
    "id": "c/square",
    "question": "Return n squared.",
    "reference": "long solve(long n) { return n * n; }\n",
    "cases": [[3, 9], [-4, 16], [0, 0]],
}


def package_source() -> str:
    """The tutorial's python blocks that define its families, as one module."""
    text = TUTORIAL.read_text(encoding="utf-8")
    blocks = [(m.start(), m[1]) for m in re.finditer(r"^```python\n(.*?)^```$", text, re.M | re.S)]
    family = [code for start, code in blocks if start < text.index(FAMILY_END) or C_FAMILY in code]
    assert len(family) >= 6 and any(C_FAMILY in code for code in family), len(family)
    return "\n\n".join(family)


def tutorial_commands() -> list[list[str]]:
    """The ``codegym ...`` lines of the tutorial's text blocks, as words."""
    text = TUTORIAL.read_text(encoding="utf-8")
    blocks = re.findall(r"^```text\n(.*?)^```$", text, re.M | re.S)
    return [shlex.split(line) for block in blocks for line in block.splitlines() if line.startswith("codegym ")]


def test_the_tutorial_shows_module_id_commands() -> None:
    commands = tutorial_commands()
    assert [words[1] for words in commands] == ["score", "validate", "validate"]
    assert any("mylab:mylab/CFunction-v0" in words for words in commands)  # the runner that is not Python
    assert all(any(re.fullmatch(r"[\w.]+:[\w.]+/[\w.]+-v\d+", word) for word in words) for words in commands)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("words", tutorial_commands(), ids=lambda words: "-".join(words[1:3]))
def test_tutorial_command_runs(words: list[str], tmp_path: Path) -> None:
    """Each command, on the tutorial's own families imported from a package ``mylab``."""
    (tmp_path / "mylab").mkdir()
    (tmp_path / "mylab" / "__init__.py").write_text(package_source(), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    copy = "import shutil, mylab; shutil.copy(mylab.TASKS, 'sql_tasks.jsonl')"  # (the tutorial writes its tasks)
    subprocess.run([sys.executable, "-c", copy], cwd=tmp_path, env=env, check=True, capture_output=True, timeout=120)
    (tmp_path / "c_tasks.jsonl").write_text(json.dumps(C_TASK) + "\n", encoding="utf-8")
    sample = {"task_id": "sql/top-earner", "completion": "SELECT name FROM staff ORDER BY salary DESC LIMIT 1"}
    (tmp_path / "samples.jsonl").write_text(json.dumps(sample) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "codegym.cli", *words[1:]]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, f"{shlex.join(words)}: exit {done.returncode}\n{done.stderr}\n{done.stdout}"
    if words[1] == "score":
        (result,) = [json.loads(line) for line in (tmp_path / "samples_results.jsonl").read_text().splitlines()]
        assert result["task_id"] == "sql/top-earner" and result["status"] == "OK", result
    else:
        assert re.search(r": (\d+) tasks?, \1 valid, 0 invalid, 0 flaky", done.stdout), done.stdout
