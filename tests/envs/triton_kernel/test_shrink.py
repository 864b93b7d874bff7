"""KernelBench problems sized for a GPU run on the CPU: their size constants are shrunk.

The problems here are written like KernelBench's public ones (a matmul, a softmax over
4096 x 393216, a conv2d over a batch of 256 1024x1024 images, a sum over a dimension),
without ``cpu_shapes``. On the CPU each is shrunk until it fits `shrink.Budget`, validates
(its reference kernel grades OK), and grades a correct kernel OK and a wrong one WA, with
the sizes used in ``info["shapes"]``. A problem whose sizes are written inside
``get_inputs`` cannot be shrunk: it is logged at load and its submissions are ``IE``.
"""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from codegym.envs.triton_kernel import shrink
from codegym.envs.triton_kernel.env import TritonKernelEnv

from codegym.error import InvalidTask
from codegym.grade import Status

from .conftest import submit

HEAD = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n\n\n"

MATMUL = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 1024 * 4
K = 4096 * 2
N = 2048


def get_inputs():
    A = torch.randn(M, K)
    B = torch.randn(K, N)
    return [A, B]


def get_init_inputs():
    return []
"""

MATMUL_NEW = (
    HEAD
    + """@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ks = k + rk
        a = tl.load(a_ptr + rm[:, None] * K + ks[None, :], mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * N + rn[None, :], mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        A, B = A.contiguous(), B.contiguous()
        m, k = A.shape
        n = B.shape[1]
        c = torch.empty((m, n), dtype=A.dtype)
        matmul_kernel[(triton.cdiv(m, 64), triton.cdiv(n, 64))](A, B, c, m, n, k, BM=64, BN=64, BK=64)
        return c
"""
)

SOFTMAX = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 4096
dim = 393216


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
"""

SOFTMAX_NEW = (
    HEAD
    + """@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.where(mask, tl.exp(x), 0.0)
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, n_cols = x.shape
        out = torch.empty_like(x)
        softmax_kernel[(rows,)](x, out, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return out
"""
)

CONV = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, bias: bool = False):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2d(x)


batch_size = 256
in_channels = 3
out_channels = 64
kernel_size = 3
height = 1024
width = 1024


def get_inputs():
    x = torch.randn(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
"""

CONV_NEW = (
    HEAD
    + """@triton.jit
def conv_kernel(x_ptr, w_ptr, out_ptr, C, H, W, OC, OH, OW, KS: tl.constexpr, BOC: tl.constexpr, BP: tl.constexpr):
    n = tl.program_id(0)
    ocs = tl.arange(0, BOC)
    p = tl.arange(0, BP)
    oh = p // OW
    ow = p % OW
    acc = tl.zeros((BOC, BP), dtype=tl.float32)
    for c in range(0, C):
        for kh in tl.static_range(KS):
            for kw in tl.static_range(KS):
                x = tl.load(x_ptr + ((n * C + c) * H + oh + kh) * W + ow + kw, mask=p < OH * OW, other=0.0)
                w = tl.load(w_ptr + ((ocs * C + c) * KS + kh) * KS + kw, mask=ocs < OC, other=0.0)
                acc += w[:, None] * x[None, :]
    mask = (ocs[:, None] < OC) & (p[None, :] < OH * OW)
    tl.store(out_ptr + (n * OC + ocs[:, None]) * OH * OW + p[None, :], acc, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias=False):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, bias=bias)

    def forward(self, x):
        x = x.contiguous()
        n, c, h, w = x.shape
        weight = self.conv2d.weight.contiguous()
        oc, _, ks, _ = weight.shape
        oh, ow = h - ks + 1, w - ks + 1
        out = torch.empty((n, oc, oh, ow), dtype=x.dtype)
        block_oc, block_p = triton.next_power_of_2(oc), triton.next_power_of_2(oh * ow)
        conv_kernel[(n,)](x, weight, out, c, h, w, oc, oh, ow, KS=ks, BOC=block_oc, BP=block_p)
        return out
