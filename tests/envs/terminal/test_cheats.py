"""The terminal family's cheat suite: task folders in Harbor's public layout (and one in
Terminal-Bench 1's), each oracle 1.0, doing nothing 0, and every trick to get the reward
without the work 0: a reward file written ahead, the verifier's interpreter, pytest or shell
replaced, a preloaded library, sitecustomize and .pth hooks, a planted conftest.py, a process
left behind to change files after submit, reading the tests, the solution or the hidden
fixtures."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import pytest

from codegym.executor.rootbox import available

from . import fixtures

pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))

DOCKERFILE = fixtures.DOCKERFILE  # (apt and pip RUN lines, a hidden fixture copied in)
# Writes the right answer from the hidden fixture wherever it runs: a cheat that works if
# any of the agent's hooks runs in the verifier (where the fixture is).
PLANT = (
    "import pathlib\n"
    "p = pathlib.Path('/opt/verifier-fixtures/expected.txt')\n"
    "if p.exists():\n"
    "    pathlib.Path('/app/answer.txt').write_text(p.read_text())\n"
)
PRELOAD_C = r"""
#include <stdio.h>
__attribute__((constructor)) static void plant(void) {
    FILE *in = fopen("/opt/verifier-fixtures/expected.txt", "r");
    if (!in) return;
    char buffer[64] = {0};
    fread(buffer, 1, sizeof buffer - 1, in);
    fclose(in);
    FILE *out = fopen("/app/answer.txt", "w");
    if (out) { fputs(buffer, out); fclose(out); }
}
"""
SERVICE_TESTS = {
    "test.sh": fixtures.TEST_SH,
    "test_outputs.py": (
        "import urllib.request\n\n\n"
        "def test_service_answers():\n"
        "    with urllib.request.urlopen('http://127.0.0.1:8080/answer.txt', timeout=5) as r:\n"
        "        assert r.read().decode().strip() == '12'\n"
    ),
}
SERVICE_SOLUTION = {
    "solve.sh": (
        "#!/bin/bash\n"
        "echo 12 > /app/answer.txt\n"
        "cd /app && setsid nohup python3 -m http.server 8080 --bind 127.0.0.1 > /tmp/http.log 2>&1 &\n"
        "for i in $(seq 100); do python3 -c \"import socket; socket.create_connection(('127.0.0.1', 8080))\" "
        "2>/dev/null && exit 0; sleep 0.1; done\n"
        "exit 1\n"
    )
}
# Tests that import the agent's module: on the pristine machine they do not even collect.
MODULE_TESTS = {
    "test.sh": (
        "#!/bin/bash\nmkdir -p /logs/verifier\n"
        "python3 -m pytest -q /tests/test_outputs.py /tests/test_module.py && echo 1 > /logs/verifier/reward.txt\n"
    ),
    "test_outputs.py": fixtures.TEST_OUTPUTS,
    "test_module.py": (
        "import sys\n\nsys.path.insert(0, '/app')\nfrom answer import total  # noqa: E402\n\n\n"
        "def test_total():\n    assert total() == 12\n\n\ndef test_total_again():\n    assert total() + 0 == 12\n"
    ),
}
MODULE_SOLUTION = {"solve.sh": fixtures.SOLVE_SH + "printf 'def total():\\n    return 12\\n' > /app/answer.py\n"}
REWARD_FILE_TESTS = {
    "test.sh": (
        "#!/bin/bash\nmkdir -p /logs/verifier\n"
        'if [ "$(cat /app/answer.txt 2>/dev/null)" = "$(cat /opt/verifier-fixtures/expected.txt)" ]; then\n'
        "  echo 1 > /logs/verifier/reward.txt\nelse\n  echo 0 > /logs/verifier/reward.txt\nfi\n"
    )
}


def _variants() -> dict[str, dict[str, object]]:
    """Fourteen Harbor task folders: the default sum task and variations of its layout."""
    two = fixtures.TASK_TOML.replace('version = "1.0"', 'version = "2.0"')
    return {
        "sum": {},
        "sum-toml-2": {"toml": two},
        "sum-pytest-command": {"tests": {**fixtures.TESTS, "test.sh": fixtures.TEST_SH.replace("python3 -m pytest", "pytest")}},
        "sum-two-test-files": {"tests": {**fixtures.TESTS, "test_more.py": "from pathlib import Path\n\n\ndef test_numbers_kept():\n    assert Path('/app/numbers.txt').read_text().split() == ['3', '4', '5']\n"}},
        "sum-workdir-srv": {"dockerfile": DOCKERFILE.replace("WORKDIR /app", "WORKDIR /srv/work")},
        "sum-env": {"dockerfile": DOCKERFILE + "ENV ANSWER_FILE=/app/answer.txt\n",
                    "solution": {"solve.sh": "#!/bin/bash\necho 12 > \"$ANSWER_FILE\"\n"}},
        "sum-fixture-in-tests": {"tests": {**fixtures.TESTS, "expected.txt": "12\n", "test_outputs.py": fixtures.TEST_OUTPUTS.replace("/opt/verifier-fixtures/expected.txt", "/tests/expected.txt")}},
        "sum-fixtures-srv": {"dockerfile": DOCKERFILE.replace("/opt/verifier-fixtures/", "/srv/fixtures/"),
                             "tests": {**fixtures.TESTS, "test_outputs.py": fixtures.TEST_OUTPUTS.replace("/opt/verifier-fixtures/", "/srv/fixtures/")}},
        "sum-reward-file": {"tests": REWARD_FILE_TESTS},
        "sum-service": {"tests": SERVICE_TESTS, "solution": SERVICE_SOLUTION},
        "sum-user": {"dockerfile": DOCKERFILE.replace("WORKDIR /app", "RUN useradd -m worker && mkdir -p /app && chown worker /app\nWORKDIR /app") + "USER worker\n"},
        "sum-module": {"tests": MODULE_TESTS, "solution": MODULE_SOLUTION},
        "sum-uv": {"tests": {**fixtures.TESTS, "test.sh": fixtures.UV_TEST_SH}},
        "sum-solution-files": {"solution": {"solve.sh": "#!/bin/bash\nbash /solution/helper.sh\n",
                                            "helper.sh": fixtures.SOLVE_SH}},
    }  # fmt: skip


@pytest.fixture(scope="module")
def tasks_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("terminal-tasks")
    for name, options in _variants().items():
        fixtures.write_harbor_task(root, name, dockerfile=str(options.get("dockerfile", DOCKERFILE)),
                                   **{k: v for k, v in options.items() if k != "dockerfile"})  # type: ignore[arg-type]  # fmt: skip
    fixtures.write_tb1_task(root, "sum-tb1", dockerfile=DOCKERFILE)
    return root


# The tiers boxes run in: root (`full`), and root without CAP_SYS_ADMIN where user namespaces are
# allowed (`userns`: the box server runs under setpriv, as a pod without that capability would).
TIERS = {
    "full": {"isolation": "full"},
    "userns": {
        "isolation": "userns",
        "launcher": ("setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin", "--"),
    },
}


@pytest.fixture(scope="module", params=sorted(TIERS))
def env(tasks_root: Path, request: pytest.FixtureRequest):
    from codegym.envs.terminal.env import TerminalEnv

    made = TerminalEnv(str(tasks_root), mode="single", on_task_error="raise", **TIERS[request.param])
    yield made
    made.close()


def _score(env, task_id: str, script: str) -> tuple[float, object, str]:
    env.reset(options={"task_id": task_id})
    observation, reward, terminated, _, info = env.step(script)
    assert terminated
    return reward, info["grade"], observation["feedback"]


@pytest.mark.parametrize("task_id", [*_variants(), "sum-tb1"])
def test_oracle_scores_one_and_nothing_zero(env, task_id: str) -> None:
    task = env.tasks.get(task_id)
    reward, grade, _ = _score(env, task_id, task.reference)
    assert reward == 1.0, grade
    reward, grade, _ = _score(env, task_id, "true")
    assert reward == 0.0, grade


def test_tests_that_import_the_answer_count_though_they_cannot_collect_untouched(env) -> None:
    """A test file that imports the agent's module does not collect on the pristine machine;
    its tests still count: a wrong module fails, a module that writes the reward file when
    imported gains nothing, and one that defines no tests' names fails too."""
    expected = env.expected(env.tasks.get("sum-module"))
    assert [path.rsplit("/", 1)[1] for path in expected.uncollected] == ["test_module.py"]
    answer = "echo 12 > /app/answer.txt\n"
    wrong = answer + "printf 'def total():\\n    return 0\\n' > /app/answer.py\n"
    reward, grade, _ = _score(env, "sum-module", wrong)
    assert reward == 0.0 and grade.metrics["tests_total"] == 4, grade
    planted = answer + (
        'printf \'import os\\nos.makedirs("/logs/verifier", exist_ok=True)\\n'
        'open("/logs/verifier/reward.txt", "w").write("1")\\ntotal = 3\\n\' > /app/answer.py\n'
    )
    reward, grade, _ = _score(env, "sum-module", planted)
    assert reward == 0.0, grade
    reward, grade, _ = _score(env, "sum-module", answer + "echo 'x = 1' > /app/answer.py\n")
    assert reward == 0.0 and grade.status.value == "WA", grade


