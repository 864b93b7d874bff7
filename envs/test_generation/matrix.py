"""Test suites against candidate programs, all pairs at once: the pass/fail matrix of
Code-A1- and EvolveCoder-style loops, where a policy writes both programs and tests.

Every pair is its own sandbox job on the warm workers, as a test-generation step's runs are
(see `codegym.envs.test_generation.runner`): the tests call the program through a proxy and
the program never sees the tests' file, so neither side can read the other, and a pair's
cell is what running that pair alone gives.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
from codegym.envs.test_generation.grader import Run, read_run
from codegym.envs.test_generation.harness import PRELOAD, job_for

from codegym.executor import Executor, Limits, RunResult
from codegym.grade import Diagnostic, Status

DEFAULT_LIMITS = Limits(cpu_s=5.0, wall_s=8.0, memory_bytes=512 << 20, processes=16)


@dataclass(frozen=True)
class PassFailMatrix:
    """Which suite passes on which program.

    Attributes:
        runs: ``runs[i][j]``: suite ``i`` run against program ``j`` (per-test outcomes, how
            the run ended, its status). A suite that does not parse has status ``CE`` in
            every cell of its row, and nothing ran.
    """

    runs: tuple[tuple[Run, ...], ...]

    @property
    def passed(self) -> np.ndarray:
        """A boolean array, suites by programs: every test of the suite passed."""
        return np.array([[run.passed for run in row] for row in self.runs], dtype=bool).reshape(len(self.runs), -1)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.runs), len(self.runs[0]) if self.runs else 0)


def pass_fail_matrix(
    suites: Sequence[str],
    programs: Sequence[str],
    entry_point: str,
    *,
    executor: Executor | str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    test_timeout_s: float = 2.0,
) -> PassFailMatrix:
    """Run every suite against every program (each a whole module defining ``entry_point``).

    Args:
        suites: Test files, as `TestGenerationEnv` takes them.
        programs: Candidate programs; they may be hostile, as the suites may.
        entry_point: The function the suites call (also bound as ``candidate``).
        executor: The sandbox backend (the process's local executor by default).
        limits: Limits of each pair's run.
        test_timeout_s: The longest one test may take.
    """
    from codegym.executor.registry import get_executor

    runner = executor if isinstance(executor, Executor) else get_executor(executor, preload=PRELOAD)
    rows: list[list[Run | Future[RunResult]]] = []
    for suite in suites:
        error = _syntax_error(suite)
        if error is not None:
            rows.append([error] * len(programs))
            continue
        rows.append([runner.submit(job_for(suite, [p], entry_point, limits=limits, per_test_s=test_timeout_s))
                     for p in programs])  # fmt: skip
    return PassFailMatrix(tuple(tuple(map(_cell, row)) for row in rows))


def _cell(cell: Run | Future[RunResult]) -> Run:
    return cell if isinstance(cell, Run) else read_run(cell.result())


def _syntax_error(suite: str) -> Run | None:
    try:
        ast.parse(suite)
    except SyntaxError as e:
        diagnostic = Diagnostic(str(e.msg), file="tests", line=e.lineno, column=e.offset)
        return Run(False, ended="syntax", status=Status.CE, message=diagnostic.render())
    return None
