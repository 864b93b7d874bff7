"""Curricula learn from the family's "solved", not from status ``OK``: tests that kill no
mutant are ``OK`` and not solved, so they are neither a success for `AdaptiveCurriculum` nor
a demonstration for `ContextBootstrap`."""

from __future__ import annotations

from codegym.envs.python_function.tasks import load_tasks
from codegym.envs.test_generation.env import TestGenerationEnv
from codegym.wrappers.curriculum import AdaptiveCurriculum, ContextBootstrap

from codegym.grade import Status

VOWELS = "codegym-py/001-count-vowel-runs"


def test_ok_tests_that_kill_no_mutant_are_not_a_solved_demonstration() -> None:
    env = ContextBootstrap(TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)]), k=1)
    try:
        env.reset(seed=0)
        *_, info = env.step("assert True\n")
        assert info["grade"].status is Status.OK and VOWELS not in env.solved
        env.reset(seed=0)
        env.step(env.unwrapped.tasks.get(VOWELS).reference or "")
        assert VOWELS in env.solved
    finally:
        env.close()


def test_ok_tests_that_kill_no_mutant_lower_the_success_rate() -> None:
    env = AdaptiveCurriculum(TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)]), target=0.5, decay=0.5)
    try:
        env.reset(seed=0)
        env.step("assert True\n")
        assert env.rates[VOWELS] < 0.5
    finally:
        env.close()
