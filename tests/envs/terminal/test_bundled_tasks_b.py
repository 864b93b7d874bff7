"""Static checks of the second half of the bundled terminal tasks (services, forensics, performance,
sysadmin): the Harbor layout, the shared apt lines, the standard `tests/test.sh`, and the importer's
verdict. Nothing is built here; each task's oracle and do-nothing runs are checked where tasks are
validated (`codegym validate codegym/Terminal-v0`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from codegym.envs.terminal.formats import load_task
from codegym.envs.terminal.report import assess

TASKS_DIR = Path(__file__).resolve().parents[3] / "envs" / "terminal" / "data" / "tasks"

SERVICES = [
    "nginx-static-rewrite",
    "nginx-reverse-proxy",
    "nginx-gzip-headers",
    "redis-auth-persist",
    "redis-leaderboard-cache",
    "redis-acl-sessions",
    "postgres-csv-load",
    "postgres-fix-report",
    "postgres-add-index",
]
OTHERS = {
    "data-forensics": [
        "jq-auth-attacker",
        "awk-busiest-hour",
        "sqlite-net-revenue",
        "csv-bank-reconcile",
        "sshd-failed-logins",
        "jq-service-latency",
        "awk-status-bytes",
        "sqlite-session-time",
        "incident-trace-logs",
    ],
    "performance": [
        "perf-pair-count",
        "perf-c-dedupe",
        "perf-sqlite-latest",
        "perf-incremental-make",
        "perf-shell-aggregate",
        "perf-next-greater",
    ],
    "sysadmin": [
        "shared-dir-permissions",
        "cron-schedule-file",
        "init-script-pidfile",
        "log-rotate-script",
        "reproducible-release-tarball",
        "fix-photo-sorter-script",
    ],
}
CATEGORY = {name: "services" for name in SERVICES} | {n: c for c, names in OTHERS.items() for n in names}
TASKS = sorted(CATEGORY)

BASE_APT = (
    "RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest build-essential "
    "cmake gdb valgrind git jq sqlite3 gawk bc file procps && rm -rf /var/lib/apt/lists/*"
)
SERVICE_APT = (
    "RUN apt-get update && apt-get install -y --no-install-recommends nginx-light redis-server postgresql curl "
    "&& rm -rf /var/lib/apt/lists/*"
)
TEST_SH = """#!/bin/bash
mkdir -p /logs/verifier
python3 -m pytest /tests/test_outputs.py -rA -p no:cacheprovider
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""


def test_thirty_tasks_in_four_categories():
    assert len(TASKS) == 30
    assert [len(SERVICES), *(len(v) for v in OTHERS.values())] == [9, 9, 6, 6]


@pytest.mark.parametrize("name", TASKS)
def test_harbor_layout(name):
    task = TASKS_DIR / name
    for rel in ("task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh", "tests/test_outputs.py"):
        assert (task / rel).is_file(), f"{name} lacks {rel}"
    solve = task / "solution" / "solve.sh"
    assert solve.read_text().startswith("#!/bin/bash\n")
    assert os.access(solve, os.X_OK)
    assert (task / "instruction.md").read_text().strip()


@pytest.mark.parametrize("name", TASKS)
def test_task_toml(name):
    task = load_task(TASKS_DIR / name)
    assert str(task.version) == "1.0"
    assert task.metadata["difficulty"] in ("easy", "medium", "hard")
    assert task.metadata["category"] == CATEGORY[name]
    assert task.metadata["tags"]
    assert (task.verifier_timeout_s, task.agent_timeout_s, task.build_timeout_s) == (120.0, 600.0, 600.0)
    resources = task.resources
    assert (resources.cpus, resources.memory_mb, resources.storage_mb, resources.gpus) == (1, 2048, 4096, 0)
    assert resources.allow_internet is False  # (episodes are offline: the task says so)


@pytest.mark.parametrize("name", TASKS)
def test_dockerfile_shares_the_apt_layers(name):
    lines = (TASKS_DIR / name / "environment" / "Dockerfile").read_text().splitlines()
    head = ["FROM debian:bookworm-slim", BASE_APT] + ([SERVICE_APT] if name in SERVICES else [])
    assert lines[: len(head)] == head
    assert lines[len(head)] == "WORKDIR /app"
    rest = "\n".join(lines[len(head) :])
    assert "apt-get" not in rest and "pip install" not in rest
    assert "tests" not in rest.split(), "hidden fixtures stay out of the image"


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
