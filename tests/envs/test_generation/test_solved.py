"""TestGeneration's "solved": valid tests (``OK``) that kill every mutant. ``assert True`` is
valid and kills none: ``OK``, not solved, and a refine episode goes on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from codegym.envs.python_function.tasks import load_tasks
from codegym.envs.test_generation.env import TestGenerationEnv

import codegym
from codegym.grade import Status

VOWELS = "codegym-py/001-count-vowel-runs"


@pytest.fixture(scope="module")
def env() -> Iterator[TestGenerationEnv]:
    made = TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)], mode="refine")
    yield made
    made.close()


def test_valid_tests_that_kill_no_mutant_are_ok_but_not_solved(env: TestGenerationEnv) -> None:
    env.reset(seed=0)
    _, _, terminated, _, info = env.step("assert True\n")
    assert info["grade"].status is Status.OK and info["grade"].solved is False and not terminated
    _, _, terminated, _, info = env.step(env.tasks.get(VOWELS).reference or "")
    assert info["grade"].metrics["kill_rate"] == 1.0 and info["grade"].solved is True and terminated


def test_a_scorer_records_the_same_verdict(env: TestGenerationEnv) -> None:
    weak, own = codegym.Scorer(env).score([(VOWELS, "assert True\n"), (VOWELS, env.tasks.get(VOWELS).reference or "")])
    assert (weak.status, weak.solved, own.solved) == (Status.OK, False, True)
