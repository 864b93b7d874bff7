"""StdioProgram-v0 reads public data sets as they are published: one small row of each format
(content made here, the formats' field names), graded right and wrong through ``gym.make``
and ``codegym.score``; per-problem time and memory limits; rows in memory."""

from __future__ import annotations

import base64
import gzip
import json
import pickle
import zlib
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.stdio_program.env import ProblemLimits, StdioProgramEnv
from codegym.envs.stdio_program.tasks import load_tasks, task_from

import codegym
from codegym.error import TaskFormatError
from codegym.grade import Status

ENV = "codegym/StdioProgram-v0"
RIGHT = "a, b = map(int, input().split())\nprint(a + b)\n"
WRONG = "a, b = map(int, input().split())\nprint(a - b)\n"
CPP_RIGHT = "#include <iostream>\nint main() { long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n"
STATEMENT = "Read two integers a and b on one line and print their sum."
CASES = [("1 2\n", "3\n"), ("10 -4\n", "6\n"), ("0 0\n", "0\n"), ("7 8\n", "15\n"), ("-5 -6\n", "-11\n")]
MiB = 1 << 20


def _columns(cases: list[tuple[str, str]]) -> dict[str, list[str]]:
    return {"input": [i for i, _ in cases], "output": [o for _, o in cases]}


