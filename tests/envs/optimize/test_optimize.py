"""Optimize-v0: the speedup reward, the meter's determinism, and the cheats it must not pay.

Most tests use one small Python task made here (a quadratic pair count) and one in C, so that
the reference's calibration and each step stay short."""

from __future__ import annotations

import json
import math
import multiprocessing
import statistics
from collections.abc import Iterator
from typing import Any

import pytest
from codegym.envs.optimize.env import OptimizeEnv
from codegym.envs.optimize.tasks import load_tasks

from codegym.error import TaskFormatError
from codegym.grade import Status
from codegym.meter import native

GENERATOR = """
def generate(size, rng):
    values = [rng.randint(-30, 30) for _ in range(size)]
    return f"{size} {rng.randint(-10, 10)}\\n{' '.join(map(str, values))}\\n"
"""
SLOW_PY = """\
n, t = map(int, input().split())
a = list(map(int, input().split()))
count = 0
for i in range(n):
    for j in range(i + 1, n):
        if a[i] + a[j] == t:
            count += 1
print(count)
"""
FAST_PY = """\
n, t = map(int, input().split())
seen = {}
count = 0
for x in map(int, input().split()):
    count += seen.get(t - x, 0)
    seen[x] = seen.get(x, 0) + 1
print(count)
"""
SLOW_C = """\
#include <stdio.h>
int main(void) {
    int n, t, a[5000];
    if (scanf("%d %d", &n, &t) != 2) return 1;
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    long long count = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (a[i] + a[j] == t) count++;
    printf("%lld\\n", count);
    return 0;
}
"""
FAST_C = """\
#include <stdio.h>
int main(void) {
    int n, t, x;
    static long long seen[61];
    if (scanf("%d %d", &n, &t) != 2) return 1;
    long long count = 0;
    for (int i = 0; i < n; i++) {
        scanf("%d", &x);
        int want = t - x;
        if (want >= -30 && want <= 30) count += seen[want + 30];
        seen[x + 30]++;
    }
    printf("%lld\\n", count);
    return 0;
}
"""
TESTS = [
    {"input": "4 0\n1 -1 2 -2\n", "expected": "2\n", "hidden": False},
    {"input": "5 2\n1 1 1 1 1\n", "expected": "10\n"},
    {"input": "1 0\n0\n", "expected": "0\n"},
    {"input": "3 100\n1 2 3\n", "expected": "0\n"},
]


def row(language: str, reference: str, fast: str, **extra: Any) -> dict[str, Any]:
    return {"id": f"pairs-{language}", "language": language, "prompt": "Count the pairs i < j with a_i + a_j = t.",
            "reference": reference, "fast": fast, "generator": GENERATOR, "bench_size": 400, "tests": TESTS,
            **extra}  # fmt: skip


@pytest.fixture(scope="module")
def python_env() -> Iterator[OptimizeEnv]:
    env = OptimizeEnv([row("python", SLOW_PY, FAST_PY)])
    yield env
    env.close()


@pytest.fixture(scope="module")
def c_env() -> Iterator[OptimizeEnv]:
    env = OptimizeEnv([row("c", SLOW_C, FAST_C, bench_size=1500)])
    yield env
    env.close()


def step(env: OptimizeEnv, code: str) -> tuple[float, dict[str, Any]]:
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(code)
    assert terminated
    return reward, info


# --- the reward ----------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["python_env", "c_env"])
def test_the_reference_scores_one_and_a_faster_program_more(fixture: str, request: pytest.FixtureRequest) -> None:
    env: OptimizeEnv = request.getfixturevalue(fixture)
    task = next(iter(env.tasks))
    reward, info = step(env, task.reference or "")
    assert info["status"] == "OK"
    assert info["grade"].metrics["speedup"] == pytest.approx(1.0, abs=0.005)
    assert reward == pytest.approx(1.0, abs=0.01)
    reward, info = step(env, str(task.metadata["fast"]))
    grade = info["grade"]
    assert grade.status is Status.OK
    assert grade.metrics["speedup"] > 3
    expected = min(math.log(100.0), math.log(grade.metrics["speedup"]))
    assert info["reward_components"]["speedup"] == pytest.approx(expected)
    assert any(d.code == "profile" and d.line for d in grade.diagnostics), "the profile names the program's lines"


