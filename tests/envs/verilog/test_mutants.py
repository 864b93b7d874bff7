"""Mutants of every bundled reference fail their problem's testbench.

Mutants are generated programmatically from each reference (operator swaps, constant changes,
inverted conditions, dropped negations, swapped branches), one change each, in the module body only. A mutant
that does not compile tells nothing and is set aside. A mutant the testbench passes is only
accepted as equivalent if a ten times longer testbench with another seed passes it too;
otherwise the problem's testbench is too weak and the test fails. Every problem must have at
least one mutant that fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from codegym.envs.verilog.env import VerilogEnv
from codegym.envs.verilog.tasks import DATA, bundled_task

from codegym.batch import Scorer
from codegym.executor import Limits
from codegym.executor.local import LocalExecutor
from codegym.grade import Status
from codegym.task import TaskSet

PER_PROBLEM = 8
LIMITS = Limits(cpu_s=1.0, wall_s=3.0)  # a mutant may loop forever (k = k - 1): TLE, a failure
RECORDS = json.loads((DATA / "problems.json").read_text())


def _constant(match: re.Match[str]) -> str:
    width, base, digits = int(match.group(1)), match.group(2), match.group(3)
    value = int(digits, {"d": 10, "b": 2, "h": 16}[base])
    changed = (value ^ 1) % (1 << width)
    shown = {"d": str(changed), "b": format(changed, f"0{len(digits)}b"), "h": format(changed, "x")}[base]
    return f"{width}'{base}{shown}"


OPERATORS: list[tuple[str, str | object]] = [
    (r"(?<![+])\+(?![+:])", "-"),
    (r"(?<![-<>])-(?![-:>])", "+"),
    (r"(?<![&])&(?![&])", "|"),
    (r"(?<![|])\|(?![|])", "&"),
    (r"\^", "|"),
    (r"&&", "||"),
    (r"\|\|", "&&"),
    (r"==", "!="),
    (r"!=", "=="),
    (r"(?<![<>=!-])>(?![>=])", ">="),
    (r"(?<![<>=!])<(?![<=])", "<="),
    (r"(\d+)'([dbh])([0-9a-fA-F]+)", _constant),
    (r"\bif \(([^()]*)\)", r"if (!(\1))"),
    (r"~(?![&|^])", ""),
    (r"\?\s*([\w']+(?:\[[^\]]*\])?)\s*:\s*([\w']+(?:\[[^\]]*\])?)", r"? \2 : \1"),
    (r"\*", "+"),
    (r"<<", ">>"),
    (r">>", "<<"),
]


def mutants(reference: str) -> Iterator[str]:
    """Every single-change mutant of the reference's module body."""
    start = reference.index(");") + 2
    head, body = reference[:start], reference[start:]
    seen = set()
    for pattern, replacement in OPERATORS:
        for match in re.finditer(pattern, body):
            new = match.expand(replacement) if isinstance(replacement, str) else replacement(match)  # type: ignore[operator]
            mutant = head + body[: match.start()] + new + body[match.end() :]
            if mutant != reference and mutant not in seen:
                seen.add(mutant)
                yield mutant


def _spread(items: list[str], count: int) -> list[str]:
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


@pytest.mark.slow
def test_mutants_of_every_reference_fail(executor: LocalExecutor) -> None:
    env = VerilogEnv(executor=executor, lint="never", limits=LIMITS)
    strong_records = [
        {**r, "stimulus": {**r["stimulus"], "random": r["stimulus"]["random"] * 10, "seed": r["stimulus"]["seed"] + 1}}
        for r in RECORDS
    ]
    strong = VerilogEnv(
        TaskSet(bundled_task(r) for r in strong_records), executor=executor, lint="never", limits=LIMITS
    )
    chosen = {task.id: _spread(list(mutants(task.reference or "")), PER_PROBLEM) for task in env.tasks}
    pairs = [(task_id, code) for task_id, codes in chosen.items() for code in codes]
    with Scorer(env, dedupe=False) as scorer:
        grades = scorer.score(pairs)
    killed: dict[str, int] = dict.fromkeys(chosen, 0)
    survivors = []
    for (task_id, code), grade in zip(pairs, grades, strict=True):
        if grade.status is Status.OK:
            survivors.append((task_id, code))
        elif grade.status is not Status.CE:
            assert grade.status in (Status.WA, Status.TLE), (task_id, grade.feedback())
            killed[task_id] += 1
    with Scorer(strong, dedupe=False) as scorer:
        rechecked = scorer.score(survivors)
    weak = [
        (task_id, code)
        for (task_id, code), grade in zip(survivors, rechecked, strict=True)
        if grade.status is not Status.OK
    ]
    assert not weak, f"mutants the testbench missed but a longer one catches: {weak[:2]}"
    assert all(killed.values()), [task_id for task_id, n in killed.items() if not n]
    assert sum(killed.values()) >= 3 * len(chosen)