def test_uvx_tests_run_offline_and_report_test_by_test(env) -> None:
    """A uv preamble is served offline, and pytest under uvx still loads codegym's plugin."""
    task = env.tasks.get("sum-uv")
    expected = env.expected(task)
    assert [name.rsplit("::", 1)[1] for name in expected.ids] == ["test_answer_exists", "test_answer_is_the_sum"]
    assert expected.sessions == 1
    assert any("uv's installer replaced" in note for note in env.verifier_setup(task).notes)


def _evil_library(tmp_path: Path) -> bytes:
    source = tmp_path / "plant.c"
    source.write_text(PRELOAD_C)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp_path / "plant.so"), str(source)], check=True)
    return (tmp_path / "plant.so").read_bytes()


def _write(path: str, text: str) -> str:
    encoded = base64.b64encode(text.encode()).decode()
    return f"mkdir -p $(dirname {path}) && echo {encoded} | base64 -d > {path}\n"


FAKE_PASS = "#!/bin/sh\nmkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt; exit 0\n"
CHEATS = {
    "reward file written ahead": "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt\n",
    "python3 replaced": _write("/usr/bin/python3.11", FAKE_PASS) + "chmod +x /usr/bin/python3.11\n",
    "python3 shadowed on the PATH": _write("/usr/local/bin/python3", FAKE_PASS) + "chmod +x /usr/local/bin/python3\n",
    "pytest replaced": _write("/usr/lib/python3/dist-packages/pytest/__init__.py", "import sys\nsys.exit(0)\n")
    + _write("/usr/bin/pytest", FAKE_PASS)
    + "chmod +x /usr/bin/pytest\n",
    "bash replaced": _write("/tmp/fake", FAKE_PASS) + "chmod +x /tmp/fake && cp /tmp/fake /usr/bin/bash\n",
    "sitecustomize": _write("/usr/lib/python3/dist-packages/sitecustomize.py", PLANT)
    + _write("/usr/local/lib/python3.11/dist-packages/sitecustomize.py", PLANT),
    "a .pth file": _write("/usr/lib/python3/dist-packages/zz_plant.pth", "import os; exec(" + repr(PLANT) + ")"),
    "user site": _write("/root/.local/lib/python3.11/site-packages/usercustomize.py", PLANT),
    "planted conftest.py": _write("/conftest.py", PLANT) + _write("/app/conftest.py", PLANT) + _write("/tests/conftest.py", PLANT),
    "a fixture of its own": "echo 99 > /app/answer.txt; mkdir -p /opt/verifier-fixtures && echo 99 > /opt/verifier-fixtures/expected.txt\n",
    "the fixture's folder replaced": "echo 99 > /app/answer.txt; rm -rf /opt; mkdir -p /opt/verifier-fixtures && echo 99 > /opt/verifier-fixtures/expected.txt\n",
    "files churned while the machine is copied": (
        "setsid nohup sh -c 'while :; do for i in 1 2 3 4 5 6 7 8; do echo x > /app/churn$i; rm -f /app/churn$i; done; done' "
        ">/dev/null 2>&1 < /dev/null &\n"
    ),
    "pytest.ini at the root": _write("/pytest.ini", "[pytest]\naddopts = -p no:python\n"),
    "a process left to write after submit": (
        "setsid nohup sh -c 'sleep 0.3; while :; do echo 12 > /app/answer.txt; sleep 0.02; done' "
        ">/dev/null 2>&1 < /dev/null &\n"
    ),
}  # fmt: skip


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_cheats_score_zero(env, cheat: str) -> None:
    reward, grade, _ = _score(env, "sum", CHEATS[cheat])
    assert reward == 0.0, grade


