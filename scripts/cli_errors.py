"""The table of command-line mistakes and what ``codegym`` prints for each, in docs/cli.md.

Each mistake is made for real: the installed ``codegym`` command runs in an empty temporary
folder holding the files the mistake needs. ``python scripts/cli_errors.py`` rewrites the
table between its markers in docs/cli.md; tests/core/test_cli_errors.py checks that it is
current.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
START, END = "<!-- cli-errors: start (python scripts/cli_errors.py) -->", "<!-- cli-errors: end -->"
GOOD = json.dumps({"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"})
ROW = {"task_id": "Mine/0", "prompt": "def f(x):\n", "test": "def check(candidate):\n    assert candidate(1) == 2\n"}

# (the mistake, the files it needs, the command's arguments)
MISTAKES: list[tuple[str, dict[str, str], list[str]]] = [
    ("a samples file that is not there", {}, ["score", "samples.jsonl"]),
    ("an empty samples file", {"samples.jsonl": ""}, ["score", "samples.jsonl"]),
    ("a samples line that is not JSON", {"samples.jsonl": f"{GOOD}\n{{'task_id': 1}}\n"}, ["score", "samples.jsonl"]),
    ("a sample without its code", {"samples.jsonl": json.dumps({"task_id": "HumanEval/2", "text": "..."}) + "\n"},
     ["score", "samples.jsonl"]),
    ("a sample of an unknown task", {"samples.jsonl": f"{GOOD}\n" + GOOD.replace("/2", "/999") + "\n"},
     ["score", "samples.jsonl"]),
    ("results of an earlier run", {"samples.jsonl": f"{GOOD}\n", "samples_results.jsonl": "{}\n"},
     ["score", "samples.jsonl"]),
    ("a k that is not positive", {"samples.jsonl": f"{GOOD}\n"}, ["score", "samples.jsonl", "-k", "0"]),
    ("an unknown env id", {}, ["validate", "codegym/PythonFuncton-v0", "--tasks", "humaneval"]),
    ("a task file that is not there", {}, ["validate", "codegym/PythonFunction-v0", "--tasks", "tasks.jsonl"]),
    ("a task file line that is not JSON", {"tasks.jsonl": json.dumps(ROW) + "\n{oops\n"},
     ["validate", "codegym/PythonFunction-v0", "--tasks", "tasks.jsonl"]),
    ("a task row without a field", {"tasks.jsonl": json.dumps({k: v for k, v in ROW.items() if k != "test"}) + "\n"},
     ["validate", "codegym/PythonFunction-v0", "--tasks", "tasks.jsonl"]),
    ("a task field of the wrong type", {"tasks.jsonl": json.dumps({**ROW, "prompt": 5}) + "\n"},
     ["validate", "codegym/PythonFunction-v0", "--tasks", "tasks.jsonl"]),
]  # fmt: skip


def run(files: dict[str, str], args: list[str]) -> tuple[int, str]:
    """The exit status and the error lines (argparse's usage lines left out) of one mistake."""
    command = Path(sys.executable).with_name("codegym")
    argv = [str(command)] if command.exists() else [sys.executable, "-m", "codegym.cli"]
    environment = {k: v for k, v in os.environ.items() if k != "CODEGYM_DEBUG"}
    with tempfile.TemporaryDirectory() as folder:
        for name, text in files.items():
            (Path(folder) / name).write_text(text)
        done = subprocess.run([*argv, *args], cwd=folder, capture_output=True, text=True, timeout=120,
                              env=environment, check=False)  # fmt: skip
    lines = done.stderr.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("codegym "))
    return done.returncode, "\n".join(lines[first:])


def table() -> str:
    """The Markdown table, one row per mistake, of what the command printed."""
    rows = ["| mistake | command | exit status | what it prints (↵: a new line) |", "| --- | --- | --- | --- |"]
    for mistake, files, args in MISTAKES:
        status, message = run(files, args)
        rows.append(f"| {mistake} | {_code('codegym ' + ' '.join(args))} | {status} | {_code(message)} |")
    return "\n".join(rows)


def _code(text: str) -> str:
    """``text`` as an inline code span in a table cell."""
    flat = " ↵ ".join(line.strip() for line in text.splitlines()).replace("|", "\\|")
    fence = "``" if "`" in flat else "`"
    return f"{fence} {flat} {fence}" if fence == "``" else f"`{flat}`"


def main() -> None:
    page = PAGE.read_text()
    before, rest = page.split(START, 1)
    _, after = rest.split(END, 1)
    PAGE.write_text(f"{before}{START}\n{table()}\n{END}{after}")
    print(f"wrote the table of {len(MISTAKES)} mistakes to {PAGE}")


if __name__ == "__main__":
    main()