def test_a_wrong_program_scores_zero_whatever_its_cost(python_env: OptimizeEnv) -> None:
    reward, info = step(python_env, "input()\ninput()\nprint(0)\n")
    assert info["status"] == "WA"
    assert reward == 0.0


def test_fast_p_and_correct_rewards() -> None:
    rows = [row("python", SLOW_PY, FAST_PY)]
    fast_p = OptimizeEnv(rows, reward="fast_p", p=2.0)
    _, info = step(fast_p, FAST_PY)
    assert info["reward_components"] == {"correct": 1.0, "speedup": 0.0}
    _, info = step(fast_p, SLOW_PY)
    assert info["reward_components"] == {"correct": 1.0, "speedup": -1.0}
    plain = OptimizeEnv(rows, reward="correct")
    assert step(plain, FAST_PY)[1]["reward_components"] == {"correct": 1.0}


def test_the_profile_shows_the_hot_line_with_its_text(python_env: OptimizeEnv) -> None:
    _, info = step(python_env, SLOW_PY)
    notes = [d for d in info["grade"].diagnostics if d.code == "profile"]
    assert notes[0].line in (5, 6)
    assert "a[i] + a[j]" in notes[0].message or "range(i + 1, n)" in notes[0].message
    assert "main.py:" in info["grade"].feedback()


def test_bad_arguments_and_rows_are_refused() -> None:
    with pytest.raises(ValueError, match="measure must be one of"):
        OptimizeEnv([row("python", SLOW_PY, FAST_PY)], measure="seconds")  # type: ignore[arg-type]
    with pytest.raises(TaskFormatError, match="language must be one of"):
        load_tasks([row("rust", SLOW_PY, FAST_PY)])
    with pytest.raises(TaskFormatError, match="missing field 'reference'"):
        load_tasks([{k: v for k, v in row("python", SLOW_PY, FAST_PY).items() if k != "reference"}])
    with pytest.raises(TaskFormatError, match="needs bench_size"):
        load_tasks([{**row("python", SLOW_PY, FAST_PY), "bench_size": None}])


def test_a_task_whose_generator_fails_is_ungradable_not_a_wrong_answer() -> None:
    env = OptimizeEnv(
        [row("python", SLOW_PY, FAST_PY, generator="def generate(size, rng):\n    raise ValueError('x')\n")]
    )
    _, info = step(env, FAST_PY)
    assert info["status"] == "IE"
    assert "generator failed" in info["task_error"]


# --- determinism -----------------------------------------------------------------------------


def _spin(stop: Any) -> None:
    while not stop.is_set():
        pass


@pytest.mark.parametrize("fixture", ["python_env", "c_env"])
def test_the_count_does_not_move_when_the_other_core_is_busy(fixture: str, request: pytest.FixtureRequest) -> None:
    env: OptimizeEnv = request.getfixturevalue(fixture)
    task = next(iter(env.tasks))
    stop = multiprocessing.get_context("fork").Event()
    spinner = multiprocessing.get_context("fork").Process(target=_spin, args=(stop,), daemon=True)
    spinner.start()
    try:
        costs = [env.evaluate_task(task, task.reference or "")[0].metrics["cost"] for _ in range(5)]
    finally:
        stop.set()
        spinner.join(5)
    spread = (max(costs) - min(costs)) / statistics.median(costs)
    assert spread <= 0.005, costs


# --- cheats --------------------------------------------------------------------------------


def test_a_table_of_answers_for_the_shown_tests_is_wrong_on_the_benchmark(python_env: OptimizeEnv) -> None:
    table = "\n".join(f"    {t['input']!r}: {t['expected']!r}," for t in TESTS)
    code = f"import sys\nanswers = {{\n{table}\n}}\nprint(answers.get(sys.stdin.read(), '0\\n'), end='')\n"
    reward, info = step(python_env, code)
    assert info["status"] == "WA" and "benchmark" in info["grade"].message
    assert reward == 0.0