def test_a_preloaded_library_scores_zero(env, tmp_path: Path) -> None:
    library = base64.b64encode(_evil_library(tmp_path)).decode()
    script = (
        f"echo {library} | base64 -d > /usr/local/lib/plant.so && echo /usr/local/lib/plant.so > /etc/ld.so.preload\n"
    )
    # (the library works: a program in the agent's own machine loads it)
    reward, grade, _ = _score(env, "sum", script)
    assert reward == 0.0, grade


def test_the_same_hooks_work_where_the_agent_is(env, tmp_path: Path) -> None:
    """The cheats are real: in the agent's own machine, the hooks do run (so a verifier that
    used the agent's files as they are would be fooled)."""
    from codegym.envs.terminal.env import TerminalEnv

    assert isinstance(env, TerminalEnv)
    task = env.tasks.get("sum")
    library = base64.b64encode(_evil_library(tmp_path)).decode()
    setup = (
        "mkdir -p /opt/verifier-fixtures && echo 12 > /opt/verifier-fixtures/expected.txt\n"
        f"echo {library} | base64 -d > /usr/local/lib/plant.so && echo /usr/local/lib/plant.so > /etc/ld.so.preload\n"
        "true; cat /app/answer.txt\n"
    )
    with env.open_box(task) as box:
        result = box.run(("bash", "-c", setup), cwd="/app")
    assert result.output.strip().endswith("12"), result.output


