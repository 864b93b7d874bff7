"""Input answers are any expression, evaluated in the sandbox only, apart from the function's run.

CRUXEval's own inputs include a function of no parameters (``""``) and expressions
(``dict(...)``, lambdas, ``range(...)``, method calls, names the code binds); every item's
own input and output score 1. Hostile answers (exit, fake verdicts, spinning, allocating,
tampering with the function, its globals or builtins, forging the grader's channel) score 0.
"""

from __future__ import annotations

import builtins
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.output_prediction.inputs import pack, trailer, unpack
from codegym.envs.output_prediction.tasks import takes_no_arguments

import codegym
from codegym.executor import Executor, Limits
from codegym.executor.local import LocalExecutor

ENV = "codegym/OutputPrediction-v1"
LIMITS = Limits(cpu_s=1.0, wall_s=2.0, memory_bytes=128 << 20, processes=16)
TEXT = "def f(text, n):\n    return text[:n] + str(len(text))\n"
# CRUXEval-format rows of our own whose inputs are what the public file's literal-only
# reading refused: no parameters, then expressions.
ROWS = [
    {"id": "none", "code": "def f():\n    d = {'b': 2, 'a': 1}\n    return sorted(d)\n", "input": "",
     "output": "['a', 'b']"},
    {"id": "dict", "code": "def f(d):\n    return sorted(d.items())\n", "input": "dict(b=2, a=1)",
     "output": "[('a', 1), ('b', 2)]"},
    {"id": "lambda", "code": "def f(g, xs):\n    return [g(x) for x in xs]\n", "input": "lambda x: x * 2, [1, 2]",
     "output": "[2, 4]"},
    {"id": "range", "code": "def f(r):\n    return list(r)[::-1]\n", "input": "range(3)", "output": "[2, 1, 0]"},
    {"id": "method", "code": "def f(parts):\n    return parts[::-1]\n", "input": "'ab,cd'.split(',')",
     "output": "['cd', 'ab']"},
    {"id": "name", "code": "LIMIT = 3\n\ndef helper(x):\n    return x + LIMIT\n\ndef f(g, n):\n    return g(n) * 2\n",
     "input": "helper, LIMIT", "output": "12"},
    {"id": "builtin", "code": "def f(g, s):\n    return g(s)\n", "input": "str.upper, '-'.join('ab')",
     "output": "'A-B'"},
    {"id": "text", "code": TEXT, "input": "'hello', 2", "output": "'he5'"},
    {"id": "count", "code": "SEEN = [0]\n\ndef f(x):\n    SEEN[0] += 1\n    return x * SEEN[0]\n", "input": "6",
     "output": "6"},
    {"id": "call", "code": "def f(g):\n    return g()\n", "input": "lambda: 'ok'", "output": "'ok'"},
    {"id": "echo", "code": "def f(s):\n    return s\n", "input": "'needle-3f9a'", "output": "'needle-3f9a'"},
]  # fmt: skip


@pytest.fixture(scope="module")
def rows_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cruxeval") / "expressions.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def scored(executor: LocalExecutor, rows_file: Path, answers: list[tuple[str, str]], direction: str = "input") -> list:
    return codegym.score(ENV, answers, executor=executor, tasks=str(rows_file), direction=direction, limits=LIMITS)


@pytest.mark.parametrize("direction", ["input", "output"])
def test_every_item_s_own_input_and_output_scores_one(executor: LocalExecutor, rows_file: Path, direction: str) -> None:
    answers = [(row["id"], row[direction]) for row in ROWS]
    if direction == "input":  # (and written as the call, and as CRUXEval's assertion)
        answers += [(row["id"], f"f({row['input']})") for row in ROWS]
        answers += [(row["id"], f"[ANSWER]assert f({row['input']}) == {row['output']}[/ANSWER]") for row in ROWS]
    grades = scored(executor, rows_file, answers, direction)
    assert [(i, g.status.value) for (i, _), g in zip(answers, grades, strict=True)] == [(i, "OK") for i, _ in answers]


def test_wrong_expression_inputs_are_judged_by_what_the_function_returned(
    executor: LocalExecutor, rows_file: Path
) -> None:
    answers = [
        ("dict", "dict(a=1)"),  # returns [('a', 1)]
        ("range", "range(1, 4)"),
        ("lambda", "lambda x: x * 2.0, [1, 2]"),  # floats, not ints: the type counts
        ("none", "1"),  # f takes no argument
        ("text", ""),  # an empty answer for a function that takes arguments
        ("text", "nope, 2"),  # a name nothing binds
        ("text", "x for x in 'ab'"),  # a generator cannot be carried to the function's run
    ]
    grades = scored(executor, rows_file, answers)
    assert [g.status.value for g in grades] == ["WA", "WA", "WA", "RE", "CE", "RE", "RE"]
    assert grades[0].tests[0].got == "[('a', 1)]" and grades[2].tests[0].got == "[2.0, 4.0]"
    assert "takes 0 positional arguments" in grades[3].message
    assert "empty" in grades[4].feedback()
    assert "NameError: in the answer's arguments: name 'nope' is not defined" in grades[5].message
    assert "generator cannot be carried" in grades[6].message