def test_a_cache_on_disk_does_not_survive_to_the_next_run(python_env: OptimizeEnv) -> None:
    cached = (
        "import os, sys\n"
        "data = sys.stdin.read()\n"
        "key = '/tmp/cache-' + str(hash(data))\n"
        "if os.path.exists(key):\n"
        "    print(open(key).read())\n"
        "    raise SystemExit\n"
        "n, t, *a = map(int, data.split())\n"
        "count = sum(1 for i in range(n) for j in range(i + 1, n) if a[i] + a[j] == t)\n"
        "open(key, 'w').write(str(count))\n"
        "print(count)\n"
    )
    speedups = [step(python_env, cached)[1]["grade"].metrics["speedup"] for _ in range(2)]
    assert speedups[1] == pytest.approx(speedups[0], rel=0.001)  # (no run found the last one's cache)
    assert speedups[1] <= 1.5


def test_threads_and_processes_cannot_do_the_work_uncounted(python_env: OptimizeEnv) -> None:
    for code, stopped_on in (
        ("import threading\nt = threading.Thread(target=lambda: None)\nt.start()\nt.join()\n" + FAST_PY, "benchmark"),
        ("import os\nif os.fork() == 0:\n    os._exit(0)\n" + FAST_PY, "benchmark"),
        ("import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'pass'], check=True)\n" + FAST_PY, "test_0"),
    ):
        reward, info = step(python_env, code)
        assert reward == 0.0, info["grade"].message
        assert stopped_on in info["grade"].message
        if stopped_on == "benchmark":  # (the tests allow them; the metered run does not)
            assert info["status"] == "SEC" and "another process or thread" in info["grade"].message


def test_a_c_program_cannot_fork_the_work_away(c_env: OptimizeEnv) -> None:
    # The first passes its tests or not by a race (is the child's output read?); the second
    # always passes them. A metered run stops both at the fork: the same verdict every run.
    handed_over = "    if (fork() > 0) return 0;"
    harmless = "    if (fork() == 0) _exit(0);\n    wait(NULL);"
    for forking in (handed_over, harmless):
        code = FAST_C.replace(
            "int main(void) {", f"#include <unistd.h>\n#include <sys/wait.h>\nint main(void) {{\n{forking}"
        )
        for _ in range(2):
            reward, info = step(c_env, code)
            assert reward == 0.0
            assert info["status"] in ("WA", "SEC")
    assert info["status"] == "SEC" and "another process" in info["grade"].message


def test_printing_early_and_exiting_is_no_speed(python_env: OptimizeEnv) -> None:
    for code in ("import os\nprint(0, flush=True)\nos._exit(0)\n", FAST_PY + "import os\nos._exit(0)\n"):
        reward, info = step(python_env, code)
        assert reward == 0.0
        assert info["status"] in ("WA", "HACK")


def test_the_program_cannot_read_the_tests_the_reference_or_the_generator(python_env: OptimizeEnv) -> None:
    spy = (
        "import os, sys\n"
        "found = []\n"
        "for root, folders, files in os.walk('/'):\n"
        "    if root.startswith(('/proc', '/sys', '/usr', '/lib', '/etc', '/dev', '/bin', '/sbin')):\n"
        "        folders[:] = []\n"
        "        continue\n"
        "    for name in files:\n"
        "        try:\n"
        "            if 'generate(size' in open(os.path.join(root, name), errors='ignore').read():\n"
        "                found.append(os.path.join(root, name))\n"
        "        except OSError:\n"
        "            pass\n"
        "sys.stderr.write(repr(found))\n"
        "raise SystemExit(1 if found else 0)\n"
    )
    env = python_env
    env.reset(seed=0)
    task = next(iter(env.tasks))
    grade, _ = env.evaluate_task(task, spy)
    runs = [t for t in grade.tests if t.status == "RE"]
    assert not runs, [t.trace for t in runs]