def test_tests_solution_and_fixtures_are_out_of_sight(env) -> None:
    script = (
        "ls /tests /solution /opt/verifier-fixtures 2>&1; cat /opt/verifier-fixtures/expected.txt 2>&1;"
        " grep -rl test_answer_is_the_sum / --exclude-dir=proc --exclude-dir=sys 2>/dev/null; echo done\n"
    )
    reward, grade, _ = _score(env, "sum", script)
    assert reward == 0.0
    output = next(d.message for d in grade.diagnostics if d.file == "script")
    assert output.count("No such file or directory") == 4, output  # three folders, one fixture
    assert "test_answer_is_the_sum" not in output and "12" not in output.splitlines()
    assert output.rstrip().endswith("done")


def test_when_the_agent_runs_out_of_budget_its_machine_is_judged(tasks_root: Path) -> None:
    from codegym.envs.terminal.env import TerminalEnv

    from codegym.agent import AgentLimits

    env = TerminalEnv(str(tasks_root), mode="agent", agent=AgentLimits(max_calls=2))
    try:
        env.reset(options={"task_id": "sum"})
        calls = [{"name": "bash", "arguments": {"command": "echo 12 > /app/answer.txt"}},
                 {"name": "bash", "arguments": {"command": "true"}}]  # fmt: skip
        _, reward, terminated, truncated, info = env.step(calls)
        assert truncated and not terminated and info["truncated_by"] == "calls"
        assert reward == 1.0 and info["grade"].status.value == "OK"
    finally:
        env.close()


def test_hidden_fixtures_can_be_shown_with_the_original_layout(tasks_root: Path) -> None:
    """By default a file only the tests use is out of the agent's view; hide_fixtures=False
    keeps the image as its Dockerfile made it (and the tests still judge)."""
    from codegym.envs.terminal.env import TerminalEnv

    for hide, seen in ((True, False), (False, True)):
        env = TerminalEnv(str(tasks_root), mode="single", hide_fixtures=hide)
        try:
            task = env.tasks.get("sum")
            assert env.environment(task).hidden == ("/opt/verifier-fixtures",)
            reward, grade, _ = _score(env, "sum", "cat /opt/verifier-fixtures/expected.txt > /app/answer.txt")
            assert reward == (1.0 if seen else 0.0), grade
        finally:
            env.close()


def test_agent_mode_oracle_and_tools(tasks_root: Path) -> None:
    from codegym.envs.terminal.env import TerminalEnv

    env = TerminalEnv(str(tasks_root), mode="agent")
    try:
        observation, info = env.reset(options={"task_id": "sum"})
        assert "/app" in observation["prompt"] and "submit" in observation["prompt"]
        names = [tool["function"]["name"] for tool in info["tools"]]
        assert names == ["bash", "str_replace_editor", "search", "submit"] and info["workdir"] == "/app"
        call = {"name": "bash", "arguments": {"command": "ls /opt/verifier-fixtures; cat /app/numbers.txt"}}
        late = {"name": "bash", "arguments": {"command": "sleep 30 & sleep 5", "timeout_s": 0.5}}
        observation, reward, terminated, _, info = env.step([call, late])
        assert not terminated and reward == 0.0
        assert "3\n4\n5" in observation["feedback"] and "No such file" in observation["feedback"]
        first, second = info["tool_results"]
        assert (first["timed_out"], first["background_killed"], second["timed_out"]) == (False, 0, True)
        assert second["background_killed"] == 0  # (a Terminal env keeps what a command leaves, by default)
        create = {"name": "str_replace_editor",
                  "arguments": {"command": "create", "path": "/app/answer.txt", "file_text": "12\n"}}  # fmt: skip
        observation, reward, terminated, _, info = env.step([create, {"name": "submit", "arguments": {}}])
        assert terminated and reward == 1.0, observation["feedback"]
    finally:
        env.close()
