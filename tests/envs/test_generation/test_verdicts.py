"""A kill comes from the program's behaviour: tests that fail mutants by the clock, by chance,
by what an earlier run left, or by slowing or killing the program earn no kill that a test of
the same calls' answers would not earn; and a program really slower or hungrier on a call is
still killed."""

from __future__ import annotations

import textwrap
import time

import pytest
from codegym.envs.python_function.tasks import load_tasks
from codegym.envs.test_generation import grader
from codegym.envs.test_generation.env import TestGenerationEnv
from codegym.envs.test_generation.harness import PRELOAD, job_for

from codegym.executor import Limits
from codegym.executor.registry import get_executor

VOWELS = "codegym-py/001-count-vowel-runs"
BIG = "'abe' * 20000 + 'iou x' * 3000"  # (an input the reference takes a few ms on)


@pytest.fixture(scope="module")
def env() -> TestGenerationEnv:
    made = TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)])
    yield made
    made.close()


def kills(env: TestGenerationEnv, code: str) -> set[str] | None:
    """The ids of the mutants ``code`` kills; None when it is not valid."""
    task = env.tasks.get(VOWELS)
    runs = env.launch(task, code).result()
    if env.grade(task, code, runs).metrics["valid"] != 1.0:
        return None
    return {m.id for m, k in grader.verdicts(runs) if k}


def honest(env: TestGenerationEnv, call: str) -> set[str]:
    """What a test asserting the reference's answer to ``call``, by value and type, kills."""
    namespace: dict[str, object] = {}
    exec(str(env.tasks.get(VOWELS).metadata["program"]), namespace)
    expected = eval(call, namespace)
    found = kills(env, f"assert repr({call}) == {repr(expected)!r}\n")  # (by value and type)
    assert found is not None
    return found


def reference_seconds(env: TestGenerationEnv, call: str) -> float:
    namespace: dict[str, object] = {}
    exec(str(env.tasks.get(VOWELS).metadata["program"]), namespace)
    started = time.perf_counter()
    eval(call, namespace)
    return time.perf_counter() - started


def assert_no_more_than(env: TestGenerationEnv, code: str, allowed: set[str], repeats: int) -> int:
    """Grade ``code`` ``repeats`` times; every valid grading kills a subset of ``allowed``.
    Returns how many gradings were valid."""
    valid = 0
    for _ in range(repeats):
        found = kills(env, code)
        if found is not None:
            valid += 1
            assert found <= allowed, sorted(found - allowed)
    return valid


def test_a_timing_only_test_kills_no_more_than_a_test_of_the_same_answers(env: TestGenerationEnv) -> None:
    call = f"count_vowel_runs({BIG})"
    allowed = honest(env, call)
    limit = 0.3 * reference_seconds(env, call)
    over = f"import time\nt = time.perf_counter()\n{call}\nassert time.perf_counter() - t > {limit!r}\n"
    under = f"import time\nt = time.perf_counter()\n{call}\nassert time.perf_counter() - t < 0.25\n"
    assert assert_no_more_than(env, over, allowed, 3) + assert_no_more_than(env, under, allowed, 3) >= 1
    # A call whose answer nobody checks kills the mutants that raise on it, or are really slower.
    assert (kills(env, f"{call}\nassert True\n") or set()) <= allowed


def test_a_test_that_passes_by_chance_kills_no_more_than_a_test_of_the_same_answers(env: TestGenerationEnv) -> None:
    allowed = honest(env, "count_vowel_runs('ai')")
    code = "import os\ncount_vowel_runs('ai')\nassert os.urandom(1)[0] < 192\n"
    assert assert_no_more_than(env, code, allowed, 8) >= 1


def test_a_test_slow_by_chance_kills_no_more_than_a_test_of_the_same_answers(env: TestGenerationEnv) -> None:
    allowed = honest(env, "count_vowel_runs('ai')")
    code = "import os, time\ncount_vowel_runs('ai')\nif os.urandom(1)[0] < 32:\n    time.sleep(4)\nassert True\n"
    assert assert_no_more_than(env, code, allowed, 4) >= 1


SLOW_THE_PROGRAM = f"""
for _ in range(3):
    if os.fork() == 0:
        while True:
            pass
count_vowel_runs({BIG})
"""
KILL_THE_PROGRAM = f"""
spared = (os.getpid(), os.getppid(), 1)  # (the tests and the runner)
if os.fork() == 0:
    time.sleep(0.002)
    for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        if pid not in (*spared, os.getpid()):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
    os._exit(0)
count_vowel_runs({BIG})
"""