def _compressed(cases: list[dict[str, str]]) -> str:
    """LiveCodeBench's form for private tests: base64 of zlib of a pickled JSON string."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()


def codecontests_row(name: str = "1001_A. Adding Up", **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": STATEMENT,
        "public_tests": _columns(CASES[:1]),
        "private_tests": _columns(CASES[1:3]),
        "generated_tests": _columns(CASES[3:]),
        "source": 2,
        "difficulty": 7,
        "solutions": {"language": [2, 3], "solution": [CPP_RIGHT, RIGHT]},
        "incorrect_solutions": {"language": [3], "solution": [WRONG]},
        "cf_contest_id": 1001,
        "cf_index": "A",
        "cf_points": 500.0,
        "cf_rating": 1500,
        "cf_tags": ["math", "implementation"],
        "is_description_translated": False,
        "untranslated_description": "",
        "time_limit": {"seconds": 2, "nanos": 0},
        "memory_limit_bytes": 256 * MiB,
        "input_file": "",
        "output_file": "",
        **fields,
    }


ROWS: dict[str, dict[str, Any]] = {
    "codecontests": codecontests_row(),
    "taco": {
        "question": STATEMENT,
        "solutions": json.dumps([RIGHT]),
        "starter_code": "",
        "input_output": json.dumps({"inputs": [i for i, _ in CASES], "outputs": [o for _, o in CASES]}),
        "difficulty": "MEDIUM_HARD",
        "raw_tags": "['Mathematics']",
        "name": "Adding Up",
        "source": "codeforces",
        "tags": "['Mathematics', 'Implementation']",
        "skill_types": "[]",
        "url": "https://example.invalid/adding-up",
        "Expected Auxiliary Space": None,
        "time_limit": "1.5 seconds",
        "date": "2020-01-01",
        "picture_num": "0",
        "memory_limit": "256 megabytes",
        "Expected Time Complexity": None,
    },
    "apps": {
        "problem_id": 4242,
        "question": STATEMENT,
        "solutions": json.dumps([RIGHT, CPP_RIGHT]),
        "input_output": json.dumps({"inputs": [i for i, _ in CASES], "outputs": [o for _, o in CASES]}),
        "difficulty": "interview",
        "url": "https://example.invalid/4242",
        "starter_code": "",
    },
    "livecodebench": {
        "question_title": "Adding Up",
        "question_content": STATEMENT,
        "platform": "atcoder",
        "question_id": "abc999_a",
        "contest_id": "abc999",
        "contest_date": "2024-01-01T00:00:00",
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": json.dumps([{"input": i, "output": o, "testtype": "stdin"} for i, o in CASES[:2]]),
        "private_test_cases": _compressed([{"input": i, "output": o, "testtype": "stdin"} for i, o in CASES[2:]]),
        "metadata": "{}",
    },
    "codeforces": {
        "id": "9999A",
        "contest_id": "9999",
        "index": "A",
        "title": "Adding Up",
        "time_limit": 1.0,
        "memory_limit": 64.0,
        "description": "Two integers are given.",
        "input_format": "One line holds two integers a and b.",
        "output_format": "Print a + b.",
        "interaction_format": None,
        "note": "Negative numbers may appear.",
        "examples": [{"input": i, "output": o} for i, o in CASES[:2]],
        "rating": 2100,
        "tags": ["math"],
        "official_tests": [{"input": i, "output": o} for i, o in CASES],
        "official_tests_complete": True,
        "input_mode": "stdio",
    },
    "plain": {
        "task_id": "plain/add",
        "prompt": STATEMENT,
        "tests": [{"input": i, "output": o} for i, o in CASES],
        "checker": {"kind": "tokens"},
        "difficulty": "easy",
        "reference": RIGHT,
    },
}

# format: (task id, difficulty, public tests, hidden tests, limits, reference language)
EXPECTED: dict[str, tuple[str, str, int, int, dict[str, Any], str]] = {
    "codecontests": ("1001_A. Adding Up", "medium", 1, 4, {"time_s": 2.0, "memory_bytes": 256 * MiB}, "python"),
    "taco": ("taco/0", "hard", 1, 4, {"time_s": 1.5, "memory_bytes": 256 * MiB}, "python"),
    "apps": ("4242", "medium", 1, 4, {}, "python"),
    "livecodebench": ("abc999_a", "easy", 2, 3, {}, "python"),
    "codeforces": ("9999A", "hard", 2, 5, {"time_s": 1.0, "memory_bytes": 64 * MiB}, "python"),
    "plain": ("plain/add", "easy", 1, 4, {}, "python"),
}


def _core(env: gym.Env) -> StdioProgramEnv:
    core = env.unwrapped
    assert isinstance(core, StdioProgramEnv)
    return core


def _write(tmp_path: Path, rows: list[dict[str, Any]], name: str = "tasks.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("fmt", list(ROWS))
def test_each_format_loads_with_its_fields(tmp_path: Path, fmt: str) -> None:
    task_id, difficulty, public, hidden, limits, language = EXPECTED[fmt]
    (task,) = load_tasks(_write(tmp_path, [ROWS[fmt]]))
    assert (task.id, task.metadata["format"], task.difficulty) == (task_id, fmt, difficulty)
    assert (len(task.public_tests), len(task.hidden_tests)) == (public, hidden)
    assert task.metadata.get("limits", {}) == limits
    assert task.language == language and (task.reference in (None, RIGHT))
    cases = CASES[:2] + CASES if fmt == "codeforces" else CASES  # (its examples, then its official tests)
    assert [(t.code, t.expected) for t in task.tests] == cases
    gzipped = tmp_path / "rows.jsonl.gz"
    gzipped.write_bytes(gzip.compress(_write(tmp_path, [ROWS[fmt]]).read_bytes()))
    assert load_tasks(gzipped).ids == (task_id,)  # (as the datasets' dumps often come)


@pytest.mark.parametrize("fmt", list(ROWS))
def test_each_format_grades_right_and_wrong(executor, tmp_path: Path, fmt: str) -> None:
    path = _write(tmp_path, [ROWS[fmt]])
    task_id = EXPECTED[fmt][0]
    env = gym.make(ENV, tasks=path, executor=executor)
    env.reset(seed=0, options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(RIGHT)
    assert (reward, info["status"], terminated) == (1.0, "OK", True)
    env.reset(seed=0, options={"task_id": task_id})
    _, reward, *_, info = env.step(WRONG)
    assert (reward, info["status"]) == (0.0, "WA")
    env.close()
    grades = codegym.score(ENV, [(task_id, RIGHT), (task_id, WRONG)], tasks=path, executor=executor)
    assert [g.status for g in grades] == [Status.OK, Status.WA]


def test_codecontests_reference_prefers_python3_then_cpp(executor) -> None:
    cpp_only = codecontests_row(solutions={"language": [1, 4, 2], "solution": ["print 1", "class A {}", CPP_RIGHT]})
    tasks = load_tasks([codecontests_row(), cpp_only | {"name": "cpp only"}])
    assert (tasks.get("1001_A. Adding Up").reference, tasks.get("1001_A. Adding Up").language) == (RIGHT, "python")
    assert (tasks.get("cpp only").reference, tasks.get("cpp only").language) == (CPP_RIGHT, "cpp")
    grades = codegym.score(ENV, [(t.id, t.reference or "") for t in tasks], tasks=tasks, executor=executor)
    assert [g.status for g in grades] == [Status.OK, Status.OK]


def test_codecontests_generated_tests_are_hidden_and_optional() -> None:
    row = codecontests_row()
    assert len(load_tasks([row]).get(row["name"]).hidden_tests) == 4
    without = load_tasks([row], include_generated=False).get(row["name"])
    assert (len(without.public_tests), len(without.hidden_tests)) == (1, 2)
    env = gym.make(ENV, tasks=[row], include_generated=False)
    assert len(_core(env).tasks.get(row["name"]).tests) == 3
    env.close()


SPIN_2S = "import time\nwhile time.process_time() < 2.0:\n    pass\n" + RIGHT


def test_codecontests_one_second_limit_grades_a_two_second_program_tle(executor) -> None:
    strict = codecontests_row("strict", time_limit={"seconds": 1, "nanos": 0})
    roomy = codecontests_row("roomy", time_limit={"seconds": 3, "nanos": 0}, generated_tests=None, private_tests=None)
    env = gym.make(ENV, tasks=[strict, roomy], executor=executor)
    core = _core(env)
    assert core.limits_for(core.tasks.get("strict")).cpu_s < 2.0 < core.limits_for(core.tasks.get("roomy")).cpu_s
    env.reset(seed=0, options={"task_id": "strict"})
    _, reward, *_, info = env.step(SPIN_2S)
    assert (reward, info["status"]) == (0.0, "TLE")
    env.reset(seed=0, options={"task_id": "roomy"})
    _, reward, *_, info = env.step(SPIN_2S)
    assert (reward, info["status"]) == (1.0, "OK")  # the env's own 2 s would have stopped it
    env.close()


def test_memory_limit_bytes_is_honoured(executor) -> None:
    hog = "x = [bytearray(1 << 20) for _ in range(400)]\n" + RIGHT
    tight = codecontests_row("tight", memory_limit_bytes=32 * MiB, generated_tests=None, private_tests=None)
    env = gym.make(ENV, tasks=[tight], executor=executor)
    limits = _core(env).limits_for(_core(env).tasks.get("tight"))
    assert limits.memory_bytes == ProblemLimits().memory_floor_bytes  # 32 MB is under the floor
    env.reset(seed=0)
    _, reward, *_, info = env.step(hog)
    assert (reward, info["status"]) == (0.0, "MLE")
    env.reset(seed=0)
    assert env.step(RIGHT)[1] == 1.0
    env.close()


def test_problem_limits_scale_and_can_be_turned_off() -> None:
    row = codecontests_row(time_limit={"seconds": 1, "nanos": 500_000_000}, memory_limit_bytes=512 * MiB)
    env = gym.make(ENV, tasks=[row], problem_limits=ProblemLimits(time_scale=2.0, time_floor_s=0.5))
    core = _core(env)
    limits = core.limits_for(core.tasks.get(row["name"]))
    assert (limits.cpu_s, limits.wall_s, limits.memory_bytes) == (3.5, 7.0, 512 * MiB)
    assert limits.processes == core.limits.processes and limits.output_bytes == core.limits.output_bytes
    env.close()
    env = gym.make(ENV, tasks=[row], problem_limits=None)
    core = _core(env)
    assert core.limits_for(core.tasks.get(row["name"])) == core.limits
    env.close()
    capped = ProblemLimits(max_cpu_s=3.0, max_memory_bytes=256 * MiB).derive(core.limits, {"time_s": 9})
    assert capped.cpu_s == 3.0
    with pytest.raises(ValueError, match="memory_floor_bytes <= max_memory_bytes"):
        ProblemLimits(memory_floor_bytes=2 << 30)


@pytest.mark.parametrize(
    ("fields", "limits"),
    [
        ({"time_limit": "1 second", "memory_limit": "64 megabytes"}, {"time_s": 1.0, "memory_bytes": 64 * MiB}),
        ({"time_limit": "2.0 seconds", "memory_limit": "1 gigabyte"}, {"time_s": 2.0, "memory_bytes": 1 << 30}),
        ({"time_limit": "1500 ms", "memory_limit": 256}, {"time_s": 1.5, "memory_bytes": 256 * MiB}),
        ({"time_limit": 2, "memory_limit": 512.0}, {"time_s": 2.0, "memory_bytes": 512 * MiB}),
        ({"time_limit": "unknown", "memory_limit": None}, {}),
    ],
)
def test_limit_values_as_sources_write_them(fields: dict[str, Any], limits: dict[str, Any]) -> None:
    task = task_from({**ROWS["taco"], **fields}, index=3)
    assert task.id == "taco/3" and task.metadata.get("limits", {}) == limits


def test_rows_in_memory_list_dataset_and_iterable_dataset(executor) -> None:
    datasets = pytest.importorskip("datasets", reason="the datasets package is not installed")
    rows = [codecontests_row(), codecontests_row("1001_B. Adding Again", time_limit={"seconds": 1, "nanos": 0})]
    mixed = load_tasks([ROWS[fmt] for fmt in ROWS])
    assert mixed.ids == tuple(EXPECTED[fmt][0] if fmt != "taco" else "taco/1" for fmt in ROWS)
    table = datasets.Dataset.from_list(rows)
    for source in (table, table.to_iterable_dataset()):
        tasks = load_tasks(source)
        assert tasks.ids == (rows[0]["name"], rows[1]["name"]) and tasks.name == "codecontests"
        assert tasks.get(rows[1]["name"]).metadata["limits"] == {"time_s": 1.0, "memory_bytes": 256 * MiB}
    grades = codegym.score(ENV, [(rows[0]["name"], RIGHT), (rows[1]["name"], WRONG)], tasks=table, executor=executor)
    assert [g.status for g in grades] == [Status.OK, Status.WA]
    env = gym.make(ENV, tasks=table, executor=executor)
    env.reset(seed=0, options={"task_id": rows[0]["name"]})
    assert env.step(RIGHT)[1] == 1.0
    env.close()


def test_unknown_fields_name_what_each_format_expects() -> None:
    with pytest.raises(
        TaskFormatError, match=r"row 0 is in no stdin/stdout task format: its fields are \['body', 'title'\]"
    ):
        load_tasks([{"title": "x", "body": "y"}])
    with pytest.raises(TaskFormatError, match=r"(?s)codecontests: public_tests.*taco: question and input_output"):
        task_from({"title": "x"})


def test_rows_of_other_families_are_refused_with_where_they_belong() -> None:
    call_based = {**ROWS["taco"], "input_output": json.dumps({"fn_name": "add", "inputs": [[1, 2]], "outputs": [3]})}
    with pytest.raises(TaskFormatError, match=r"taco/0: call-based.*PythonFunction"):
        load_tasks([call_based])
    functional = json.dumps([{"input": "1\n2", "output": "3", "testtype": "functional"}])
    leetcode = {**ROWS["livecodebench"], "public_test_cases": functional, "private_test_cases": _compressed([])}
    with pytest.raises(TaskFormatError, match=r"functional.*PythonFunction"):
        task_from(leetcode)
    with pytest.raises(TaskFormatError, match="interactive"):
        task_from({**ROWS["codeforces"], "interaction_format": "Ask queries with ?"})
    # A split that mixes them with stdin problems (TACO's do) loads the stdin ones.
    mixed = load_tasks([call_based, ROWS["taco"], call_based])
    assert mixed.ids == ("taco/1",) and mixed.get(1).metadata["format"] == "taco"


@pytest.mark.parametrize(
    ("row", "match"),
    [
        (codecontests_row(private_tests={"input": ["1 1\n"], "output": []}), "private_tests has 1 inputs but 0"),
        (
            codecontests_row(public_tests=None, private_tests=None, generated_tests={"input": [], "output": []}),
            "no stdin",
        ),
        ({**ROWS["apps"], "input_output": ""}, "task 4242 \\(apps\\): no stdin/stdout tests"),
        ({**ROWS["apps"], "input_output": "{not json"}, "input_output is not JSON"),
        (
            {**ROWS["livecodebench"], "private_test_cases": "bm90IHpsaWI="},
            "neither JSON nor LiveCodeBench's compressed",
        ),
        ({**ROWS["codeforces"], "official_tests": [["1 2", "3"]]}, "each of official_tests must be an object"),
    ],
    ids=["columns", "no-tests", "apps-empty", "apps-json", "lcb-compressed", "pairs"],
)
def test_malformed_rows_say_what_is_wrong(row: dict[str, Any], match: str) -> None:
    with pytest.raises(TaskFormatError, match=match):
        task_from(row)


def test_compressed_tests_never_unpickle_objects() -> None:
    payload = base64.b64encode(zlib.compress(pickle.dumps(Path("/etc/passwd")))).decode()
    with pytest.raises(TaskFormatError, match="refused"):
        task_from({**ROWS["livecodebench"], "private_test_cases": payload})