@pytest.mark.parametrize(
    "cheat",
    [
        "import sys\nsys.settrace(None)\n",
        "import sys\nsys._getframe().f_trace_opcodes = False\n",
        "import sys\nsys.setprofile(None)\n",
        "import ctypes\nctypes.pythonapi.PyEval_SetTrace(None, None)\n",
        "import sys\nsys.modules['codegym.executor._linux']._libc.getpid()\n",
        "import marshal\nmarshal.loads(marshal.dumps(compile('1', 'x', 'eval')))\n",
        "f = lambda: 0\nf.__code__ = f.__code__.replace(co_consts=(1,))\n",
        "open('/proc/self/mem', 'rb')\n",
        "import sys\nmeter = [m for n, m in sys.modules.items() if n.endswith('_opcount')][0]\n"
        "meter.run(compile('0', 'main.py', 'exec'), {}, 1, 0, 'main.py')\n",
    ],
    ids=[
        "settrace",
        "frame-switch",
        "setprofile",
        "ctypes",
        "loaded-ctypes",
        "marshal",
        "code-replace",
        "proc-mem",
        "rerun-meter",
    ],
)
def test_a_program_that_finds_the_meter_cannot_switch_it_off(python_env: OptimizeEnv, cheat: str) -> None:
    """Each way to stop or fool the count, tried before the work: the program never gets a
    cost lower than its work's."""
    guarded = "try:\n" + "".join(f"    {line}\n" for line in cheat.splitlines()) + "except Exception:\n    pass\n"
    reward, info = step(python_env, guarded + SLOW_PY)
    assert reward <= 1.01  # (the reference's own)
    if info["status"] == "OK":
        assert info["grade"].metrics["speedup"] == pytest.approx(1.0, abs=0.01)
    reward, info = step(python_env, cheat + SLOW_PY)  # (unguarded: the refusal ends the run)
    assert reward == 0.0


def test_a_c_program_cannot_stop_valgrinds_count(c_env: OptimizeEnv) -> None:
    """Callgrind's client requests (instrumentation off around the work) are inline assembly,
    which the meter's build refuses (and cachegrind would ignore); writing to every descriptor
    cannot reach valgrind's log."""
    toggled = SLOW_C.replace("#include <stdio.h>", "#include <stdio.h>\n#include <valgrind/callgrind.h>").replace(
        "    long long count = 0;", "    CALLGRIND_STOP_INSTRUMENTATION;\n    long long count = 0;"
    )
    reward, info = step(c_env, toggled)
    assert (reward, info["status"]) == (0.0, "CE")
    assert any("inline assembly" in d.message for d in info["grade"].diagnostics)
    forged = SLOW_C.replace(
        "#include <stdio.h>", "#include <stdio.h>\n#include <string.h>\n#include <unistd.h>"
    ).replace(
        "    return 0;\n}",
        '    const char *fake = "==1== I   refs:      1\\n";\n'
        "    for (int fd = 3; fd < 1024; fd++) write(fd, fake, strlen(fake));\n    return 0;\n}",
    )
    _, info = step(c_env, forged)
    assert info["status"] == "OK", info["grade"].message
    assert info["grade"].metrics["speedup"] <= 1.01


FAKE_PROFILE = "events: Ir Bc Bcm Bi Bim\\nfl=main.c\\nfn=main\\n1 9 0 0 0 0\\nsummary: 9 0 0 0 0\\n"


@pytest.mark.parametrize("plant", ["file", "folder"])
def test_a_program_cannot_plant_its_per_line_counts(c_env: OptimizeEnv, plant: str) -> None:
    """The per-line file the divisions are read from is written by cachegrind after the
    program has ended, over whatever the program left there; a later metered run's program
    rewriting an earlier run's file is caught by the seal the later run's runner took (HACK),
    and where cachegrind cannot write the file (a folder in its place) the count fails rather
    than going unweighed."""
    make = (
        '{FILE *f = fopen(name, "w"); if (f) { fputs("' + FAKE_PROFILE + '", f); fclose(f); }}'
        if plant == "file"
        else "mkdir(name, 0755);"
    )
    planted = SLOW_C.replace("#include <stdio.h>", "#include <stdio.h>\n#include <sys/stat.h>").replace(
        "    return 0;\n}",
        '    for (int i = 0; i < 8; i++) { char name[64]; snprintf(name, sizeof name, "bench%d.in.cachegrind", i); '
        + make
        + " }\n    return 0;\n}",
    )
    reward, info = step(c_env, planted)
    assert reward == 0.0
    assert info["status"] == ("HACK" if plant == "file" else "RE"), info["grade"].message


