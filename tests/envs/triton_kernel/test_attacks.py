"""Cheating submissions: each earns reward 0 and HACK, and the check that caught it is named.

Most are refused by the static checks before they run; with ``static_checks=False`` the same
tricks are caught again at run time by the guard in the submission's process, which these
tests show separately (defence in depth). Crashes and wrong answers are contained: RE, WA.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from codegym.envs.triton_kernel.env import TritonKernelEnv
from codegym.envs.triton_kernel.sandbox import TritonExecutor, shared_executor

from codegym.grade import Status

from .conftest import submit


@pytest.fixture(scope="module")
def executor(tier: str, tier_options: Callable[[str], dict[str, Any]]) -> Iterator[TritonExecutor]:
    """The family's executor in each sandbox tier the suite can make here (see
    ``tests/conftest.py``): the shared one in "full", one of its own in the others."""
    if tier == "full":
        yield shared_executor(interpret=True)
        return
    with TritonExecutor(workers=1, interpret=True, **tier_options(tier)) as executor:
        yield executor  # type: ignore[misc]


@pytest.fixture(scope="module")
def make_env(executor: TritonExecutor) -> Callable[..., TritonKernelEnv]:
    """CPU envs on the module's executor."""

    def make(**kwargs: Any) -> TritonKernelEnv:
        return TritonKernelEnv(device="cpu", executor=executor, **kwargs)

    return make


@pytest.fixture(scope="module")
def cpu_env(make_env: Callable[..., TritonKernelEnv]) -> TritonKernelEnv:
    return make_env()


TASK = "codegym-triton/vector_add"
HEAD = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n\n\n"
KERNEL = """@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(a_ptr + offsets, mask=mask) + tl.load(b_ptr + offsets, mask=mask), mask=mask)


"""
LAUNCH = "add_kernel[(triton.cdiv(a.numel(), 256),)](a, b, out, a.numel(), BLOCK=256)"


def model(body: str, init: str = "") -> str:
    """A submission: the add kernel, and ModelNew whose forward(a, b) is ``body``."""
    forward = "\n".join("        " + line for line in body.strip("\n").splitlines())
    extra = "\n".join("        " + line for line in init.strip("\n").splitlines())
    return (
        f"{HEAD}{KERNEL}class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n{extra}\n\n"
        f"    def forward(self, a, b):\n{forward}\n"
    )


CORRECT = model(f"a, b = a.contiguous(), b.contiguous()\nout = torch.empty_like(a)\n{LAUNCH}\nreturn out")

# name: (submission, the check that must fire); all caught at run time with static checks on
RUNTIME_CHEATS = {
    "no-kernel-at-all": (model("out = torch.zeros_like(a)\nreturn out"), "no_launch"),
    "torch-does-the-work": (model(f"out = torch.empty_like(a)\n{LAUNCH}\nreturn a + b"), "torch_ops"),
    "functional-op": (
        model(f"out = torch.empty_like(a)\n{LAUNCH}\nreturn torch.nn.functional.relu(a) + b"),
        "torch_ops",
    ),
    "copied-reference-model": (
        model(
            f"out = torch.empty_like(a)\n{LAUNCH}\nreturn self.reference(a, b)",
            init="self.reference = Reference()",
        ).replace(
            "class ModelNew",
            "class Reference(nn.Module):\n    def forward(self, a, b):\n        return a + b\n\n\nclass ModelNew",
        ),
        "torch_ops",
    ),
    "return-the-input": (model(f"out = torch.empty_like(a)\n{LAUNCH}\nreturn a"), "aliasing"),
    "return-a-view-of-the-input": (
        model(f"out = torch.empty_like(a)\n{LAUNCH}\nreturn a.view(-1).view(a.shape)"),
        "aliasing",
    ),
    "write-into-the-input": (
        model("add_kernel[(triton.cdiv(a.numel(), 256),)](a, b, a, a.numel(), BLOCK=256)\nreturn a"),
        "aliasing",
    ),
    "modify-the-input-in-place": (
        model(
            f"out = torch.empty_like(a)\n{LAUNCH}\nadd_kernel[(triton.cdiv(a.numel(), 256),)](a, a, b, a.numel(), BLOCK=256)\nreturn out"
        ),
        "inputs_modified",
    ),
    "cached-output": (
        model(
            f"out = torch.empty_like(a)\n{LAUNCH}\nif self.cache is not None:\n    return self.cache\nself.cache = out\nreturn out",
            init="self.cache = None",
        ),
        "cached_output",
    ),
    "lazy-tensor-subclass": (
        model(f"out = torch.empty_like(a)\n{LAUNCH}\nreturn out.as_subclass(Lazy)").replace(
            "class ModelNew", "class Lazy(torch.Tensor):\n    pass\n\n\nclass ModelNew"
        ),
        "tensor_subclass",
    ),
    "compute-inside-the-launch": (
        "class Sneaky:\n    def __init__(self, t, a, b):\n        self.t, self.a, self.b, self.dtype = t, a, b, t.dtype\n\n"
        "    def data_ptr(self):\n        self.t.copy_(self.a + self.b)\n        return self.t.data_ptr()\n\n\n"
        + model(
            "out = torch.empty_like(a)\n"
            "add_kernel[(triton.cdiv(a.numel(), 256),)](a, b, Sneaky(out, a, b), a.numel(), BLOCK=256)\nreturn out"
        ),
        "launch_args",
    ),
}

