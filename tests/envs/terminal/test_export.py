"""`codegym terminal export`: codegym's tasks as Harbor task folders whose verdict is codegym's.

The layout tests read what `export_tasks` writes with codegym's own Harbor loader; the round
trip (root, debootstrap and PyPI at build: marked slow) exports a task of each family with
its reference and a wrong answer, checks each folder with the real ``harbor`` package's task
loader (`harbor_check`), imports the folders back with ``TerminalEnv(out, mode="single")``:
the oracle scores 1.0, the wrong answer 0, and the terminal verdict's per-test outcomes are
codegym's in-process ones. The StdioProgram rows (C and Rust references) are written here.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.terminal.export import (
    ANSWER_DIR,
    VERIFIER_DIR,
    build_wheel,
    decode,
    encode,
    export_tasks,
)
from codegym.envs.terminal.formats import load_task

import codegym  # noqa: F401
from codegym.error import UsageError
from codegym.task import Task, TestCase

C_SUM = (
    '#include <stdio.h>\nint main(void) { long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b); return 0; }\n'
)
C_WRONG = (
    '#include <stdio.h>\nint main(void) { long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a * b); return 0; }\n'
)
RUST_SUM = """use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    println!("{}", v[0] + v[1]);
}
"""
RUST_WRONG = RUST_SUM.replace("v[0] + v[1]", "v[0] * v[1]")
SUM_TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "2 2\n", "output": "4\n"},
             {"input": "-5 5\n", "output": "0\n"}, {"input": "100 23\n", "output": "123\n"}]  # fmt: skip


def sum_row(task_id: str, reference: str, language: str) -> dict[str, Any]:
    """A plain StdioProgram row: print the sum of two integers (the wrong answers multiply:
    right on ``2 2`` only)."""
    return {"task_id": task_id, "prompt": "Read two integers a and b from standard input; print a + b.",
            "tests": SUM_TESTS, "reference": reference, "reference_language": language}  # fmt: skip


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


# --- the folder's layout ---------------------------------------------------------------------------


def test_a_task_survives_its_json_row_with_hidden_tests_and_dataclasses() -> None:
    from codegym.grade import Status

    task = Task(id="t/1", family="demo", prompt="p", tests=(TestCase("a", "assert 1", hidden=True, tier="x"),),
                reference="r", metadata={"blob": b"\x00\xff", "ids": frozenset({"a", "b"}), "pair": (1, [2, 3]),
                                         "status": Status.OK, "keys": {1: "one"}})  # fmt: skip
    back = decode(json.loads(json.dumps(encode(task))))
    assert back == task and back.tests[0].hidden and isinstance(back.metadata["pair"], tuple)


def test_only_codegyms_classes_are_read_back() -> None:
    with pytest.raises(ValueError, match="only codegym's own classes"):
        decode({"__codegym__": "dataclass", "type": "subprocess:Popen", "fields": {"args": ["true"]}})


def test_export_writes_a_harbor_folder_codegym_reads(tmp_path: Path, wheel: Path) -> None:
    (done,) = export_tasks("codegym/PythonFunction-v0", "humaneval", tmp_path, ids=["HumanEval/0"], wheel=wheel)
    folder = tmp_path / "HumanEval-0"
    assert done.folder == folder and done.tests and all(name.startswith("test_") for name in done.tests)
    terminal = load_task(folder)
    assert terminal.version == "1.0" and terminal.layout == "harbor"
    assert (terminal.metadata["codegym_env"], terminal.metadata["codegym_task"]) == (
        "codegym/PythonFunction-v0",
        "HumanEval/0",
    )
    assert terminal.dockerfile.startswith("FROM debian:bookworm-slim\n")
    assert "python3-pytest" in terminal.dockerfile and "python3 " in terminal.dockerfile
    assert f"COPY codegym-verifier/ {VERIFIER_DIR}/" in terminal.dockerfile
    assert f"codegym-verifier/{wheel.name}" in terminal.context
    assert f"{ANSWER_DIR}/answer.py" in terminal.instruction and "has_close_elements" in terminal.instruction
    assert terminal.test_command == ("bash", "/tests/test.sh") and "test_codegym.py" in terminal.tests
    row = json.loads(terminal.tests["task.json"])
    task = gym.make("codegym/PythonFunction-v0", tasks="humaneval").unwrapped.tasks.get("HumanEval/0")
    assert decode(row["task"]) == task and row["tests"] == list(done.tests)  # hidden tests included
    solve = terminal.solution["solve.sh"].decode()
    encoded = re.search(r"<<'CODEGYM_REFERENCE'\n(.*)CODEGYM_REFERENCE", solve, re.S)
    assert encoded is not None and base64.b64decode(encoded.group(1)).decode() == task.reference
    assert f"> {ANSWER_DIR}/answer.py" in solve


def test_stdio_tasks_install_their_language_and_a_mismatched_reference_is_refused(tmp_path: Path, wheel: Path) -> None:
    rows = [sum_row("sum-c", C_SUM, "c")]
    (done,) = export_tasks("codegym/StdioProgram-v0", rows, tmp_path, wheel=wheel, language="c")
    terminal = load_task(done.folder)
    assert re.search(r"\bgcc\b", terminal.dockerfile) and "rustc" not in terminal.dockerfile
    assert "libc6-dev" in terminal.dockerfile  # (gcc without recommended packages has no stdio.h)
    assert f"{ANSWER_DIR}/answer.c" in terminal.instruction
    assert json.loads(terminal.tests["task.json"])["env_kwargs"] == {"language": "c"}
    with pytest.raises(UsageError, match="its reference is c, the env's answers are rust"):
        export_tasks("codegym/StdioProgram-v0", rows, tmp_path / "rust", wheel=wheel, language="rust")


def test_the_command_line_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from codegym.cli import main as codegym_main

    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(sum_row("sum-c", C_SUM, "c")) + "\n")
    argv = ["terminal", "export", "codegym/StdioProgram-v0", "--tasks", str(rows), "--env-arg", "language=c",
            str(tmp_path / "out")]  # fmt: skip
    assert codegym_main(argv) == 0
    assert "sum-c -> " in capsys.readouterr().out
    terminal = load_task(tmp_path / "out" / "sum-c")
    assert json.loads(terminal.tests["task.json"])["env_kwargs"] == {"language": "c"}
    assert (
        codegym_main(["terminal", "export", "codegym/StdioProgram-v0", "--tasks", str(rows), str(tmp_path / "py")]) == 2
    )
    assert "its reference is c, the env's answers are python" in capsys.readouterr().err


# --- the round trip: harbor's loader, then codegym's terminal env -----------------------------------

needs_boxes = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("debootstrap") is None,
                                 reason="building task environments needs root and debootstrap")  # fmt: skip

# (env id, task source, task id, env kwargs, a wrong answer)
FAMILIES = {
    "python-function": ("codegym/PythonFunction-v0", "humaneval", "HumanEval/0", {},
                        "def has_close_elements(numbers, threshold):\n    return False\n"),
    "stdio-c": ("codegym/StdioProgram-v0", [sum_row("sum-c", C_SUM, "c")], "sum-c", {"language": "c"}, C_WRONG),
    "stdio-rust": ("codegym/StdioProgram-v0", [sum_row("sum-rust", RUST_SUM, "rust")], "sum-rust",
                   {"language": "rust"}, RUST_WRONG),
    "verilog": ("codegym/Verilog-v1", None, "codegym-verilog/mux2", {},
                "module TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n"
                "  assign y = a;\nendmodule\n"),
    "repo-repair": ("codegym/RepoRepair-v1", None, "cachetools.drop_method.81b9e7ad", {}, ""),
}  # fmt: skip


def _writes(answer: str, content: str) -> str:
    """A single-mode script that writes ``content`` to ``answer``."""
    encoded = base64.b64encode(content.encode()).decode()
    return f"mkdir -p {ANSWER_DIR}\necho {encoded} | base64 -d > {answer}\n"


@pytest.mark.slow
@pytest.mark.timeout(3600)
@needs_boxes
@pytest.mark.parametrize("family", list(FAMILIES))
def test_round_trip(family: str, tmp_path: Path, wheel: Path) -> None:
    from codegym.envs.terminal.env import TerminalEnv
    from codegym.envs.terminal.harbor_check import harbor_check

    env_id, source, task_id, kwargs, wrong = FAMILIES[family]
    (done,) = export_tasks(env_id, source, tmp_path / "out", ids=[task_id], wheel=wheel, **kwargs)
    ((folder, ok, message),) = harbor_check([done.folder])
    assert ok and folder == done.folder.resolve(), message

    home = gym.make(env_id, **({} if source is None else {"tasks": source}), **kwargs).unwrapped
    task = home.tasks.get(task_id)
    in_process, _ = home.evaluate(task, wrong)
    home.close()
    terminal = TerminalEnv(str(tmp_path / "out"), mode="single")
    try:
        (exported,) = list(terminal.tasks)
        assert exported.reference is not None
        oracle, _ = terminal.evaluate(exported, exported.reference)
        assert terminal.reward(oracle) == 1.0, (oracle.status, oracle.message, [t.trace for t in oracle.tests][:3])
        answer = json.loads(exported.metadata["terminal"].tests["task.json"])["answer"]
        graded, _ = terminal.evaluate(exported, _writes(answer, wrong))
    finally:
        terminal.close()
    assert terminal.reward(graded) == 0.0
    outcomes = {t.name: t.passed for t in graded.tests}
    assert outcomes.pop("test_codegym.py::test_verdict") is (in_process.status.value == "OK")
    by_name = {t.name: t.passed for t in in_process.tests}
    expected = {f"{i:03d}-{name}": by_name.get(name, False) for i, name in enumerate(done.tests)}
    got = {
        re.sub(r"^test_codegym\.py::test_outcome\[(.*)\]$", r"\1", name): passed for name, passed in outcomes.items()
    }
    assert {_id(k): v for k, v in expected.items()} == got


def _id(index_name: str) -> str:
    """The pytest id the verifier gives an outcome (see the exported test module)."""
    index, _, name = index_name.partition("-")
    return f"{index}-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:80]


FAKE_CODEGYM = {
    "codegym/__init__.py": """
