"""A forked process never shares its parent's workers: their replies would cross."""

from __future__ import annotations

import os

import gymnasium as gym

import codegym  # noqa: F401
from codegym.error import SandboxError
from codegym.executor import Job, Step
from codegym.executor.local import LocalExecutor
from codegym.executor.registry import close_shared
from codegym.task import Task, TaskSet, TestCase

TASK = Task(
    id="fork/answer",
    family="PythonFunction",
    prompt="def answer() -> int:\n",
    tests=(TestCase("test_00", "assert answer() == 42", hidden=False),),
    metadata={"entry_point": "answer", "prefix": "", "test_prelude": ""},
)
RIGHT, WRONG = "def answer():\n    return 42\n", "def answer():\n    return 41\n"


def _in_child(body) -> int:
    """Run ``body()`` in a forked child; its pid. The child writes nothing but its result."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            body()
            code = 0
        finally:
            os._exit(code)
    return pid


def test_forked_children_step_an_inherited_env_on_workers_of_their_own() -> None:
    """Two children step the env their parent made and used, at once (as an async vector
    env does): each gets its own workers and every reward is right; the parent's workers
    are left alone and keep working."""
    env = gym.make("codegym/PythonFunction-v0", tasks=TaskSet([TASK]))
    env.reset()
    assert env.step(RIGHT)[1] == 1.0
    parent = env.unwrapped.executor
    workers = parent.worker_pids()
    results = []
    for child in range(2):
        read, write = os.pipe()

        def body(write: int = write, child: int = child) -> None:
            codes = [RIGHT, WRONG] * 4 if child == 0 else [WRONG, RIGHT] * 4
            rewards = []
            for code in codes:
                env.reset()
                rewards.append(env.step(code)[1])
            own = env.unwrapped.executor is not parent
            close_shared()
            os.write(write, f"{own} {rewards == [1.0 if c == RIGHT else 0.0 for c in codes]}".encode())

        results.append((_in_child(body), read))
        os.close(write)
    for pid, read in results:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert os.read(read, 100) == b"True True"
        os.close(read)
    assert parent.worker_pids() == workers
    env.reset()
    assert env.step(WRONG)[1] == 0.0


def test_an_executor_used_in_a_forked_child_refuses_with_a_reason() -> None:
    with LocalExecutor(workers=1) as executor:
        job = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": b"print('hi')\n"})
        assert executor.run(job).steps[0].stdout == b"hi\n"
        read, write = os.pipe()

        def body() -> None:
            try:
                executor.run(job)
                message = "ran"
            except SandboxError as e:
                message = str(e)
            executor.close()  # leaves the parent's workers alone
            os.write(write, message.encode())

        pid = _in_child(body)
        os.close(write)
        os.waitpid(pid, 0)
        assert "which this process was forked from" in os.read(read, 1000).decode()
        os.close(read)
        assert executor.run(job).steps[0].stdout == b"hi\n"