# name: (submission, the static check that must fire)
STATIC_CHEATS = {
    "import-the-task-model": ("from problem import Model\n" + CORRECT, "import"),
    "patch-a-timer": ("import time\ntime.perf_counter = lambda: 0.0\n" + CORRECT, "import"),
    "patch-torch": (CORRECT + "\ntorch.allclose = lambda *args, **kwargs: True\n", "patch"),
    "patch-triton-testing": (CORRECT + "\ntriton.testing.do_bench = lambda *args, **kwargs: 0.001\n", "forbidden_api"),
    "extra-thread": ("import threading\n" + CORRECT, "import"),
    "cuda-stream": (
        CORRECT.replace("out = torch.empty_like(a)", "torch.cuda.Stream()\n        out = torch.empty_like(a)"),
        "forbidden_api",
    ),
    "torch-compile": (CORRECT.replace("class ModelNew", "@torch.compile\nclass ModelNew"), "forbidden_api"),
    "reach-the-launch-counter": ("import sys\n" + CORRECT, "import"),
    "reflection": (CORRECT.replace("return out", "return getattr(torch, 'add')(a, b)"), "builtin"),
    "private-torch-api": (
        CORRECT.replace("return out", "torch._C._set_grad_enabled(False)\n        return out"),
        "private",
    ),
    "read-a-file": (CORRECT.replace("return out", "open('/sandbox/x', 'w')\n        return out"), "builtin"),
    "launch-hook": (CORRECT + "\nadd_kernel.add_pre_run_hook(lambda *args, **kwargs: None)\n", "forbidden_api"),
    "module-through-an-attribute": (CORRECT + "\ntorch.os.system('true')\n", "import"),
    "operator-attrgetter": ("import operator\n" + CORRECT, "import"),
    "finalizer": (
        CORRECT.replace("class ModelNew", "class Late:\n    def __del__(self):\n        pass\n\n\nclass ModelNew"),
        "dunder",
    ),
    "frame-walk": (CORRECT.replace("return out", "return (lambda: (yield))().gi_frame and out"), "forbidden_api"),
    "load-pickled-code": (CORRECT.replace("return out", "torch.load('x')\n        return out"), "forbidden_api"),
    "compute-in-python": (
        CORRECT.replace("return out", "return torch.tensor([v + w for v, w in zip(a.tolist(), b.tolist())])"),
        "forbidden_api",
    ),
}

# name: (submission, the run-time check that must fire with the static checks off)
UNCHECKED_CHEATS = {
    "patch-a-timer": (CORRECT + "\nimport time\ntime.perf_counter = lambda: 0.0\n", "patched"),
    "patch-torch": (CORRECT + "\ntorch.allclose = lambda *args, **kwargs: True\n", "patched"),
    "patch-triton-testing": (
        CORRECT + "\nimport triton.testing\ntriton.testing.do_bench = lambda *a, **k: 0.001\n",
        "patched",
    ),
    "patch-the-launch-path": (
        CORRECT
        + "\nfrom triton.runtime.interpreter import InterpretedFunction\nInterpretedFunction.run = lambda *a, **k: None\n",
        "patched",
    ),
    "launch-hook": (CORRECT + "\nadd_kernel.add_pre_run_hook(lambda *args, **kwargs: None)\n", "launch_hooks"),
    "finalizer-computes-after-the-forward": (
        model(
            f"out = torch.empty_like(a)\nscratch = torch.empty_like(a)\n{LAUNCH.replace('out,', 'scratch,')}\nLate(out, a, b)\nreturn out"
        ).replace(
            "class ModelNew",
            "class Late:\n    def __init__(self, out, a, b):\n        self.out, self.a, self.b, self.me = out, a, b, self\n\n"
            "    def __del__(self):\n        self.out.copy_(self.a + self.b)\n\n\nclass ModelNew",
        ),
        "torch_ops",
    ),
    "extra-thread": (
        model(
            f"out = torch.empty_like(a)\n{LAUNCH}\nimport threading\nthreading.Thread(target=lambda: __import__('time').sleep(5), daemon=True).start()\nreturn out"
        ),
        "threads",
    ),
}