import json, pathlib
import gymnasium as gym

class _Status:
    value = "OK"

class _Test:
    def __init__(self, name):
        self.name, self.passed, self.trace, self.status = name, True, None, "passed"

class _Grade:
    status, message = _Status(), "all passed"
    def __init__(self, names):
        self.tests = [_Test(n) for n in names]

class _Env(gym.Env):
    action_space = observation_space = gym.spaces.Discrete(1)
    def __init__(self, **kwargs):
        pass
    def evaluate(self, task, code):
        return _Grade(json.loads(pathlib.Path("/tests/task.json").read_text())["tests"]), {}

gym.register(id="codegym/PythonFunction-v0", entry_point=_Env)
""",
    "codegym/executor/__init__.py": "",
    "codegym/executor/_pool.py": "UID_FLOOR = PID_MODULUS = 1\n",
    "codegym/envs/__init__.py": "",
    "codegym/envs/terminal/__init__.py": "",
    "codegym/envs/terminal/export.py": "def decode(value):\n    return value\n",
    "codegym/task.py": "def TaskSet(tasks):\n    return tasks\n",
}


@pytest.mark.slow
@pytest.mark.timeout(1800)
@needs_boxes
def test_an_agent_that_replaces_codegyms_wheel_scores_0(tmp_path: Path, wheel: Path) -> None:
    """The agent writes a wheel of its own (a codegym whose every verdict is OK) where the
    verifier's is: the tests' record of the wheel's hash refuses it."""
    from codegym.envs.terminal.env import TerminalEnv

    env_id, source, task_id, kwargs, wrong = FAMILIES["python-function"]
    export_tasks(env_id, source, tmp_path / "out", ids=[task_id], wheel=wheel, **kwargs)
    files = json.dumps(FAKE_CODEGYM)
    terminal = TerminalEnv(str(tmp_path / "out"), mode="single")
    try:
        (exported,) = list(terminal.tasks)
        row = json.loads(exported.metadata["terminal"].tests["task.json"])
        plant = (f"mkdir -p {VERIFIER_DIR}\npython3 - <<'EOF'\nimport json, zipfile\n"
                 f"with zipfile.ZipFile({row['wheel']!r}, 'w') as z:\n"
                 f"    for name, text in json.loads({files!r}).items():\n        z.writestr(name, text)\nEOF\n")  # fmt: skip
        graded, _ = terminal.evaluate(exported, _writes(row["answer"], wrong) + plant)
    finally:
        terminal.close()
    assert terminal.reward(graded) == 0.0, (graded.status, graded.message)
    assert not any(t.passed for t in graded.tests if t.name.endswith("test_verdict"))