"""
)

SUM = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 128
dim1 = 4096
dim2 = 4095
reduce_dim = 1


def get_inputs():
    x = torch.randn(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [reduce_dim]
"""

SUM_NEW = (
    HEAD
    + """@triton.jit
def sum_kernel(x_ptr, out_ptr, R, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r in range(0, R, BLOCK_R):
        rows = r + tl.arange(0, BLOCK_R)
        mask = (rows[:, None] < R) & (cols[None, :] < C)
        acc += tl.sum(tl.load(x_ptr + b * R * C + rows[:, None] * C + cols[None, :], mask=mask, other=0.0), axis=0)
    tl.store(out_ptr + b * C + cols, acc, mask=cols < C)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        x = x.contiguous()
        b, r, c = x.shape
        out = torch.empty((b, 1, c), dtype=x.dtype)
        sum_kernel[(b, triton.cdiv(c, 128))](x, out, r, c, BLOCK_R=32, BLOCK_C=128)
        return out
"""
)

# Sizes written inside get_inputs: nothing the loader can shrink.
HARD_CODED = SOFTMAX.replace("torch.randn(batch_size, dim)", "torch.randn(4096, 393216)")

# name: (problem, correct kernel, (old, new): the same kernel made wrong)
PROBLEMS: dict[str, tuple[str, str, tuple[str, str]]] = {
    "matmul": (MATMUL, MATMUL_NEW, ("range(0, K, BK)", "range(0, K - BK, BK)")),
    "softmax": (SOFTMAX, SOFTMAX_NEW, ("e / tl.sum(e, axis=0)", "e / tl.max(e, axis=0)")),
    "conv2d": (CONV, CONV_NEW, ("oh + kh) * W + ow + kw", "oh + kw) * W + ow + kh")),
    "sum_dim": (SUM, SUM_NEW, ("mask = (rows[:, None] < R)", "mask = (rows[:, None] < R - 1)")),
}
GPU_SIZES = {
    "matmul": {"M": 4096, "K": 8192, "N": 2048},
    "softmax": {"batch_size": 4096, "dim": 393216},
    "conv2d": {"batch_size": 256, "out_channels": 64, "height": 1024, "width": 1024},
    "sum_dim": {"batch_size": 128, "dim1": 4096, "dim2": 4095},
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of GPU-sized KernelBench problems, each with its reference kernel."""
    root = tmp_path_factory.mktemp("gpu_sized")
    (root / "solutions").mkdir()
    for name, (problem, solution, _) in {**PROBLEMS, "hard_coded": (HARD_CODED, SOFTMAX_NEW, ("", ""))}.items():
        (root / f"{name}.py").write_text(textwrap.dedent(problem).lstrip())
        (root / "solutions" / f"{name}.py").write_text(solution)
    return root


@pytest.fixture(scope="module")
def env(folder: Path, make_env: Callable[..., TritonKernelEnv]) -> TritonKernelEnv:
    return make_env(tasks=folder)


def task_id(folder: Path, name: str) -> str:
    return f"{folder.name}/{name}"


# --- through the env ------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_a_gpu_sized_problem_is_shrunk_and_grades_ok_and_wa(env: TritonKernelEnv, folder: Path, name: str) -> None:
    problem, correct, (old, new) = PROBLEMS[name]
    reward, observation, info = submit(env, task_id(folder, name), correct)
    assert info["grade"].status is Status.OK, observation["feedback"]
    assert reward == 1.0
    shapes = info["shapes"]
    for constant, gpu_size in GPU_SIZES[name].items():
        assert shapes[constant] < gpu_size, (constant, shapes)
    assert env.shapes_for(env.tasks.get(task_id(folder, name))).origin == "shrunk"
    assert old in correct
    reward, observation, info = submit(env, task_id(folder, name), correct.replace(old, new))
    assert info["grade"].status is Status.WA, observation["feedback"]
    assert reward == 0.0 and info["shapes"] == shapes


def test_shrunk_sizes_fit_the_budget_and_keep_what_the_model_needs(env: TritonKernelEnv, folder: Path) -> None:
    shapes = {name: env.shapes_for(env.tasks.get(task_id(folder, name))).values for name in PROBLEMS}
    conv = shapes["conv2d"]
    assert (conv["in_channels"], conv["kernel_size"]) == (3, 3)  # small constants are left alone
    assert conv["height"] == conv["width"] and conv["height"] > conv["kernel_size"]
    softmax = shapes["softmax"]
    assert softmax["batch_size"] * softmax["dim"] * 2 <= shrink.BUDGET.elements
    assert softmax["batch_size"] >= shrink.MIN_SIZE and softmax["dim"] >= shrink.MIN_SIZE
    matmul = shapes["matmul"]
    assert 2 * matmul["M"] * matmul["K"] * matmul["N"] <= shrink.BUDGET.flops
    assert shapes["sum_dim"]["reduce_dim"] == 1 and shapes["sum_dim"]["dim2"] % 2 == 1  # odd stays odd


def test_reset_reports_the_shapes_too(env: TritonKernelEnv, folder: Path) -> None:
    _, info = env.reset(seed=0, options={"task_id": task_id(folder, "softmax")})
    assert info["shapes"] == dict(env.shapes_for(env.tasks.get(task_id(folder, "softmax"))).values)
    assert info["shapes"]["dim"] < 393216


def test_an_agents_public_check_runs_at_the_graded_sizes(env: TritonKernelEnv, folder: Path) -> None:
    task = env.tasks.get(task_id(folder, "softmax"))
    setup = env.agent_setup(task)
    overrides = dict(env.shapes_for(task).overrides)
    assert overrides == {"batch_size": env.shapes_for(task).values["batch_size"], "dim": overrides["dim"]}
    assert f"SHAPES = {overrides!r}" in setup.files["tests/check.py"].decode()
    assert f"batch_size={overrides['batch_size']}, dim={overrides['dim']}" in setup.instructions


def test_validate_finds_the_shrunk_problems_valid_and_reports_the_unshrinkable_one(folder: Path) -> None:
    import codegym

    report = codegym.validate("codegym/TritonKernel-v0", tasks=str(folder), runs=1, device="cpu")
    assert report.valid_ids == tuple(task_id(folder, name) for name in sorted(PROBLEMS))
    assert list(report.quarantined) == [task_id(folder, "hard_coded")]  # exactly the broken one
    reason = report.quarantined[task_id(folder, "hard_coded")]
    assert "cannot be sized for the CPU" in reason and "get_inputs" in reason, reason


def test_an_unshrinkable_problem_is_logged_at_load_and_its_submissions_are_ie(
    folder: Path, make_env: Callable[..., TritonKernelEnv], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="codegym.envs.triton_kernel.env"):
        env = make_env(tasks=folder)
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert task_id(folder, "hard_coded") in warned and "393216" in warned
    assert all(task_id(folder, name) not in warned for name in PROBLEMS)
    task = env.tasks.get(task_id(folder, "hard_coded"))
    with pytest.raises(InvalidTask, match=r"cannot be sized for the CPU: at its own sizes .*written inside get_inputs"):
        env.shapes_for(task)
    grade, problem = env.evaluate(task, SOFTMAX_NEW)
    assert grade.status is Status.IE and "written inside get_inputs" in problem["task_error"]
    reward, observation, info = submit(env, task.id, SOFTMAX_NEW)
    assert info["grade"].status is Status.IE and reward == 0.0
    assert info["shapes"] is None and "get_inputs" in info["task_error"]


def test_shapes_task_keeps_the_problems_own_sizes(folder: Path, make_env: Callable[..., TritonKernelEnv]) -> None:
    env = make_env(tasks=folder, shapes="task")
    task = env.tasks.get(task_id(folder, "softmax"))
    shapes = env.shapes_for(task)
    assert shapes.origin == "task" and dict(shapes.values) == GPU_SIZES["softmax"]
    assert env._plan(task)["shapes"] == {}
    _, info = env.reset(seed=0, options={"task_id": task.id})
    assert info["shapes"] == GPU_SIZES["softmax"]


def test_a_model_that_fails_is_an_invalid_task_with_the_reason(
    tmp_path: Path, make_env: Callable[..., TritonKernelEnv]
) -> None:
    """Found by the sizing job (its shapes are wrong at any size), or by the reference run
    (a failure only real values show: a Cholesky factorisation of a matrix that is not
    positive-definite)."""
    (tmp_path / "bad_view.py").write_text(SOFTMAX.replace("torch.softmax(x, dim=1)", "torch.softmax(x.view(-1, 7), 1)"))
    cholesky = SOFTMAX.replace("torch.softmax(x, dim=1)", "torch.linalg.cholesky(x)")
    (tmp_path / "not_spd.py").write_text(cholesky.replace("(batch_size, dim)", "(batch_size, dim, dim)"))
    env = make_env(tasks=tmp_path)
    bad_view, not_spd = (env.tasks.get(f"{tmp_path.name}/{name}") for name in ("bad_view", "not_spd"))
    with pytest.raises(InvalidTask, match=r"cannot be sized for the CPU: .* fails: RuntimeError: shape '\[-1, 7\]'"):
        env.reference_outputs(bad_view)
    with pytest.raises(InvalidTask, match=r"reference Model of task .*/not_spd failed at batch_size=\d+, dim=\d+: .*"):
        env.reference_outputs(not_spd)
    grade, problem = env.evaluate(not_spd, SOFTMAX_NEW)
    assert grade.status is Status.IE and "positive-definite" in problem["task_error"]


def test_problems_with_cpu_shapes_keep_them(make_env: Callable[..., TritonKernelEnv]) -> None:
    env = make_env()
    _, info = env.reset(seed=0, options={"task_id": "codegym-triton/vector_add"})
    assert info["shapes"] == {"batch_size": 8, "dim": 100}
    assert env.shapes_for(env.tasks.get("codegym-triton/vector_add")).origin == "cpu_shapes"


# --- the pure parts -------------------------------------------------------------------------


def analyse(source: str) -> shrink.Sizes:
    return shrink.analyse(textwrap.dedent(source))


def test_analysis_finds_the_size_constants_the_input_functions_read() -> None:
    sizes = analyse(
        """
        import torch
        batch_size = 16
        in_features = 4096
        hidden = in_features * 4
        kernel_size = 33
        height, width = 512, 512
        input_shape = (32768, 8)
        eps = 1e-5
        unused = 1 << 20

        class Model(torch.nn.Module):
            def __init__(self, in_features, hidden, eps):
                super().__init__()
                self.fc = torch.nn.Linear(in_features, hidden)

        def get_inputs():
            return [torch.randn(batch_size, height, width, *input_shape)]

        def get_init_inputs():
            return [in_features, hidden, kernel_size, eps]
        """
    )
    assert sizes.sizes == ("batch_size", "in_features", "hidden", "kernel_size", "height", "width", "input_shape")
    assert sizes.derived == ("hidden",)
    # batch_size (16) and input_shape[1] are small, kernel_size is window geometry
    assert sizes.slots == (("in_features", -1), ("height", -1), ("width", -1), ("input_shape", 0))
    values = shrink.evaluate(sizes, {"in_features": 64, "input_shape": [128, 8]})
    assert values["hidden"] == 256 and values["input_shape"] == (128, 8)
    assert shrink.accepts(sizes, {"in_features": 64, "input_shape": [128, 8]})
    for forged in ({"hidden": 4}, {"batch_size": 4}, {"in_features": 8192}, {"input_shape": 4}, {"height": 0.5}):
        assert not shrink.accepts(sizes, forged), forged


def test_constants_that_other_code_reads_are_pinned() -> None:
    sizes = analyse(
        """
        import torch
        dim = 8192
        rows = 4096
        size = rows * 2

        class Model(torch.nn.Module):
            def forward(self, x):
                return x.view(size, -1)

        def helper(n):
            in_channels = 3  # a local: not the module's
            return torch.randn(n, dim)

        def get_inputs():
            return [helper(rows)]

        def get_init_inputs():
            return []
        """
    )
    assert sizes.pinned == ("rows",)  # Model reads size, which rows sets
    assert sizes.slots == (("dim", -1),)  # the helper get_inputs calls is part of the inputs


def test_hard_coded_sizes_are_reported_as_unshrinkable() -> None:
    sizes = analyse(HARD_CODED.replace("batch_size = 4096\ndim = 393216\n", ""))
    assert not sizes.slots and sizes.literals == (4096, 393216)
    assert "written inside get_inputs" in (shrink.why_not_shrinkable(sizes) or "")
    assert shrink.why_not_shrinkable(analyse(SOFTMAX)) is None
    small = analyse("def get_inputs():\n    return [torch.randn(4, 8)]\n")
    assert shrink.why_not_shrinkable(small) is None


def test_cpu_shapes_must_be_a_literal_dict() -> None:
    assert analyse("cpu_shapes = {'dim': 4}\n").cpu_shapes == {"dim": 4}
    assert "literal dict" in (analyse("cpu_shapes = dict(dim=4)\n").cpu_shapes_error or "")


def fake_measure(
    sizes: shrink.Sizes, fails: Callable[[Mapping[str, Any]], bool] = lambda v: False
) -> Callable[[Mapping[str, Any]], shrink.Measurement]:
    """A measure whose element count is the product of the size constants (each once)."""

    def measure(overrides: Mapping[str, Any]) -> shrink.Measurement:
        values = {**sizes.original, **overrides}
        if fails(values):
            return shrink.Measurement(error="RuntimeError: too small")
        product = 1
        for name in sizes.sizes:
            for v in values[name] if isinstance(values[name], tuple) else [values[name]]:
                product *= v
        return shrink.Measurement(elements=product)

    return measure


def test_search_halves_the_largest_first_and_keeps_divisibility() -> None:
    sizes = analyse(
        """
        embed_dim = 768
        num_heads = 12
        seq_len = 8192

        def get_inputs():
            return [torch.randn(seq_len, embed_dim)]

        def get_init_inputs():
            return [embed_dim, num_heads]
        """
    )
    budget = shrink.Budget(elements=20_000)
    result = shrink.search(sizes, fake_measure(sizes), budget)
    assert result.bases is not None and result.measurement.fits(budget)
    values = shrink.shapes(sizes, result.bases, "shrunk").values
    assert values["embed_dim"] % values["num_heads"] == 0 and values["num_heads"] == 12
    assert values["seq_len"] < 8192 and values["embed_dim"] < 768
    assert values["seq_len"] * values["embed_dim"] * 12 <= 20_000
    assert shrink.search(sizes, fake_measure(sizes), shrink.Budget(elements=10**12)).bases == {}


def test_a_step_that_fails_is_undone_and_the_rest_shrinks() -> None:
    sizes = analyse(
        """
        batch = 1024
        image = 512

        def get_inputs():
            return [torch.randn(batch, image, image)]

        def get_init_inputs():
            return []
        """
    )
    too_small = fake_measure(sizes, fails=lambda v: v["image"] < 64)
    # 64, 64 -> 32, 32 fails: each alone then, and the image stays at 64
    result = shrink.search(sizes, too_small, shrink.Budget(elements=64 * 8))
    assert result.bases == {"batch": 8, "image": 64}
    nothing = shrink.search(sizes, too_small, shrink.Budget(elements=10))
    assert nothing.bases is None and "even at batch=4, image=64" in nothing.reason