def test_the_answer_is_evaluated_in_the_sandbox_not_here(
    executor: LocalExecutor, rows_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = gym.make(ENV, executor=executor, tasks=str(rows_file), direction="input", limits=LIMITS)
    env.reset(options={"task_id": "text"})  # (the task posed, its output read, before evaluation is refused here)

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an answer was evaluated in the trainer's process")

    for name in ("eval", "exec"):  # (compile is ast.parse's, which finds the arguments here)
        monkeypatch.setattr(builtins, name, refused)
    marker = Path(f"/tmp/codegym-op-{uuid.uuid4().hex}")
    answer = f"(open('{marker}', 'w').close(), 'hello')[1], 2"  # writes in the sandbox's /tmp, then is right
    _, reward, *_, info = env.step(answer)
    monkeypatch.undo()
    assert (reward, info["status"]) == (1.0, "OK")
    assert not marker.exists()


# Hostile answers: each would score 1 (pass) if the answer and the function shared a process, or the
# grader's channel; here each scores 0.
FORGE = (
    "import os, struct\n"
    'frame = b\'{"kind":"return","value":"he5"}\'\n'
    "for target in (3, 4, '/proc/%d/fd/4' % os.getppid(), '/proc/%d/mem' % os.getppid()):\n"
    "    try:\n"
    "        fd = target if type(target) is int else os.open(target, os.O_WRONLY)\n"
    "        os.write(fd, struct.pack('!I', len(frame)) + frame)\n"
    "    except OSError:\n"
    "        pass\n"
)
HOSTILE = [
    ("text", "__import__('os')._exit(0)"),  # exits
    ("text", "__import__('sys').exit(0)"),
    ("text", "__import__('os').kill(__import__('os').getppid(), 9)"),  # kills the process the grader talks to
    ("text", "print('Status: OK - f returns the expected output') or 'hi', 2"),  # a fake verdict
    ("text", "print('{\"phase\": \"tests\", \"results\": [{\"name\": \"prediction\", \"passed\": true}]}') or 'hi', 2"),
    ("text", "any(iter(int, 1))"),  # spins
    ("text", "[bytearray(1 << 20) for _ in range(1 << 12)]"),  # allocates (bounded by the 128 MiB limit)
    ("text", "__import__('builtins').__setattr__('str', lambda n: '5') or 'he', 2"),  # would make f('he', 2) 'he5'
    ("text", "globals().update(f=lambda *a: 'he5') or 'zz', 0"),  # rebinds f
    ("text", "setattr(f, '__code__', (lambda *a: 'he5').__code__) or 'zz', 0"),  # rewrites f
    ("count", "(f(0), 3)[1]"),  # calls f first: its state would make f(3) return 6
    ("text", f"exec({FORGE!r}) or 'hi', 2"),  # forges the grader's reply from the evaluation
    ("call", f"lambda: exec({FORGE.replace('he5', 'ok')!r}) or 'no'"),  # ... and from inside f's run
    ("call", "lambda: type('Equal', (), {'__eq__': lambda s, o: True})()"),  # an object equal to anything
    ("call", "lambda: type('S', (str,), {'__eq__': lambda s, o: True})('no')"),
    # The expected value is nowhere in the sandbox: not in its files, not in its process.
    ("echo", "'needle-3f9a' if any('needle-3f' + '9a' in open(n, errors='replace').read() for n in "
             "__import__('os').listdir('.') if __import__('os').path.isfile(n)) else 'not found'"),
]  # fmt: skip


def test_hostile_answers_score_zero(executor: LocalExecutor, rows_file: Path) -> None:
    grades = scored(executor, rows_file, HOSTILE)
    assert [(a, g.passed) for (_, a), g in zip(HOSTILE, grades, strict=True)] == [(a, False) for _, a in HOSTILE]
    by_answer = {answer: grade for (_, answer), grade in zip(HOSTILE, grades, strict=True)}
    got = {answer: grade.tests[0].got for answer, grade in by_answer.items()}
    assert got["__import__('builtins').__setattr__('str', lambda n: '5') or 'he', 2"] == "'he2'"  # builtins untouched
    assert got["globals().update(f=lambda *a: 'he5') or 'zz', 0"] == "'2'"  # f as the program bound it
    assert got["setattr(f, '__code__', (lambda *a: 'he5').__code__) or 'zz', 0"] == "'2'"
    assert got["(f(0), 3)[1]"] == "3"  # its state as the program left it
    assert got[HOSTILE[11][1]] == "'hi2'" and got[HOSTILE[12][1]] == "'no'"  # no forged reply was read
    assert got[HOSTILE[-1][1]] == "'not found'"
    statuses = [g.status.value for g in grades]
    assert statuses[:3] == ["RE"] * 3 and statuses[3:5] == ["WA", "WA"]
    assert statuses[5] == "TLE" and statuses[6] in ("MLE", "RE")
    assert statuses[13:15] == ["RE", "RE"] and "cannot cross the process boundary" in grades[13].message


@pytest.mark.parametrize("tier", ["userns-root", "userns-user", "container"])
def test_hostile_answers_score_zero_in_every_tier(
    tier: str, tier_executors: Callable[[str], Executor], rows_file: Path
) -> None:
    """Where steps run as the worker's own uid (``userns-user``) or with no pid namespace
    (``container``), the children still cannot reach the grader's channel nor each other."""
    executor = tier_executors(tier)
    grades = codegym.score(ENV, HOSTILE, executor=executor, tasks=str(rows_file), direction="input", limits=LIMITS)
    assert [(a, g.passed) for (_, a), g in zip(HOSTILE, grades, strict=True)] == [(a, False) for _, a in HOSTILE]
    own = codegym.score(ENV, [(row["id"], row["input"]) for row in ROWS], executor=executor, tasks=str(rows_file),
                        direction="input", limits=LIMITS)  # fmt: skip
    assert [g.status.value for g in own] == ["OK"] * len(ROWS)


def test_a_task_s_expected_output_never_enters_the_job(executor: LocalExecutor, rows_file: Path) -> None:
    env = gym.make(ENV, executor=executor, tasks=str(rows_file), direction="input").unwrapped
    job = env.build_job(env.tasks.get("echo"), "'x'.upper()")
    assert all(b"needle" not in content for content in job.files.values())
    assert job.files["solution.py"].decode().endswith(trailer("f"))
    assert job.harness is not None and b"needle" in job.harness.payload  # (the harness holds it, outside)
    literal = env.build_job(env.tasks.get("echo"), "'x'")  # (literals go as values, as they always did)
    assert literal.files["solution.py"] == ROWS[-1]["code"].encode()


# --- the sandbox side's parts, here on plain values ------------------------------------------


def roundtrip(value: Any, namespace: dict[str, Any] | None = None) -> Any:
    namespace = {} if namespace is None else namespace
    return unpack(pack(value, {}, namespace), namespace)


@pytest.mark.parametrize(
    "value",
    [None, True, 3, 2.5, 1j, "a", b"b", [1, (2, {3})], {"k": frozenset({1})}, (), range(1, 9, 2), bytearray(b"xy")],
)
def test_values_are_carried_as_themselves(value: Any) -> None:
    back = roundtrip(value)
    assert back == value and type(back) is type(value)


def test_lambdas_are_rebuilt_over_the_program_s_namespace() -> None:
    namespace: dict[str, Any] = {"K": 10}
    made = eval("lambda x, y=[1]: x + K + y[0]", namespace)
    back = roundtrip(made, namespace)
    assert back is not made and back(1) == 12
    assert back.__globals__ is namespace


@pytest.mark.parametrize(
    "source", ["(x for x in ())", "object()", "type('S', (str,), {})('s')", "(lambda y: lambda: y)(1)", "iter([])"]
)
def test_values_that_cannot_be_carried_are_named(source: str) -> None:
    namespace: dict[str, Any] = {}
    with pytest.raises(TypeError, match=r"of type \w+ cannot be carried to the function's run"):
        pack(eval(source, namespace), {}, namespace)


@pytest.mark.parametrize(
    "tree", [("v", object()), ("list", [1]), ("g", "missing"), ("b", "nope"), ("range", 1, 2), ("what",), ()]
)
def test_malformed_trees_are_refused(tree: Any) -> None:
    with pytest.raises(TypeError, match="malformed"):
        unpack(tree, {})


def test_a_function_without_parameters_takes_an_empty_input() -> None:
    assert takes_no_arguments("def f():\n    return 1\n", "f")
    assert takes_no_arguments("def f(a=1, *args, b=2, **kw):\n    return a\n", "f")
    assert not takes_no_arguments("def f(a):\n    return a\n", "f")
    assert not takes_no_arguments("def f(*, b):\n    return b\n", "f")
    assert takes_no_arguments("def f(a):\n    return a\ndef f():\n    return 1\n", "f")  # the last one counts
    assert not takes_no_arguments("def g():\n    return 1\n", "f")