def test_a_division_in_place_of_cheaper_instructions_does_not_pay(c_env: OptimizeEnv) -> None:
    """Fewer instructions are not faster when one of them is a division: dividing by a value
    known only at run time (one ``idiv``) instead of by a constant (a multiply and shifts)
    retires fewer instructions and costs more."""
    extra = (
        "    long long s = 0;\n    for (int i = 0; i < 200000; i++) s += i / DIVISOR;\n    if (s == 1234567) count++;\n"
    )
    constant = SLOW_C.replace("    printf(", extra.replace("DIVISOR", "10") + "    printf(")
    variable = SLOW_C.replace(
        "    printf(", "    int ten = 10 + (n < 0);\n" + extra.replace("DIVISOR", "ten") + "    printf("
    )
    (_, by_constant), (_, by_variable) = step(c_env, constant), step(c_env, variable)
    multiplied, divided = by_constant["grade"].metrics, by_variable["grade"].metrics
    assert by_constant["status"] == by_variable["status"] == "OK"
    assert divided["instructions"] < multiplied["instructions"]
    assert divided["divisions"] >= 200000 > multiplied["divisions"]
    assert divided["cost"] > multiplied["cost"]
    assert divided["cost"] == (
        divided["instructions"]
        + (native.DIVISION_WEIGHT - 1) * divided["divisions"]
        + native.MISPREDICT_WEIGHT * divided["mispredicts"]
    )


def test_the_bundled_tasks_load_and_each_has_a_faster_solution() -> None:
    tasks = load_tasks("codegym-optimize")
    assert {t.language for t in tasks} == {"python", "c", "cpp"}
    assert all(t.metadata["fast"] and t.public_tests and t.hidden_tests for t in tasks)


# --- function tasks ----------------------------------------------------------------------

SLOW_FUNCTION = """\
class Solution:
    def countPairs(self, a, t):
        count = 0
        for i in range(len(a)):
            for j in range(i + 1, len(a)):
                if a[i] + a[j] == t:
                    count += 1
        return count
"""
FAST_FUNCTION = """\
def countPairs(a, t):
    seen, count = {}, 0
    for x in a:
        count += seen.get(t - x, 0)
        seen[x] = seen.get(x, 0) + 1
    return count
"""
CALLS_GENERATOR = """
def generate(size, rng):
    return [[[rng.randint(-30, 30) for _ in range(size)], rng.randint(-10, 10)] for _ in range(2)]
"""


def function_row(**extra: Any) -> dict[str, Any]:
    tests = [{"args": [[1, -1, 2, -2], 0], "expected": 2, "hidden": False}, {"args": [[1, 1, 1], 2], "expected": 3},
             {"args": [[5], 5], "expected": 0}]  # fmt: skip
    return {"id": "pairs-function", "language": "python", "prompt": "Count the pairs with sum t.",
            "reference": SLOW_FUNCTION, "fast": FAST_FUNCTION, "entry_point": "countPairs",
            "generator": CALLS_GENERATOR, "bench_size": 300, "tests": tests, **extra}  # fmt: skip


def test_a_function_task_is_driven_call_by_call() -> None:
    env = OptimizeEnv([function_row()])
    obs, _ = env.reset(seed=0)
    assert "countPairs" in obs["prompt"] and "[[1,-1,2,-2],0]" in obs["prompt"].replace(" ", "")
    _, reward, _, _, info = env.step(SLOW_FUNCTION)
    assert info["status"] == "OK" and info["grade"].metrics["speedup"] == pytest.approx(1.0, abs=0.005)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(FAST_FUNCTION)  # (a plain function may replace the method)
    assert info["status"] == "OK" and info["grade"].metrics["speedup"] > 3
    env.reset(seed=0)
    _, reward, _, _, info = env.step(FAST_FUNCTION.replace("return count", "return count + 1"))
    assert info["status"] == "WA" and reward == 0.0