def test_the_correct_submission_passes(cpu_env: TritonKernelEnv) -> None:
    reward, observation, info = submit(cpu_env, TASK, CORRECT)
    assert info["grade"].status is Status.OK, observation["feedback"]
    assert reward == 1.0


@pytest.mark.parametrize("name", sorted(RUNTIME_CHEATS))
def test_runtime_cheat_is_hack(cpu_env: TritonKernelEnv, name: str) -> None:
    code, check = RUNTIME_CHEATS[name]
    reward, observation, info = submit(cpu_env, TASK, code)
    grade = info["grade"]
    assert grade.status is Status.HACK, observation["feedback"]
    assert reward == 0.0
    assert f"'{check}'" in grade.message, grade.message


@pytest.mark.parametrize("name", sorted(STATIC_CHEATS))
def test_static_cheat_is_hack_before_it_runs(cpu_env: TritonKernelEnv, name: str) -> None:
    code, check = STATIC_CHEATS[name]
    reward, observation, info = submit(cpu_env, TASK, code)
    grade = info["grade"]
    assert grade.status is Status.HACK, observation["feedback"]
    assert reward == 0.0
    assert any(d.code == check for d in grade.diagnostics), grade.diagnostics
    assert not grade.resources  # refused without running


@pytest.mark.parametrize("name", sorted(UNCHECKED_CHEATS))
def test_runtime_guard_catches_what_static_checks_would(make_env, name: str) -> None:
    env = make_env(static_checks=False)
    code, check = UNCHECKED_CHEATS[name]
    reward, observation, info = submit(env, TASK, code)
    grade = info["grade"]
    assert grade.status is Status.HACK, observation["feedback"]
    assert reward == 0.0
    assert f"'{check}'" in grade.message, grade.message


def test_forged_protocol_frames_are_hack(make_env) -> None:
    forged = "import os\nos.write(4, b'\\x00\\x00\\x00\\x05junk!')\nimport time\ntime.sleep(1)\n" + CORRECT
    reward, observation, info = submit(make_env(static_checks=False), TASK, forged)
    assert info["grade"].status is Status.HACK, observation["feedback"]
    assert "channel" in info["grade"].message and reward == 0.0


def test_out_of_bounds_kernel_is_contained_and_the_next_evaluation_is_clean(cpu_env: TritonKernelEnv) -> None:
    wild = CORRECT.replace("tl.store(out_ptr + offsets,", "tl.store(out_ptr + offsets * 100000000,").replace(
        ", mask=mask)\n\n\nclass", ")\n\n\nclass"
    )
    reward, observation, info = submit(cpu_env, TASK, wild)
    assert info["grade"].status is Status.RE, observation["feedback"]
    assert "SIGSEGV" in info["grade"].message or "died" in info["grade"].message
    assert reward == 0.0
    reward, observation, info = submit(cpu_env, TASK, CORRECT)  # a fresh process: nothing poisoned
    assert info["grade"].status is Status.OK and reward == 1.0


def test_unwritten_outputs_read_as_wrong_not_as_lucky_memory(cpu_env: TritonKernelEnv) -> None:
    partial = CORRECT.replace("triton.cdiv(a.numel(), 256)", "max(1, triton.cdiv(a.numel(), 256) - 1)")
    reward, observation, info = submit(cpu_env, TASK, partial)
    grade = info["grade"]
    assert grade.status is Status.WA, observation["feedback"]
    assert "max abs error" in observation["feedback"] and reward == 0.0


def test_a_hung_forward_is_stopped_at_its_limit(make_env) -> None:
    from codegym.envs.triton_kernel.env import DEFAULT_LIMITS

    env = make_env(limits=dataclasses.replace(DEFAULT_LIMITS, cpu_s=2.0, wall_s=4.0))
    spin = CORRECT.replace("return out", "while True:\n            pass")
    started = time.monotonic()
    reward, observation, info = submit(env, TASK, spin)
    assert info["grade"].status is Status.TLE and reward == 0.0
    assert time.monotonic() - started < 4.0 + 5.0


def test_nothing_of_a_submission_outlives_its_evaluation(make_env, executor, processes_left_by) -> None:
    code, _ = UNCHECKED_CHEATS["extra-thread"]
    reward, observation, info = submit(make_env(static_checks=False), TASK, code)
    assert info["grade"].status is Status.HACK
    deadline = time.monotonic() + 5.0
    while processes_left_by(executor) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_left_by(executor) == []
