"""Static checks of the first half of the bundled terminal tasks (build from source, fix a build
system, git surgery, debug a crashing C program, a vulnerability found and patched): the Harbor
layout, the shared apt line, the standard `tests/test.sh`, and the importer's verdict. Nothing is
built here; each task's oracle and do-nothing runs are checked where tasks are validated
(`codegym validate codegym/Terminal-v0`)."""

from __future__ import annotations

import ast
import os
import shlex
from pathlib import Path

import pytest
import tomllib
from codegym.envs.terminal.formats import load_task
from codegym.envs.terminal.report import assess

TASKS_DIR = Path(__file__).resolve().parents[3] / "envs" / "terminal" / "data" / "tasks"

BY_CATEGORY = {
    "build-from-source": [
        "build-static-lib",
        "build-shared-lib-prefix",
        "cmake-install-package",
        "cmake-release-build",
        "static-binary",
        "ctypes-shared-lib",
    ],
    "fix-build-system": [
        "makefile-header-deps",
        "makefile-link-order",
        "makefile-parallel-race",
        "cmake-find-library",
        "cmake-link-and-defs",
        "makefile-install-destdir",
    ],
    "git": [
        "git-reflog-recover",
        "git-bisect-regression",
        "git-rewrite-author",
        "git-purge-secret",
        "git-merge-by-rule",
        "git-split-commit",
    ],
    "debug-c": [
        "debug-config-parser",
        "debug-wordfreq-heap",
        "debug-todo-use-after-free",
        "debug-uniq-double-free",
        "debug-flood-fill-stack",
        "debug-csv-stats-uninit",
    ],
    "vulnerability": [
        "vuln-path-traversal",
        "vuln-command-injection",
        "vuln-format-string",
        "vuln-buffer-overflow",
        "vuln-integer-overflow",
        "vuln-sql-injection",
    ],
}
CATEGORY = {name: category for category, names in BY_CATEGORY.items() for name in names}
TASKS = sorted(CATEGORY)

BASE_APT = (
    "RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest build-essential "
    "cmake gdb valgrind git jq sqlite3 gawk bc file procps && rm -rf /var/lib/apt/lists/*"
)
TEST_SH = """#!/bin/bash
mkdir -p /logs/verifier
python3 -m pytest /tests/test_outputs.py -rA -p no:cacheprovider
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""


def test_thirty_tasks_six_per_category():
    assert len(TASKS) == 30
    assert all(len(names) == 6 for names in BY_CATEGORY.values())


def test_every_difficulty_in_every_category():
    for names in BY_CATEGORY.values():
        levels = {tomllib.loads((TASKS_DIR / n / "task.toml").read_text())["metadata"]["difficulty"] for n in names}
        assert len(levels) >= 2, names


@pytest.mark.parametrize("name", TASKS)
def test_harbor_layout(name):
    task = TASKS_DIR / name
    for rel in ("task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh", "tests/test_outputs.py"):
        assert (task / rel).is_file(), f"{name} lacks {rel}"
    solve = task / "solution" / "solve.sh"
    assert solve.read_text().startswith("#!/bin/bash\n")
    assert os.access(solve, os.X_OK)
    assert (task / "instruction.md").read_text().strip()
    ast.parse((task / "tests" / "test_outputs.py").read_text())


@pytest.mark.parametrize("name", TASKS)
def test_task_toml(name):
    meta = tomllib.loads((TASKS_DIR / name / "task.toml").read_text())
    assert meta["version"] == "1.0"
    assert meta["metadata"]["difficulty"] in ("easy", "medium", "hard")
    assert meta["metadata"]["category"] == CATEGORY[name]
    assert meta["metadata"]["tags"]
    assert meta["verifier"]["timeout_sec"] == 120.0
    assert meta["agent"]["timeout_sec"] == 600.0
    assert meta["environment"] == {
        "build_timeout_sec": 600.0,
        "cpus": 1,
        "memory_mb": 2048,
        "storage_mb": 4096,
        "allow_internet": False,
    }


@pytest.mark.parametrize("name", TASKS)
def test_dockerfile_shares_the_apt_layer(name):
    lines = (TASKS_DIR / name / "environment" / "Dockerfile").read_text().splitlines()
    assert lines[:3] == ["FROM debian:bookworm-slim", BASE_APT, "WORKDIR /app"]
    rest = lines[3:]
    assert not any("apt-get" in line or "pip install" in line for line in rest)
    for line in rest:
        word, _, args = line.partition(" ")
        assert word in ("COPY", "RUN", "ENV", "WORKDIR"), line
        if word == "COPY":
            for src in shlex.split(args)[:-1]:
                assert (TASKS_DIR / name / "environment" / src).exists(), f"{name}: COPY source {src} missing"


@pytest.mark.parametrize("name", TASKS)
def test_standard_test_sh(name):
    test_sh = TASKS_DIR / name / "tests" / "test.sh"
    assert test_sh.read_text() == TEST_SH
    assert os.access(test_sh, os.X_OK)


@pytest.mark.parametrize("name", TASKS)
def test_importer_says_it_runs(name):
    assessment = assess(load_task(TASKS_DIR / name))
    assert assessment.runs, assessment.summary()
    assert assessment.reasons == ()
