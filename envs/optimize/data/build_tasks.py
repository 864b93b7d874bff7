"""Write ``tasks.jsonl`` from the task definitions in ``definitions.py`` and
``definitions_extra.py``: each test's expected
output is the reference's, run here (python3, gcc, g++ on the PATH).

    python envs/optimize/data/build_tasks.py
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from definitions import TASKS  # noqa: E402
from definitions_extra import TASKS as EXTRA  # noqa: E402

COMPILERS = {"c": ["gcc", "-O2", "-std=c17", "-o"], "cpp": ["g++", "-O2", "-std=c++17", "-o"]}
SUFFIX = {"python": ".py", "c": ".c", "cpp": ".cpp"}


def runner(language: str, source: str, folder: Path) -> list[str]:
    path = folder / f"main{SUFFIX[language]}"
    path.write_text(source)
    if language == "python":
        return [sys.executable, str(path)]
    binary = folder / "main"
    subprocess.run([*COMPILERS[language], str(binary), str(path), "-lm"], check=True)
    return [str(binary)]


def generated(generator: str, size: int, seed: int) -> str:
    namespace: dict[str, object] = {}
    exec(generator, namespace)
    return namespace["generate"](size, random.Random(seed))  # type: ignore[operator]


def build(task: dict[str, object]) -> dict[str, object]:
    inputs = [(text, True) for text in task.pop("edge_inputs", [])]  # type: ignore[union-attr]
    sizes = task.pop("test_sizes")
    inputs = [(generated(str(task["generator"]), size, 100 + i), i >= 2) for i, size in enumerate(sizes)] + inputs  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "slow").mkdir()
        slow = runner(str(task["language"]), str(task["reference"]), Path(folder) / "slow")
        tests = []
        for i, (text, hidden) in enumerate(inputs):
            out = subprocess.run(slow, input=text, capture_output=True, text=True, check=True, timeout=60).stdout
            tests.append({"name": f"test_{i}", "input": text, "expected": out, "hidden": hidden})
    return {**task, "tests": tests}


def main() -> None:
    rows = [build(dict(task)) for task in (*TASKS, *EXTRA)]
    with open(HERE / "tasks.jsonl", "w") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    print(f"wrote {len(rows)} tasks")


if __name__ == "__main__":
    main()