def test_a_task_without_a_generator_is_benchmarked_on_its_hidden_tests() -> None:
    row = function_row(generator=None, bench_size=None)
    env = OptimizeEnv([row])
    _, info = step(env, FAST_FUNCTION)
    assert info["status"] == "OK"
    assert "2 hidden benchmark inputs" in info["grade"].message


def test_validate_checks_that_the_faster_solution_is_correct_and_faster() -> None:
    from codegym.validation import validate

    wrong = {**row("python", SLOW_PY, FAST_PY.replace("print(count)", "print(count + 1)")), "id": "wrong-fast"}
    same = {**row("python", SLOW_PY, SLOW_PY), "id": "not-faster"}
    report = validate(OptimizeEnv([row("python", SLOW_PY, FAST_PY), wrong, same]), runs=1)
    verdicts = {c.task_id: (c.verdict, c.reason) for c in report.checks}
    assert verdicts["pairs-python"] == ("valid", "")
    assert verdicts["wrong-fast"][0] == "invalid" and "faster solution scores WA" in verdicts["wrong-fast"][1]
    assert verdicts["not-faster"][0] == "invalid" and "not measurably faster" in verdicts["not-faster"][1]


def test_the_wall_measure_times_reference_and_program_in_turn_and_reports_an_interval() -> None:
    env = OptimizeEnv([row("python", SLOW_PY, FAST_PY)], measure="wall", wall_pairs=(3, 4), wall_budget_s=5.0)
    _, info = step(env, FAST_PY)
    metrics = info["grade"].metrics
    assert info["status"] == "OK"
    assert 3 <= metrics["pairs"] <= 4
    assert metrics["speedup_low"] <= metrics["speedup"] <= metrics["speedup_high"]
    assert metrics["cost"] > 0 and metrics["reference_cost"] > 0
    assert "wall-clock" in info["grade"].message and "interval" in info["grade"].message
    _, info = step(env, "input()\ninput()\nprint(0)\n")
    assert info["status"] == "WA"
    threaded = "import threading\nthreading.Thread(target=print).start()\n" + FAST_PY
    reward, info = step(env, threaded)  # (no thread: parallelism is no speed on the wall clock either)
    assert reward == 0.0


# --- agent mode ----------------------------------------------------------------------------


def call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def bash(env: OptimizeEnv, command: str) -> dict[str, Any]:
    _, reward, terminated, _, info = env.step(call("bash", command=command))
    assert (reward, terminated, info["format_errors"]) == (0.0, False, 0)
    return info["tool_results"][0]


@pytest.mark.parametrize(("language", "slow", "fast"), [("python", SLOW_PY, FAST_PY), ("c", SLOW_C, FAST_C)])
def test_an_agent_profiles_the_slow_program_then_submits_a_faster_one(language: str, slow: str, fast: str) -> None:
    env = OptimizeEnv([row(language, slow, fast, bench_size=400 if language == "python" else 1500)], mode="agent")
    env.reset(seed=0)
    file = "main.py" if language == "python" else "main.c"
    assert bash(env, f"cat {file}")["content"].strip() == slow.strip()
    tests = bash(env, "./run_tests")
    assert tests["exit_code"] == 0 and "1 of 1 tests passed" in tests["content"], tests["content"]
    profile = bash(env, "./profile")["content"]
    assert "instructions" in profile and f"{file}:" in profile, profile
    hot = next(line for line in profile.splitlines() if f"{file}:" in line)
    assert "a[i] + a[j]" in hot or "for" in hot, profile  # (the quadratic loop is on top)
    env.step(call("str_replace_editor", command="create", path=file, file_text=fast))
    _, reward, terminated, _, info = env.step(call("submit"))
    assert terminated and info["status"] == "OK" and info["grade"].metrics["speedup"] > 3
    assert reward > 2.0


def test_an_agent_on_a_function_task_submits_without_the_driver() -> None:
    env = OptimizeEnv([function_row()], mode="agent")
    env.reset(seed=0)
    shown = bash(env, "cat main.py")["content"]
    assert "_codegym_main" in shown and "countPairs" in shown
    assert "passed" in bash(env, "./run_tests")["content"]
    assert "function countPairs" in bash(env, "./profile")["content"]
    fast = FAST_FUNCTION + shown[shown.index("\n\ndef _codegym_main") :]
    env.step(call("str_replace_editor", command="create", path="main.py", file_text=fast))
    _, reward, terminated, _, info = env.step(call("submit"))
    assert terminated and info["status"] == "OK" and info["grade"].metrics["speedup"] > 3