@pytest.mark.parametrize(
    "after_the_first_run",
    ["assert False", "time.sleep(4)", SLOW_THE_PROGRAM, KILL_THE_PROGRAM],
    ids=["fails", "sleeps", "slows-the-program", "kills-the-program"],
)
def test_what_a_run_leaves_for_the_next_kills_nothing(env: TestGenerationEnv, after_the_first_run: str) -> None:
    allowed = honest(env, "count_vowel_runs('ai')")
    code = f"""
import os, time
count_vowel_runs('ai')
if os.path.exists('/tmp/seen'):
{textwrap.indent(after_the_first_run.strip(), "    ")}
open('/tmp/seen', 'w').close()
"""
    found = kills(env, code)
    assert found is None or found <= allowed, sorted((found or set()) - allowed)


def test_a_test_that_fails_every_run_after_the_first_learns_nothing_from_the_first(env: TestGenerationEnv) -> None:
    """Failing only where an earlier run left a mark would kill every mutant whose answers
    differ, with no expected value written: each run starts from empty folders instead."""
    calls = """
import os, tempfile
for word in ("ai", "beautiful", "queueing", "", "rhythm", "AEIOU", "a e i"):
    count_vowel_runs(word)
"""
    code = (
        calls
        + """
marks = [os.path.join(folder, "seen") for folder in (".", tempfile.gettempdir())]
assert not any(os.path.exists(mark) for mark in [*marks, "locked"])
for mark in marks:
    open(mark, "w").close()
os.makedirs("locked/inner", exist_ok=True)
open("locked/inner/seen", "w").close()
os.chmod("locked/inner", 0)
os.chmod("locked", 0)
"""
    )
    baseline = kills(env, calls + "assert True\n")  # (the mutants that raise on a call)
    assert baseline is not None and kills(env, code) == baseline


def run_pair(reference: str, mutant: str, suite: str) -> tuple[grader.Run, grader.Run]:
    executor = get_executor(None, preload=PRELOAD)
    limits = Limits(cpu_s=5.0, wall_s=8.0, memory_bytes=256 << 20)
    job = job_for(suite, [reference, mutant], "f", limits=limits, per_test_s=2.0)
    report = grader.read_report(executor.submit(job).result())
    assert len(report.mutants) == 1
    return report.reference, report.mutants[0]


def test_a_program_that_exhausts_memory_dies_alone_and_is_killed() -> None:
    hog = "def f(x):\n    hog = []\n    while True:\n        hog.append(bytearray(1 << 20))\n"
    suite = "assert f(1) == 1\n\ndef test_other():\n    assert True\n"
    reference, run = run_pair("def f(x):\n    return x\n", hog, suite)
    assert reference.passed
    assert run.outcomes and not run.outcomes[0].passed
    if run.ended == "complete":  # (else it was still allocating when its time ran out: a loaded machine)
        assert [t.passed for t in run.outcomes] == [False, True]
        assert "gone" in (run.outcomes[0].trace or "")  # (the program's process died; the runner reported)
    assert run.divergence is not None and run.divergence.kind == "unanswered"
    assert grader.killed(run, reference)


def test_a_program_that_never_answers_is_killed_and_one_that_answers_otherwise_too() -> None:
    spin = "def f(x):\n    while True:\n        pass\n"
    reference, run = run_pair("def f(x):\n    return x\n", spin, "assert f(1) == 1\n")
    assert run.divergence is not None and run.divergence.cpu_s > grader.SLOWER_S
    assert grader.killed(run, reference)
    reference, run = run_pair("def f(x):\n    return {x, 2}\n", "def f(x):\n    return {2, x, 3}\n",
                              "assert len(f(1)) >= 2\n")  # fmt: skip
    assert run.divergence is not None and run.divergence.kind == "answer" and not grader.killed(run, reference)
    reference, run = run_pair("def f(x):\n    return x\n", "def f(x):\n    return -x\n", "assert f(1) == 1\n")
    assert grader.killed(run, reference)


def test_equal_sets_and_dicts_in_another_order_are_the_same_answer() -> None:
    reference = "def f(n):\n    return {'s': set(range(n)), 'd': {i: i for i in range(n)}}\n"
    mutant = "def f(n):\n    return {'d': {i: i for i in reversed(range(n))}, 's': set(reversed(range(n)))}\n"
    suite = "import time\nf(50)\nassert time.time() > 0\n"
    _, run = run_pair(reference, mutant, suite)
    assert run.divergence is None
