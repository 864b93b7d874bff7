"""TestGeneration's isolation in every local sandbox tier: the container tier has no pid
namespace, and the plain user's tier runs tests and program as the worker's own uid."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from codegym.envs.python_function.tasks import load_tasks
from codegym.envs.test_generation.env import TestGenerationEnv
from codegym.envs.test_generation.matrix import pass_fail_matrix

from codegym.executor import Executor

VOWELS = "codegym-py/001-count-vowel-runs"
SCAN = """
import gc, os

def readable():
    text = []
    try:
        pids = os.listdir("/proc")
    except OSError:  # (the container tier's steps cannot list /proc)
        pids = []
    for pid in pids:
        for part in ("mem", "cmdline", "environ", "maps", "fd/3", "fd/4"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as handle:
                    text.append(handle.read(1 << 20).decode("latin-1"))
            except Exception:
                pass
    for root in (".", "/tmp"):
        try:
            names = os.listdir(root)
        except OSError:  # (the container tier's /tmp is not listable)
            names = []
        for name in names:
            try:
                text.append(open(os.path.join(root, name)).read())
            except Exception:
                pass
    text += [o for o in gc.get_objects() if isinstance(o, str)]
    return "\\n".join(text)
"""


@pytest.fixture(scope="module")
def env(tiered_executor: Executor) -> Iterator[TestGenerationEnv]:
    made = TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)], executor=tiered_executor)
    yield made
    made.close()


def test_own_tests_kill_every_mutant(env: TestGenerationEnv) -> None:
    env.reset()
    _, reward, _, _, info = env.step(env.tasks.get(VOWELS).reference or "")
    assert reward == 1.0, info["grade"].feedback()


def test_tests_cannot_find_the_program_anywhere(env: TestGenerationEnv) -> None:
    program = str(env.tasks.get(VOWELS).metadata["program"])
    marker = "    in_run = False\n    for ch in text.lower():"  # (a line pair mutants of that line lack)
    assert marker in program
    env.reset()
    tests = (
        f"{SCAN}\nMARKER = {marker[:20]!r} + {marker[20:]!r}\n\ndef test_cheat():\n    assert MARKER in readable()\n"
    )
    _, reward, _, _, info = env.step(tests)
    assert reward == 0.0 and info["grade"].metrics["kill_rate"] == 0.0, info["grade"].feedback()


def test_a_program_cannot_find_the_tests(tiered_executor: Executor) -> None:
    program = f"{SCAN}\n\ndef leak():\n    return ('TOKEN' + '-4242') in readable()\n"
    matrix = pass_fail_matrix(["assert leak() is False  # TOKEN-4242\n"], [program], "leak", executor=tiered_executor)
    assert matrix.passed.tolist() == [[True]], matrix.runs[0][0]