def test_a_c_program_that_execs_another_leaves_no_count(c_env: OptimizeEnv) -> None:
    """A program that does its work and then ``exec``s another to print the answer (valgrind
    would count only the new program, or nothing) gets no count: 0, never a speedup."""
    relay = SLOW_C.replace("#include <stdio.h>", "#include <stdio.h>\n#include <unistd.h>").replace(
        '    printf("%lld\\n", count);',
        '    char text[32];\n    snprintf(text, sizeof text, "%lld", count);\n'
        '    execl("/bin/echo", "echo", text, (char *)0);\n    printf("%lld\\n", count);',
    )
    assert "execl" in relay
    reward, info = step(c_env, relay)
    assert reward == 0.0
    assert info["status"] in ("RE", "HACK"), info["grade"].message


def test_work_moved_into_builtins_is_counted(python_env: OptimizeEnv) -> None:
    """``a[i + 1:].count(t - a[i])`` is a quadratic loop in C: it must not count as less than
    the linear dict pass, whatever few bytecodes it takes."""
    counting = "n, t = map(int, input().split())\na = list(map(int, input().split()))\n"
    counting += "print(sum(a[i + 1:].count(t - a[i]) for i in range(n)))\n"
    task = next(iter(python_env.tasks))
    quadratic_in_c = python_env.evaluate_task(task, counting)[0]
    linear = python_env.evaluate_task(task, FAST_PY)[0]
    assert quadratic_in_c.status.value == linear.status.value == "OK"
    assert quadratic_in_c.metrics["cost"] > 5 * linear.metrics["cost"]


# Work a program can hand to a builtin, each done 200 times on 100,000 items or characters:
# each is charged, at least a character's weight (1/128 of an instruction) per item touched.
HANDED_TO_BUILTINS = {
    "sorting": "data = list(range(100000, 0, -1))\nfor _ in range(200):\n    sorted(data)\n",
    "slicing": "data = list(range(100000))\nfor _ in range(200):\n    data[1:]\n",
    "repeating": "for _ in range(200):\n    [0] * 100000\n",
    "concatenating": "text = 'x' * 100000\nfor _ in range(200):\n    text + 'y'\n",
    "searching a string": "text = 'x' * 100000\nfor _ in range(200):\n    text.find('y')\n",
    "`in` on a string": "text = 'x' * 100000\nfor _ in range(200):\n    'y' in text\n",
    "splitting": "text = 'x ' * 50000\nfor _ in range(200):\n    text.split()\n",
    "joining": "parts = ['x'] * 100000\nfor _ in range(200):\n    ''.join(parts)\n",
    "a regular expression": "import re\ntext = 'x' * 100000\nfor _ in range(200):\n    re.search('y', text)\n",
    "a compiled pattern": "import re\nfind = re.compile('y').findall\ntext = 'x' * 100000\nfor _ in range(200):\n"
    "    find(text)\n",
    "popping the front": "data = list(range(100000))\nfor _ in range(200):\n    data.pop(0)\n    data.append(0)\n",
    "big-int shifts": "for _ in range(200):\n    1 << 3000000\n",
    "big-int products": "big = 7 ** 20000\nfor _ in range(200):\n    big * big\n",
    "bytes": "data = bytes(100000)\nfor _ in range(200):\n    data.count(b'x')\n",
}


@pytest.mark.parametrize("work", HANDED_TO_BUILTINS.values(), ids=HANDED_TO_BUILTINS.keys())
def test_work_handed_to_a_builtin_is_never_free(python_env: OptimizeEnv, work: str) -> None:
    task = next(iter(python_env.tasks))
    honest = python_env.evaluate_task(task, FAST_PY)[0]
    padded = python_env.evaluate_task(task, work + FAST_PY)[0]
    assert padded.status == honest.status == Status.OK, padded.message
    assert padded.metrics["cost"] - honest.metrics["cost"] >= 200 * 100_000 / 128