def test_repo_repairs_test_environment_is_where_the_verifier_drops_the_agents_changes(
    tmp_path: Path, wheel: Path
) -> None:
    """The library's test environment (pytest among it) is installed at build; an agent that
    rewrote it would judge itself, so it lives where `sanitize` takes the agent's changes back."""
    from codegym.envs.terminal.export import CACHE_DIR
    from codegym.envs.terminal.verifier import sanitize

    env_id, source, task_id, kwargs, _ = FAMILIES["repo-repair"]
    (done,) = export_tasks(env_id, source, tmp_path / "out", ids=[task_id], wheel=wheel, **kwargs)
    assert f"ENV CODEGYM_CACHE={CACHE_DIR}\n" in load_task(done.folder).dockerfile
    planted = tmp_path / "snapshot" / CACHE_DIR.strip("/") / "repo" / "env" / "py311-x" / "site" / "pytest.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("def main(*a, **k):\n    return 0\n")
    removed = sanitize(str(tmp_path / "snapshot"), (), "/tests")
    assert any(f"{CACHE_DIR}/repo/env/py311-x/site/pytest.py".startswith(path) for path in removed), removed
    assert not planted.exists()


@pytest.mark.slow
@pytest.mark.timeout(1800)
@needs_boxes
def test_a_repository_task_holds_the_repository_an_agent_fixes_with_git_diff(tmp_path: Path, wheel: Path) -> None:
    """A RepoRepair export puts the buggy tree (its hidden test files left out) at /app/repo, a
    git repository: a fix made there and written out with ``git diff`` scores 1.0."""
    from codegym.envs.terminal.env import TerminalEnv
    from codegym.envs.terminal.export import REPOSITORY_DIR

    env_id, source, task_id, kwargs, _ = FAMILIES["repo-repair"]
    (done,) = export_tasks(env_id, source, tmp_path / "out", ids=[task_id], wheel=wheel, **kwargs)
    task = gym.make(env_id).unwrapped.tasks.get(task_id)
    instance = task.metadata["instance"]
    terminal_task = load_task(done.folder)
    assert REPOSITORY_DIR in terminal_task.instruction
    assert {f"repo/{path}" for path in instance.workspace} == {
        p for p in terminal_task.context if p.startswith("repo/")
    }
    assert not any(f"repo/{path}" in terminal_task.context for path in instance.hidden_files)
    assert task.reference is not None
    fix = base64.b64encode(task.reference.encode()).decode()
    script = f"cd {REPOSITORY_DIR}\necho {fix} | base64 -d | git apply\ngit diff > {ANSWER_DIR}/answer.diff\n"
    terminal = TerminalEnv(str(tmp_path / "out"), mode="single")
    try:
        (exported,) = list(terminal.tasks)
        graded, _ = terminal.evaluate(exported, script)
        untouched, _ = terminal.evaluate(exported, f"cd {REPOSITORY_DIR}\ngit diff > {ANSWER_DIR}/answer.diff\n")
    finally:
        terminal.close()
    assert terminal.reward(graded) == 1.0, (graded.status, graded.message)
    assert terminal.reward(untouched) == 0.0


