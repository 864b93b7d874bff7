"""The env's contract beyond the registry tests: loaders, feedback, rewards, and the pure
parts (static checks, the harness's comparison, the wire format, the speedup interval)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from codegym.envs.triton_kernel import harness, integrity, wire
from codegym.envs.triton_kernel.env import NO_GPU_NOTE, TritonKernelEnv
from codegym.envs.triton_kernel.tasks import load_tasks, make_task
from codegym.envs.triton_kernel.timing import speedup_interval, t_quantile

from codegym.error import TaskFormatError
from codegym.grade import Status

from .conftest import submit
from .test_attacks import CORRECT, TASK

KERNELBENCH = Path(__file__).with_name("kernelbench")


# --- loading --------------------------------------------------------------------------------


def test_a_folder_of_kernelbench_problem_files_loads_as_is() -> None:
    tasks = load_tasks(KERNELBENCH)
    assert tasks.ids == ("kernelbench/19_ReLU", "kernelbench/23_Softmax")  # helpers.py is skipped
    relu = tasks.get("kernelbench/19_ReLU")
    assert relu.reference and "ModelNew" in relu.reference
    assert tasks.get("kernelbench/23_Softmax").reference is None
    assert "return torch.relu(x)" in relu.prompt and "ModelNew" in relu.prompt


def test_kernelbench_folder_env_grades_a_solution(make_env) -> None:
    env = make_env(tasks=KERNELBENCH)
    task = env.tasks.get("kernelbench/19_ReLU")
    reward, observation, info = submit(env, task.id, task.reference or "")
    assert info["grade"].status is Status.OK, observation["feedback"]
    wrong = (task.reference or "").replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)")
    reward, observation, info = submit(env, task.id, wrong)
    assert info["grade"].status is Status.WA and reward == 0.0
    assert "max abs error" in observation["feedback"] and "max rel error" in observation["feedback"]


def test_kernelbench_rows_in_memory_grade_as_the_folder(make_env) -> None:
    """KernelBench as its dataset publishes it: rows with ``code``, ``name``, ``level``."""
    rows = [{"code": (KERNELBENCH / "19_ReLU.py").read_text(), "name": "19_ReLU.py", "level": 1, "problem_id": 19,
             "reference": (KERNELBENCH / "solutions" / "19_ReLU.py").read_text()}]  # fmt: skip
    env = make_env(tasks=rows)
    task = env.tasks.get("kernelbench/level1/19_ReLU")
    assert submit(env, task.id, task.reference or "")[2]["grade"].status is Status.OK
    with pytest.raises(TaskFormatError, match=r"row 0: a KernelBench row needs 'code'"):
        load_tasks([{"name": "x"}])


def test_loader_errors_say_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match="neither"):
        load_tasks(tmp_path / "missing")
    (tmp_path / "notes.py").write_text("x = 1\n")
    with pytest.raises(TaskFormatError, match="no KernelBench problem file"):
        load_tasks(tmp_path)
    with pytest.raises(TaskFormatError, match="must define Model"):
        make_task("t/x", "def get_inputs():\n    return []\n")


def test_trial_seeds_are_fixed_by_the_task_and_distinct() -> None:
    a = load_tasks(KERNELBENCH, trials=4).get("kernelbench/19_ReLU")
    b = load_tasks(KERNELBENCH, trials=4).get("kernelbench/19_ReLU")
    assert [t.code for t in a.tests] == [t.code for t in b.tests]
    assert len({t.code for t in a.tests}) == 4


# --- feedback ---------------------------------------------------------------------------------


def test_compile_error_points_at_the_offending_kernel_line(cpu_env: TritonKernelEnv) -> None:
    bad = CORRECT.replace("tl.arange(0, BLOCK)", "tl.arange(0, 3)")
    line = next(i for i, text in enumerate(bad.splitlines(), 1) if "tl.arange(0, 3)" in text)
    reward, observation, info = submit(cpu_env, TASK, bad)
    grade = info["grade"]
    assert grade.status is Status.CE and reward == 0.0
    assert grade.diagnostics[0].line == line
    assert "power of 2" in observation["feedback"]


def test_what_the_interpreter_accepts_but_the_compiler_rejects_is_ce(cpu_env: TritonKernelEnv) -> None:
    helper = "def double(v):\n    return v * 2\n\n\n"
    code = CORRECT.replace("@triton.jit", helper + "@triton.jit").replace(
        "tl.load(a_ptr + offsets, mask=mask) +", "double(tl.load(a_ptr + offsets, mask=mask)) +"
    )
    reward, observation, info = submit(cpu_env, TASK, code)
    assert info["grade"].status is Status.CE, observation["feedback"]
    assert "double" in observation["feedback"]


def test_syntax_error_is_ce_with_line_and_column(cpu_env: TritonKernelEnv) -> None:
    reward, observation, info = submit(
        cpu_env, TASK, CORRECT.replace("def forward(self, a, b):", "def forward(self, a, b)")
    )
    grade = info["grade"]
    assert grade.status is Status.CE and grade.diagnostics[0].line is not None
    assert grade.diagnostics[0].column is not None


def test_runtime_error_is_re_with_the_submissions_line(cpu_env: TritonKernelEnv) -> None:
    code = CORRECT.replace("out = torch.empty_like(a)", "out = torch.empty_like(a)\n        raise ValueError('boom')")
    line = next(i for i, text in enumerate(code.splitlines(), 1) if "boom" in text)
    reward, observation, info = submit(cpu_env, TASK, code)
    grade = info["grade"]
    assert grade.status is Status.RE and "boom" in observation["feedback"]
    assert grade.diagnostics[0].line == line


def test_missing_model_new_is_re(cpu_env: TritonKernelEnv) -> None:
    reward, observation, info = submit(cpu_env, TASK, "import torch\n")
    assert info["grade"].status is Status.RE and "ModelNew" in observation["feedback"]


def test_wrong_dtype_and_layout_are_wa_with_the_reason(cpu_env: TritonKernelEnv) -> None:
    double = CORRECT.replace("return out", "return out.double()")
    reward, observation, info = submit(cpu_env, TASK, double)
    assert info["grade"].status is Status.WA and "dtype" in observation["feedback"]
    transposed = CORRECT.replace(
        "out = torch.empty_like(a)", "out = torch.empty((a.shape[1], a.shape[0]), dtype=a.dtype).t()"
    )
    reward, observation, info = submit(cpu_env, TASK, transposed)
    assert info["grade"].status is Status.WA and "strides" in observation["feedback"]


# --- rewards --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["log_speedup", "fast_p"])
def test_on_cpu_the_speed_term_is_absent_and_info_says_why(make_env, kind: str) -> None:
    env = make_env(reward=kind, p=1.5)
    reward, observation, info = submit(env, TASK, CORRECT)
    assert info["grade"].status is Status.OK and reward == 1.0  # the gate alone
    assert info["timing"] is None and "speedup" not in info["grade"].metrics
    assert info["reward_notes"]["speedup"] == NO_GPU_NOTE
    reward, observation, info = submit(env, TASK, CORRECT.replace("return out", "return out * 0"))
    assert reward == 0.0 and "not correct" in info["reward_notes"]["speedup"]


def test_speed_terms_follow_the_measured_speedup(make_env) -> None:
    from codegym.grade import Grade

    grade = Grade(Status.OK, metrics={"speedup": 2.0})
    assert make_env(reward="log_speedup").reward(grade) == pytest.approx(1 + math.log(2.0))
    assert make_env(reward="log_speedup").reward(Grade(Status.OK, metrics={"speedup": 0.2})) == 0.0
    assert make_env(reward="fast_p", p=1.5).reward(grade) == 1.0
    assert make_env(reward="fast_p", p=2.5).reward(grade) == 0.0
    assert make_env(reward="correct").reward(grade) == 1.0
    assert make_env(reward="log_speedup").reward(Grade(Status.WA, metrics={"speedup": 9.0})) == 0.0


class TimedOnGpu(TritonKernelEnv):
    """Grades every submission as a GPU run would a correct kernel twice as fast as the
    reference (this machine has no GPU to time one)."""

    def evaluate(self, task, code):
        from codegym.grade import Grade

        return Grade(Status.OK, metrics={"speedup": 2.0}), {}


def test_the_speed_term_is_a_reward_component_of_its_own() -> None:
    """The env's reward is ``correct`` plus ``speedup``; a `SpeedupReward` on top replaces
    that term instead of counting the speed twice, and a discount of ``correct`` leaves it."""
    from codegym.wrappers import RefinementDiscount, SpeedupReward

    env = TimedOnGpu(device="cpu", reward="log_speedup")
    env.reset(seed=0, options={"task_id": TASK})
    _, reward, _, _, info = env.step(CORRECT)
    assert info["reward_components"] == {"correct": 1.0, "speedup": pytest.approx(math.log(2.0))}
    assert reward == pytest.approx(1.0 + math.log(2.0))
    shaped = SpeedupReward(TimedOnGpu(device="cpu", reward="log_speedup"), weight=0.5)
    shaped.reset(seed=0, options={"task_id": TASK})
    _, reward, _, _, info = shaped.step(CORRECT)
    assert info["reward_components"] == {"correct": 1.0, "speedup": pytest.approx(0.5 * math.log(2.0))}
    assert reward == pytest.approx(1.0 + 0.5 * math.log(2.0))
    discounted = RefinementDiscount(TimedOnGpu(device="cpu", reward="log_speedup", mode="refine"), gamma=0.5)
    discounted.reset(seed=0, options={"task_id": TASK, "history": [{"code": "pass", "feedback": "WA"}]})
    _, reward, _, _, info = discounted.step(CORRECT)  # the second attempt: "correct" is halved
    assert info["reward_components"]["refinement_discount"] == pytest.approx(-0.5)
    assert reward == pytest.approx(0.5 + math.log(2.0))


def test_refine_mode_ends_when_correct(make_env) -> None:
    env = make_env(mode="refine")
    env.reset(seed=0, options={"task_id": TASK})
    _, reward, terminated, _, _ = env.step(CORRECT.replace("return out", "return out * 0"))
    assert reward == 0.0 and not terminated
    _, reward, terminated, _, info = env.step(CORRECT)
    assert reward == 1.0 and terminated and info["attempt"] == 2


def test_bad_arguments_are_refused(make_env) -> None:
    with pytest.raises(ValueError, match="reward must be one of"):
        make_env(reward="fastest")
    with pytest.raises(ValueError, match="device must be"):
        make_env(device="tpu")
    with pytest.raises(ValueError, match="executor must be"):
        make_env(executor="docker")


@pytest.mark.skipif(Path("/dev/nvidiactl").exists(), reason="this machine has an NVIDIA GPU")
def test_asking_for_a_gpu_where_there_is_none_says_so(make_env) -> None:
    with pytest.raises(ValueError, match="needs an NVIDIA GPU"):
        make_env(device="cuda")
    assert make_env(device="auto").device == "cpu"


# --- the pure parts -------------------------------------------------------------------------


def test_static_checks_accept_every_bundled_reference() -> None:
    for task in load_tasks("codegym-triton"):
        assert integrity.check(task.reference or "") == [], task.id


@pytest.mark.parametrize(
    ("source", "check"),
    [
        ("import os\n", "import"),
        ("from . import x\n", "import"),
        ("import torch as t\nt.cuda.Stream()\n", "forbidden_api"),
        ("from torch.cuda import Stream\n", "import"),
        ("from torch import cuda\ncuda.Stream()\n", "forbidden_api"),
        ("import torch\nx = torch.ops.aten.mm\n", "forbidden_api"),
        ("import triton.language as tl\ntl.sum = None\n", "patch"),
        ("import torch\ndel torch.matmul\n", "patch"),
        ("x = (1).__class__\n", "private"),
        ("x = eval('1')\n", "builtin"),
        ("x = __builtins__\n", "dunder"),
        ("import torch\ntorch.set_num_threads(4)\n", "forbidden_api"),
    ],
)
def test_static_checks_flag(source: str, check: str) -> None:
    assert check in {f.check for f in integrity.check(source)}


def test_a_main_guarded_self_test_is_not_checked_but_cannot_be_switched_on() -> None:
    self_test = 'if __name__ == "__main__":\n    import numpy\n    torch.manual_seed(0)\nelse:\n    x = 1\n'
    assert integrity.check("import torch\n" + self_test) == []
    assert integrity.check("import os\n" + self_test)  # outside the block, still checked
    assert {f.check for f in integrity.check(self_test.replace("x = 1", "import os"))} == {"import"}
    assert {f.check for f in integrity.check('__name__ = "__main__"\n' + self_test)} == {"dunder"}


def test_static_checks_leave_syntax_errors_to_the_compile_step() -> None:
    assert integrity.check("def (:\n") == []


def _record(array: np.ndarray, blobs: list[bytes], dtype: str | None = None, strides: list[int] | None = None) -> dict:
    blobs.append(np.ascontiguousarray(array).tobytes())
    return {
        "dtype": dtype or str(array.dtype),
        "shape": list(array.shape),
        "strides": strides or [s // array.itemsize for s in np.ascontiguousarray(array).strides],
        "blob": len(blobs) - 1,
    }


def test_harness_compares_within_the_dtype_tolerance_and_reports_errors() -> None:
    ref = np.array([[1.0, 2.0], [3.0, np.nan]], dtype=np.float32)
    ref_blobs: list[bytes] = []
    want = [_record(ref, ref_blobs)]
    close = ref + np.float32(5e-5)
    blobs: list[bytes] = []
    assert harness.compare([_record(close, blobs)], blobs, want, ref_blobs)[0]["ok"]
    far = ref.copy()
    far[0, 1] = 2.5
    blobs = []
    result = harness.compare([_record(far, blobs)], blobs, want, ref_blobs)[0]
    assert not result["ok"] and result["mismatched"] == 1
    assert result["max_abs"] == pytest.approx(0.5) and result["max_rel"] == pytest.approx(0.25)
    assert result["worst"]["index"] == [0, 1]
    poisoned = np.full_like(ref, np.nan)
    blobs = []
    assert harness.compare([_record(poisoned, blobs)], blobs, want, ref_blobs)[0]["mismatched"] == 3


@pytest.mark.parametrize(
    ("change", "word"),
    [
        ({"dtype": "float64"}, "dtype"),
        ({"shape": [4]}, "shape"),
        ({"strides": [1, 2]}, "strides"),
    ],
)
def test_harness_checks_dtype_shape_strides_first(change: dict, word: str) -> None:
    ref = np.zeros((2, 2), dtype=np.float32)
    ref_blobs: list[bytes] = []
    want = [_record(ref, ref_blobs)]
    blobs: list[bytes] = []
    got = {**_record(ref, blobs), **change}
    result = harness.compare([got], blobs, want, ref_blobs)[0]
    assert not result["ok"] and word in result["problem"]


def test_harness_decodes_bfloat16_and_counts_missing_outputs() -> None:
    values = np.array([1.0, -2.5, 3.140625], dtype=np.float32)
    bits = (values.view(np.uint32) >> 16).astype(np.uint16)
    blobs = [bits.tobytes()]
    record = {"dtype": "bfloat16", "shape": [3], "strides": [1], "blob": 0}
    assert harness.decode(record, blobs).tolist() == values.tolist()
    assert not harness.compare([], [], [record], blobs)[0]["ok"]


def test_wire_rejects_malformed_messages() -> None:
    header, blobs = wire.unpack(wire.pack({"kind": "x"}, [b"ab", b""]))
    assert header == {"kind": "x"} and blobs == [b"ab", b""]
    packed = wire.pack({"kind": "x"}, [b"abc"])
    for broken in (packed[:-1], packed + b"!", b"\x00" * 3, wire.pack({"kind": "x"})[:8] + b"[]" * 1):
        with pytest.raises(wire.Malformed):
            wire.unpack(broken)
    good = {"dtype": "float32", "shape": [2], "strides": [1], "blob": 0}
    assert wire.check_record(good, [b"\x00" * 8]) == good
    for bad in ({**good, "dtype": "object"}, {**good, "shape": [3]}, {**good, "blob": 5}, {**good, "shape": [True]}):
        with pytest.raises(wire.Malformed):
            wire.check_record(bad, [b"\x00" * 8])


def test_speedup_interval_is_a_geometric_mean_with_a_t_interval() -> None:
    reference = [2.0, 2.2, 1.8, 2.1, 1.9]
    candidate = [1.0, 1.0, 1.0, 1.0, 1.0]
    result = speedup_interval(reference, candidate)
    logs = [math.log(r) for r in reference]
    assert result["speedup"] == pytest.approx(math.exp(sum(logs) / 5))
    assert result["speedup_low"] < result["speedup"] < result["speedup_high"]
    half = t_quantile(4) * np.std(logs, ddof=1) / math.sqrt(5)
    assert result["speedup_high"] == pytest.approx(math.exp(sum(logs) / 5 + half))
    assert result["reference_ms"] == 2.0 and result["pairs"] == 5.0
    assert t_quantile(4) == pytest.approx(2.776) and t_quantile(100) < 2.0
    with pytest.raises(ValueError, match="no positive"):
        speedup_interval([0.0], [1.0])


def test_task_shapes_fit_the_harness_channel() -> None:
    """On a GPU a trial's outputs travel in one frame: each problem's stay well under the cap."""
    import torch
    from codegym.envs.triton_kernel import problem
    from codegym.envs.triton_kernel.tasks import bundled

    from codegym.executor.channel import MAX_FRAME

    for task in bundled():
        module = problem.load(task.metadata["problem"])
        with torch.device("meta"):
            model = module.Model(*module.get_init_inputs())
            value = model(*module.get_inputs())
        outputs = problem.outputs(value)
        assert outputs is not None, task.id
        size = sum(t.numel() * t.element_size() for t in outputs)
        assert size <= MAX_FRAME // 2, (task.id, size)


def test_an_output_of_the_wrong_shape_sends_no_values() -> None:
    ref = np.zeros(3, dtype=np.float32)
    ref_blobs: list[bytes] = []
    want = [_record(ref, ref_blobs)]
    metadata_only = {"dtype": "float32", "shape": [1 << 30], "strides": [1], "blob": -1}
    assert wire.check_record(metadata_only, []) == metadata_only
    result = harness.compare([metadata_only], [], want, ref_blobs)[0]
    assert not result["ok"] and "shape" in result["problem"]
    same = {"dtype": "float32", "shape": [3], "strides": [1], "blob": -1}
    assert "no values" in harness.compare([same], [], want, ref_blobs)[0]["problem"]


def test_batch_scoring_grades_like_step() -> None:
    import codegym

    from .test_attacks import STATIC_CHEATS

    cheat = STATIC_CHEATS["patch-torch"][0]
    wrong = CORRECT.replace("+ tl.load(b_ptr", "- tl.load(b_ptr")
    grades = codegym.score(
        "codegym/TritonKernel-v0", [(TASK, CORRECT), (TASK, cheat), (TASK, wrong), (TASK, CORRECT)], device="cpu"
    )
    assert [g.status for g in grades] == [Status.OK, Status.HACK, Status.WA, Status.OK]


def test_a_timing_report_sets_only_timing_metrics_and_only_when_correct() -> None:
    import json

    from codegym.envs.triton_kernel import grader

    from codegym.executor import RunResult, StepResult

    forged = {"kind": "timing", "speedup": 2.0, "speedup_low": 1.5, "speedup_high": float("nan"), "pass_rate": 0.0}
    timing = harness.timing_fields(forged)
    assert timing == {"speedup": 2.0, "speedup_low": 1.5}
    task = load_tasks(KERNELBENCH, trials=1).get("kernelbench/19_ReLU")
    output = {"ok": True, "max_abs": 0.0, "max_rel": 0.0, "mismatched": 0, "elements": 4, "atol": 1e-4, "rtol": 1e-4}
    report = {"trials": [{"index": 0, "outputs": [output], "launches": 1, "kernels": {"k": 1}, "aot": None}]}
    step = StepResult(argv=("python",), exit_code=0)
    grade = grader.grade(
        task, RunResult(steps=(step,), harness_output=json.dumps({**report, "timing": timing}).encode())
    )
    assert grade.status is Status.OK and grade.metrics["speedup"] == 2.0 and grade.metrics["pass_rate"] == 1.0
    report["trials"][0]["outputs"][0] = {**output, "ok": False, "mismatched": 1}
    grade = grader.grade(
        task, RunResult(steps=(step,), harness_output=json.dumps({**report, "timing": timing}).encode())
    )
    assert grade.status is Status.WA and "speedup" not in grade.metrics
