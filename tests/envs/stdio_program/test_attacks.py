"""Sandbox attacks from compiled C programs, in every tier: System V IPC that would outlive
its job (a channel to later episodes), and shared memory that RLIMIT_DATA does not count."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import pytest

from codegym.executor import Executor, Job, Limits, Step
from codegym.task import Task, TaskSet, TestCase

A_PLUS_B = Task(
    id="stdio/attack-a-plus-b",
    family="StdioProgram",
    prompt="Read two integers a and b; print a + b.",
    tests=(
        TestCase("test_00", "2 3\n", hidden=False, expected="5\n"),
        TestCase("test_01", "-4 10\n", expected="6\n"),
    ),
    metadata={"checker": {"kind": "tokens"}},
)
LIMITS = Limits(cpu_s=2.0, wall_s=4.0, memory_bytes=128 << 20, processes=8, output_bytes=64 << 10)
HEADERS = "#define _GNU_SOURCE\n#include <stdio.h>\n#include <string.h>\n#include <sys/ipc.h>\n#include <sys/mman.h>\n#include <sys/shm.h>\n"
KEY = "0x43470ABC"
# Leaves "3" in a System V segment, and answers right.
PLANT = HEADERS + (
    "int main(void) {\n"
    f"    int id = shmget({KEY}, 4096, IPC_CREAT | 0666);\n"
    "    char *p = id >= 0 ? shmat(id, NULL, 0) : (char *)-1;\n"
    '    if (p != (char *)-1) strcpy(p, "3");\n'
    '    long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b); return 0;\n'
    "}\n"
)
# Answers right only if an earlier job's segment is there.
USE = HEADERS + (
    "int main(void) {\n"
    f"    int id = shmget({KEY}, 0, 0);\n"
    "    char *p = id >= 0 ? shmat(id, NULL, SHM_RDONLY) : (char *)-1;\n"
    '    int found = p != (char *)-1 && strcmp(p, "3") == 0;\n'
    '    long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", found ? a + b : 0); return 0;\n'
    "}\n"
)
# The limit plus 256 MiB, touched page by page, then the right answer; 1 if it is refused.
SIZE = "(384L << 20)"
TOUCH = f"    for (long i = 0; i < {SIZE}; i += 4096) p[i] = 1;\n"
ANSWER = '    long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b); return 0;\n}\n'
SHARED_MEMORY = {
    "shared-mmap": HEADERS
    + "int main(void) {\n"
    + f"    char *p = mmap(NULL, {SIZE}, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);\n"
    + "    if (p == MAP_FAILED) return 1;\n"
    + TOUCH
    + ANSWER,
    "sysv-shm": HEADERS
    + "int main(void) {\n"
    + f"    int id = shmget(IPC_PRIVATE, {SIZE}, IPC_CREAT | 0600);\n"
    + "    char *p = id >= 0 ? shmat(id, NULL, 0) : (char *)-1;\n"
    + "    if (p == (char *)-1) return 1;\n"
    + TOUCH
    + ANSWER,
}


@pytest.fixture(scope="module")
def env(tiered_executor: Executor) -> Iterator[gym.Env]:
    """C in each sandbox tier this machine can make (see ``tests/conftest.py``)."""
    env = gym.make("codegym/StdioProgram-v0", tasks=TaskSet([A_PLUS_B]), language="c", limits=LIMITS,
                   executor=tiered_executor)  # fmt: skip
    yield env
    env.close()


@pytest.fixture(scope="module")
def run_info(tiered_executor: Executor) -> tuple[str, str]:
    """The tier the steps run in and the cgroup version that limits them ("none": rlimits)."""
    result = tiered_executor.run(Job(steps=(Step(argv=("true",)),)))
    return result.isolation, result.cgroup


def submit(env: gym.Env, code: str) -> tuple[float, str, str]:
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(code)
    assert terminated
    return float(reward), info["status"], info["grade"].message


def test_a_system_v_segment_does_not_reach_a_later_job(env: gym.Env) -> None:
    """An IPC namespace per step (`full`, `userns`); refused in `container` (EPERM)."""
    for _ in range(2):
        assert submit(env, PLANT)[:2] == (1.0, "OK")
    for _ in range(2):
        reward, status, message = submit(env, USE)
        assert (reward, status) == (0.0, "WA"), message


@pytest.mark.parametrize("name", list(SHARED_MEMORY))
def test_shared_memory_stays_within_the_memory_limit(env: gym.Env, run_info: tuple[str, str], name: str) -> None:
    """A cgroup counts shared memory (MLE); without one, it is refused (EPERM: the program
    gives up, RE), as System V IPC is in the `container` tier."""
    isolation, cgroup = run_info
    refused = cgroup == "none" or (name == "sysv-shm" and isolation == "container")
    reward, status, message = submit(env, SHARED_MEMORY[name])
    assert (reward, status) == (0.0, "RE" if refused else "MLE"), message
    assert submit(env, PLANT)[:2] == (1.0, "OK")  # (the env still works)
