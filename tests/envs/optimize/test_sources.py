"""PIE, EffiBench and Mercury rows as Optimize tasks.

The fixtures are made here in each set's shape (the same fields and layouts; made-up
problems). One task per loader runs through the env: its reference scores about 1x, its fast
program more."""

from __future__ import annotations

import gzip
import json
import logging
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from codegym.envs.optimize.env import OptimizeEnv
from codegym.envs.optimize.sources import load_effibench, load_mercury, load_pie

from codegym.error import TaskFormatError
from codegym.task import Task

# --- PIE: count the pairs i < j with a_i == a_j (values 0..99) -------------------------------

SLOW_CPP = """\
#include <cstdio>
int a[5000];
int main() {
    int n;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    long long pairs = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (a[i] == a[j]) pairs++;
    printf("%lld\\n", pairs);
    return 0;
}
"""
FAST_CPP = """\
#include <cstdio>
long long seen[100];
int main() {
    int n, x;
    if (scanf("%d", &n) != 1) return 1;
    long long pairs = 0;
    for (int i = 0; i < n; i++) {
        scanf("%d", &x);
        pairs += seen[x]++;
    }
    printf("%lld\\n", pairs);
    return 0;
}
"""


def equal_pairs(values: list[int]) -> int:
    return sum(c * (c - 1) // 2 for c in Counter(values).values())


def pie_case(n: int, seed: int) -> tuple[str, str]:
    values = [random.Random(seed * 1000 + i).randint(0, 99) for i in range(n)]
    return f"{n}\n{' '.join(map(str, values))}\n", f"{equal_pairs(values)}\n"


def pie_pair(problem: Any = "p90001", **extra: Any) -> dict[str, Any]:
    return {"problem_id": problem, "src_code": SLOW_CPP, "tgt_code": FAST_CPP, "language": "C++",
            "cpu_time_v0": 120.0, "cpu_time_v1": 20.0, **extra}  # fmt: skip


@pytest.fixture
def pie_tests(tmp_path: Path) -> Path:
    """PIE's test case folder: ``<problem>/input.N.txt`` and ``output.N.txt``."""
    folder = tmp_path / "merged_test_cases"
    for number, n in enumerate((5, 40, 1200, 1500)):
        (folder / "p90001").mkdir(parents=True, exist_ok=True)
        given, wanted = pie_case(n, number)
        (folder / "p90001" / f"input.{number}.txt").write_text(given)
        (folder / "p90001" / f"output.{number}.txt").write_text(wanted)
    (folder / "p90002").mkdir()
    (folder / "p90002" / "input.0.txt").write_text("1\n7\n")
    (folder / "p90002" / "output.0.txt").write_text("0\n")
    return folder


def test_pie_pairs_become_cpp_tasks_benchmarked_on_hidden_tests(pie_tests: Path) -> None:
    tasks = load_pie([pie_pair(src_id="s1", tgt_id="s2"), pie_pair(src_id="s1", tgt_id="s3"), pie_pair()], pie_tests)
    assert tasks.ids == ("pie/p90001/s1", "pie/p90001/s1-2", "pie/p90001/2")
    task = tasks.get("pie/p90001/s1")
    assert (task.language, task.reference, task.metadata["fast"]) == ("cpp", SLOW_CPP, FAST_CPP)
    assert [(t.name, t.hidden) for t in task.tests] == [("test_0", False), ("test_1", True), ("test_2", True),
                                                        ("test_3", True)]  # fmt: skip
    assert task.tests[0].code == pie_case(5, 0)[0] and task.tests[0].expected == pie_case(5, 0)[1]
    assert task.metadata["generator"] is None and task.metadata["bench_inputs"] == 2
    assert "p90001" in task.prompt


def test_a_pie_task_runs_its_slow_program_at_1x_and_its_fast_one_faster(pie_tests: Path) -> None:
    env = OptimizeEnv(load_pie([pie_pair(src_id="s1")], pie_tests))
    try:
        slow, fast = step(env, SLOW_CPP), step(env, FAST_CPP)
    finally:
        env.close()
    assert slow["status"] == "OK" and slow["grade"].metrics["speedup"] == pytest.approx(1.0, abs=0.01)
    assert fast["status"] == "OK" and fast["grade"].metrics["speedup"] > 1.5


def test_pie_reads_files_in_memory_tests_and_a_rows_test_numbers(pie_tests: Path, tmp_path: Path) -> None:
    jsonl = tmp_path / "test.jsonl.gz"
    jsonl.write_bytes(gzip.compress((json.dumps(pie_pair(src_id="s9")) + "\n").encode()))
    assert load_pie(jsonl, pie_tests).ids == ("pie/p90001/s9",)
    array = tmp_path / "pairs.json"
    array.write_text(json.dumps([{"problem_id": "p90001", "input": SLOW_CPP, "target": FAST_CPP}]))
    first = next(iter(load_pie(array, str(pie_tests))))
    assert (first.reference, first.metadata["fast"]) == (SLOW_CPP, FAST_CPP)
    in_memory = {"p90001": [("1\n5\n", "0\n"), {"input": "2\n5 5\n", "output": "1\n"}, ["3\n1 1 1\n", "3\n"]]}
    task = next(iter(load_pie([{"problem_id": "p90001", "code_v0": SLOW_CPP, "code_v1": FAST_CPP}], in_memory)))
    assert [t.code for t in task.tests] == ["1\n5\n", "2\n5 5\n", "3\n1 1 1\n"]
    chosen = next(iter(load_pie([pie_pair(tests="[0, 2, 9]")], pie_tests)))
    assert [t.name for t in chosen.tests] == ["test_0", "test_2"]


def test_pie_leaves_out_a_problem_with_one_test_and_says_so(pie_tests: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        tasks = load_pie([pie_pair(), pie_pair("p90002")], pie_tests)
    assert tasks.ids == ("pie/p90001/0",)
    assert "left out 1 of 2 row(s)" in caplog.text and "problem p90002 has 1 usable test(s)" in caplog.text
    with pytest.raises(TaskFormatError, match=r"none of the 1 row\(s\) can be an Optimize task; row 0: problem "
                                              r"p90002 has 1 usable test\(s\) in .*a task needs 2 or more"):  # fmt: skip
        load_pie([pie_pair("p90002")], pie_tests)


def test_pie_errors_name_the_row_the_field_and_the_format(pie_tests: Path, tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match=r"row 0: missing field 'src_code' \(the slow program; also read as "
                                              r"'input' or 'code_v0'\); expected a PIE row: .*this row has"):  # fmt: skip
        load_pie([{"problem_id": "p90001", "tgt_code": FAST_CPP}], pie_tests)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps(pie_pair()) + "\n" + json.dumps({"problem_id": "p90001", "src_code": SLOW_CPP}) + "\n")
    with pytest.raises(TaskFormatError, match=r"pairs\.jsonl:2: missing field 'tgt_code' \(the faster program"):
        load_pie(pairs, pie_tests)
    with pytest.raises(TaskFormatError, match=r"row 0: field 'problem_id' must be a string or an integer"):
        load_pie([pie_pair(problem=["p1"])], pie_tests)
    with pytest.raises(TaskFormatError, match=r"row 0: field 'tests' must list test numbers"):
        load_pie([pie_pair(tests="all")], pie_tests)
    with pytest.raises(TaskFormatError, match=r"row 0: language must be one of .* got 'Rust'"):
        load_pie([pie_pair(language="Rust")], pie_tests)
    with pytest.raises(TaskFormatError, match=r"is not a folder; expected PIE's test cases: a folder of "
                                              r"<problem_id>/input\.N\.txt"):  # fmt: skip
        load_pie([pie_pair()], tmp_path / "nowhere")
    (pie_tests / "p90001" / "output.3.txt").unlink()
    with pytest.raises(TaskFormatError, match=r"output\.3\.txt: missing; each input\.N\.txt needs its output\.N\.txt"):
        load_pie([pie_pair()], pie_tests)
    with pytest.raises(TaskFormatError, match=r"tests\['p1'\]\[0\]: expected an \(input, output\) pair"):
        load_pie([pie_pair("p1")], {"p1": [42, ("a", "b")]})


# --- EffiBench: LeetCode-style rows whose tests are asserts ----------------------------------

EFFI_FAST = """\
class Solution:
    def countPairs(self, nums: List[int]) -> int:
        return sum(c * (c - 1) // 2 for c in Counter(nums).values())
"""
EFFI_SLOW = """\
class Solution:
    def countPairs(self, nums: List[int]) -> int:
        pairs = 0
        for i in range(len(nums)):
            for j in range(i + 1, len(nums)):
                if nums[i] == nums[j]:
                    pairs += 1
        return pairs
"""


def effibench_row(**extra: Any) -> dict[str, Any]:
    rng = random.Random(7)
    lists = [[rng.randint(0, 20) for _ in range(150)] for _ in range(25)]
    asserts = "".join(f"assert solution.countPairs({v}) == {equal_pairs(v)}\n" for v in lists)
    return {
        "problem_idx": 9001,
        "task_name": "Count Equal Pairs",
        "difficulty": "Easy",
        "description": "Count pairs.",
        "markdown_description": "Given `nums`, return how many pairs i < j have nums[i] == nums[j].",
        "canonical_solution": f"```python\n{EFFI_FAST}```",
        "small_test_cases": "solution = Solution()\nassert solution.countPairs([1, 1, 2]) == 1\n",
        "test_case": "solution = Solution()\n" + asserts
        + "assert solution.countPairs((1, 1)) == 1\nassert solution.countPairs(build([1])) == 0\n"
        "assert solution.other([1]) == 0\nfor x in []:\n    pass\n",
        "completion": f"Here is my solution:\n```python\n{EFFI_SLOW}```\nIt counts pairs.",
        **extra,
    }  # fmt: skip


def test_effibench_asserts_become_calls_and_the_completion_the_program_to_speed_up() -> None:
    task = next(iter(load_effibench([effibench_row()])))
    assert (task.id, task.language, task.difficulty) == ("effibench/9001", "python", "easy")
    assert task.metadata["entry_point"] == "countPairs"
    assert task.prompt.startswith("Count Equal Pairs\n\nGiven `nums`")
    imports = "from collections import Counter\nfrom typing import List\n\n"
    assert task.reference == "from typing import List\n\n" + EFFI_SLOW
    assert task.metadata["fast"] == imports + EFFI_FAST
    public, *hidden = task.tests
    assert (public.code, public.expected, public.hidden) == ("[[1, 1, 2]]\n", "1\n", False)
    calls = [line for t in hidden for line in (t.code or "").splitlines()]
    assert len(hidden) == 3 and all(t.hidden for t in hidden) and len(calls) == 25, "the literal asserts only"
    assert len((hidden[0].expected or "").split()) == 10


def test_an_effibench_row_without_a_completion_speeds_up_its_canonical_solution() -> None:
    row = effibench_row()
    del row["completion"]
    task = next(iter(load_effibench([row])))
    assert task.reference == "from collections import Counter\nfrom typing import List\n\n" + EFFI_FAST
    assert task.metadata["fast"] is None


def test_an_effibench_task_runs_its_completion_at_1x_and_its_canonical_solution_faster() -> None:
    env = OptimizeEnv(load_effibench([effibench_row()]))
    try:
        task = next(iter(env.tasks))
        slow, fast = step(env, task.reference or ""), step(env, str(task.metadata["fast"]))
    finally:
        env.close()
    assert slow["status"] == "OK" and slow["grade"].metrics["speedup"] == pytest.approx(1.0, abs=0.01)
    assert fast["status"] == "OK" and fast["grade"].metrics["speedup"] > 3


def test_effibench_leaves_out_rows_without_literal_calls(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    trees = effibench_row(problem_idx=9002, small_test_cases="",
                          test_case="root = TreeNode(1)\nassert solution.depth(root) == 1\n")  # fmt: skip
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps([effibench_row(), trees], indent=2))
    with caplog.at_level(logging.WARNING):
        assert load_effibench(path).ids == ("effibench/9001",)
    assert "dataset.json:" in caplog.text and "no test is an assert of a solution method's call" in caplog.text


def test_effibench_errors_name_the_row_and_the_field() -> None:
    row = effibench_row()
    del row["canonical_solution"]
    with pytest.raises(TaskFormatError, match=r"row 0: missing field 'canonical_solution': a EffiBench row needs "
                                              r"problem_idx, canonical_solution, test_case; this row has"):  # fmt: skip
        load_effibench([row])
    with pytest.raises(TaskFormatError, match=r"row 0: missing field 'markdown_description' \(the problem; also read "
                                              r"as 'description'\)"):  # fmt: skip
        load_effibench([effibench_row(markdown_description=None, description=None)])
    with pytest.raises(TaskFormatError, match=r"row 0: field 'test_case' must be a string or a list, got number 3"):
        load_effibench([effibench_row(test_case=3)])
    with pytest.raises(TaskFormatError, match=r"source= must be a JSON/JSONL file .* got int"):
        load_effibench(3)


# --- Mercury: solutions with runtimes, JSON test cases and a generator ------------------------

MAX_SLOW = """\
class Solution:
    def maxSubArray(self, nums: List[int]) -> int:
        best = nums[0]
        for i in range(len(nums)):
            total = 0
            for j in range(i, len(nums)):
                total += nums[j]
                best = max(best, total)
        return best
"""
MAX_FAST = """\
class Solution:
    def maxSubArray(self, nums: List[int]) -> int:
        best = current = nums[0]
        for x in nums[1:]:
            current = max(x, current + x)
            best = max(best, current)
        return best
"""
MAX_PRINTS = MAX_FAST.replace("        return best", "        print(best)\n        return best")
PAIRS_SLOW = """\
class Solution:
    def countPairs(self, nums: List[int], target: int) -> int:
        return sum(nums[i] + nums[j] == target for i in range(len(nums)) for j in range(i + 1, len(nums)))
"""
PAIRS_FAST = """\
class Solution:
    def countPairs(self, nums: List[int], target: int) -> int:
        seen, pairs = defaultdict(int), 0
        for x in nums:
            pairs += seen[target - x]
            seen[x] += 1
        return pairs
"""
IDENTITY = "def convert_offline(case):\n    return case\n"
EQUALITY = "def evaluate_offline(inputs, outputs, expected):\n    if outputs == expected:\n        return True\n    return False\n"


MAX_CASES = [
    {"input": [[-2, 1, -3, 4, -1, 2, 1, -5, 4]], "expected": 6},
    {"input": [[1]], "expected": 1},
    {"input": [[5, 4, -1, 7, 8]], "expected": 23},
    {"input": [[-3, -1]], "expected": -1},
]
MAX_SOLUTIONS = [
    {"solution": MAX_PRINTS, "runtime": "30ms"},
    {"solution": MAX_FAST, "runtime": "52ms"},
    {"solution": MAX_SLOW, "runtime": "1204ms"},
    {"solution": "class Solution:\n  def (", "runtime": "9ms"},
]
MAX_GENERATOR = """\
import random

def generate_test_case():
    return [random.randint(-50, 50) for _ in range(random.randint(40, 60))]
"""


def mercury_row(**extra: Any) -> dict[str, Any]:
    return {
        "id": 53,
        "slug_name": "maximum-subarray",
        "difficulty": "Medium",
        "meta_info": {},
        "pretty_content": [
            "Given an integer array nums, return the largest sum of a contiguous subarray.\n\nExample 1:"
        ],
        "prompt": "class Solution:\n    def maxSubArray(self, nums: List[int]) -> int:\n        ",
        "entry_point": "maxSubArray",
        "solutions": MAX_SOLUTIONS,
        "test_cases": json.dumps(MAX_CASES),
        "generator_code": MAX_GENERATOR,
        "convert_online": "def convert_online(case):\n    return case\n",
        "convert_offline": IDENTITY,
        "evaluate_offline": EQUALITY,
        **extra,
    }


def pairs_row(**extra: Any) -> dict[str, Any]:
    return mercury_row(
        slug_name="pair-sum-count",
        entry_point="countPairs",
        solutions=[{"solution": PAIRS_FAST, "runtime": 40}, {"solution": PAIRS_SLOW, "runtime": 900}],
        test_cases=[{"input": [[1, 2, 3], 4], "expected": 1}, {"input": [[2, 2, 2], 4], "expected": 3}],
        generator_code="def generate_test_case():\n    n = random.randint(30, 50)\n"
        "    return [random.randint(0, 9) for _ in range(n)], random.randint(0, 18)\n",
        evaluate_offline="def evaluate_offline(inputs, outputs, expected):\n    return outputs == expected\n",
        **extra,
    )


def test_mercury_rows_take_the_slowest_solution_and_wrap_the_generator() -> None:
    tasks = load_mercury([mercury_row(), pairs_row()])
    task = tasks.get("mercury/maximum-subarray")
    assert (task.difficulty, task.metadata["entry_point"]) == ("medium", "maxSubArray")
    assert task.prompt.startswith("Given an integer array nums")
    assert task.reference == "from typing import List\n\n" + MAX_SLOW
    assert task.metadata["fast"] == "from typing import List\n\n" + MAX_FAST, "the fastest that prints nothing"
    assert [t.hidden for t in task.tests] == [False, True]
    assert task.tests[1].code == "[[1]]\n[[5, 4, -1, 7, 8]]\n[[-3, -1]]\n", "the other cases, in one hidden test"
    assert task.metadata["bench_size"] == 10
    calls = generated(task, size=3)
    assert len(calls) == 3 and all(len(args) == 1 and 40 <= len(args[0]) <= 60 for args in calls), "one argument"
    assert generated(task, size=3) == calls, "seeded by the env's rng"
    pairs = tasks.get("mercury/pair-sum-count")
    assert pairs.metadata["fast"] == "from collections import defaultdict\nfrom typing import List\n\n" + PAIRS_FAST
    assert all(len(args) == 2 and isinstance(args[1], int) for args in generated(pairs, size=4)), "two arguments"


def test_a_mercury_task_runs_its_slowest_solution_at_1x_and_its_fastest_faster() -> None:
    env = OptimizeEnv(load_mercury([mercury_row()]))
    try:
        task = next(iter(env.tasks))
        slow, fast = step(env, task.reference or ""), step(env, str(task.metadata["fast"]))
    finally:
        env.close()
    assert slow["status"] == "OK" and slow["grade"].metrics["speedup"] == pytest.approx(1.0, abs=0.01)
    assert fast["status"] == "OK" and fast["grade"].metrics["speedup"] > 3


def test_mercury_leaves_out_what_json_calls_cannot_judge(caplog: pytest.LogCaptureFixture) -> None:
    trees = mercury_row(slug_name="tree", convert_offline="def convert_offline(case):\n    inputs, outputs = case\n"
                        "    return [lctk.binaryTree(inputs[0])], outputs\n")  # fmt: skip
    any_order = mercury_row(slug_name="any-order", evaluate_offline="def evaluate_offline(inputs, outputs, expected):"
                            "\n    return sorted(outputs) == sorted(expected)\n")  # fmt: skip
    untimed = mercury_row(slug_name="untimed", solutions=[{"solution": MAX_SLOW}, {"solution": MAX_FAST}])
    lonely = mercury_row(slug_name="lonely", generator_code="", test_cases="[]")
    with caplog.at_level(logging.WARNING):
        tasks = load_mercury([trees, any_order, untimed, lonely])
    assert tasks.ids == ("mercury/untimed",)
    assert tasks.get("mercury/untimed").reference.endswith(MAX_SLOW)  # type: ignore[union-attr]
    assert tasks.get("mercury/untimed").metadata["fast"] is None, "without runtimes, none is known to be faster"
    assert "left out 3 of 4 row(s)" in caplog.text and "convert_offline changes the arguments" in caplog.text
    no_generator = next(iter(load_mercury([mercury_row(generator_code="")])))
    assert no_generator.metadata["generator"] is None and no_generator.hidden_tests


def test_mercury_errors_name_the_row_and_the_field(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match=r"row 0: test_cases: not JSON \(Expecting value at column 1\)"):
        load_mercury([mercury_row(test_cases="nope")])
    with pytest.raises(TaskFormatError, match=r"row 0: test_cases\[1\]: expected \{input: \[arguments\], expected\}"):
        load_mercury([mercury_row(test_cases=[{"input": [[1]], "expected": 1}, {"input": 1}])])
    with pytest.raises(TaskFormatError, match=r"row 0: field 'solutions' must be a list, got string"):
        load_mercury([mercury_row(solutions="class Solution: ...")])
    with pytest.raises(TaskFormatError, match=r"row 0: solutions\[0\] must be an object with solution"):
        load_mercury([mercury_row(solutions=["class Solution: ..."])])
    path = tmp_path / "mercury.jsonl"
    path.write_text(json.dumps(mercury_row()) + "\n" + json.dumps({"slug_name": "x", "solutions": []}) + "\n")
    with pytest.raises(TaskFormatError, match=r"mercury\.jsonl:2: missing fields 'entry_point', 'test_cases': a "
                                              r"Mercury row needs slug_name, entry_point"):  # fmt: skip
        load_mercury(path)


def test_rows_load_from_a_datasets_dataset() -> None:
    datasets = pytest.importorskip("datasets")
    row = {k: v for k, v in pairs_row().items() if k != "meta_info"}
    rows = datasets.Dataset.from_list([{**row, "test_cases": json.dumps(row["test_cases"])}])
    assert load_mercury(rows).ids == ("mercury/pair-sum-count",)


# --- helpers -----------------------------------------------------------------------------------


def step(env: OptimizeEnv, code: str) -> dict[str, Any]:
    env.reset(seed=0)
    _, _, terminated, _, info = env.step(code)
    assert terminated
    return info


def generated(task: Task, size: int) -> list[list[Any]]:
    """The calls ``task``'s generator makes, run here as the env runs it (in a namespace of its own)."""
    namespace: dict[str, Any] = {"__name__": "generator"}
    exec(compile(str(task.metadata["generator"]), "generator.py", "exec"), namespace)
    return namespace["generate"](size, random.Random(5))