def test_a_wheel_for_another_python_than_the_images_is_refused(tmp_path: Path, wheel: Path) -> None:
    other = tmp_path / wheel.name.replace("cp311-cp311", "cp312-cp312")
    shutil.copy(wheel, other)
    with pytest.raises(UsageError, match="is for cp312; the exported image's Python is Debian bookworm's 3\\.11"):
        export_tasks("codegym/PythonFunction-v0", "humaneval", tmp_path / "out", ids=["HumanEval/0"], wheel=other)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@needs_boxes
def test_harbor_check_reports_what_harbors_loader_refuses(tmp_path: Path, wheel: Path) -> None:
    from codegym.envs.terminal.harbor_check import harbor_check

    (done,) = export_tasks("codegym/PythonFunction-v0", "humaneval", tmp_path / "out", ids=["HumanEval/0"], wheel=wheel)
    no_tests = shutil.copytree(done.folder, tmp_path / "bad" / "no-tests")
    (no_tests / "tests" / "test.sh").unlink()
    bad_toml = shutil.copytree(done.folder, tmp_path / "bad" / "bad-toml")
    toml = bad_toml / "task.toml"
    toml.write_text(toml.read_text().replace("cpus = 1", 'cpus = "many"'))
    results = harbor_check([done.folder, no_tests, bad_toml])
    assert [(path.name, ok) for path, ok, _ in results] == [("HumanEval-0", True), ("no-tests", False),
                                                             ("bad-toml", False)]  # fmt: skip
    assert "cpus" in results[2][2], results[2][2]
