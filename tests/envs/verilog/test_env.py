"""The Verilog family end to end: bundled problems, feedback, modes, limits and lint."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest
from codegym.envs.verilog.env import VerilogEnv
from codegym.envs.verilog.gate import module_ports
from codegym.envs.verilog.tasks import DATA, ports_from

from codegym.batch import Scorer
from codegym.executor import Limits
from codegym.executor.local import LocalExecutor
from codegym.grade import Status

MUX2 = "codegym-verilog/mux2"
FIFO = "codegym-verilog/fifo4"
RECORDS = json.loads((DATA / "problems.json").read_text())
ADDER_OFF_BY_ONE = """module TopModule(input [7:0] a, input [7:0] b, input cin, output [7:0] sum, output cout);
  assign {cout, sum} = a + b;
endmodule
"""


def test_the_bundled_set_is_large_and_mixed() -> None:
    assert len(RECORDS) >= 30
    tags = {tag for r in RECORDS for tag in r["tags"]}
    assert {"combinational", "sequential", "fsm", "fifo", "counter", "shift", "mux", "decoder", "encoder"} <= tags
    assert {r["difficulty"] for r in RECORDS} == {"easy", "medium", "hard"}


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_stored_ports_are_the_references(record: dict) -> None:
    assert ports_from(record["ports"]) == module_ports(record["reference"], "RefModule")


def test_every_bundled_reference_is_ok(env: VerilogEnv) -> None:
    for task in env.tasks:
        grade, _ = env.evaluate(task, task.reference or "")
        assert grade.status is Status.OK, (task.id, grade.feedback())
        assert grade.metrics["mismatch_ratio"] == 0.0
        assert grade.metrics["samples"] == sum(task.metadata["expected"].values())


def test_a_syntax_error_is_ce_with_its_line(env: VerilogEnv) -> None:
    code = "module TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n  assign y = sel ? b : ;\nendmodule\n"
    grade, _ = env.evaluate(env.tasks.get(MUX2), code)
    assert grade.status is Status.CE
    assert any(d.line == 2 and d.column is not None and d.severity == "error" for d in grade.diagnostics)
    assert "solution.sv:2:" in grade.feedback()


def test_an_iverilog_error_is_ce_with_its_line(env: VerilogEnv) -> None:
    # SystemVerilog pyslang accepts but Icarus does not support: the compile step's CE.
    code = (
        "module TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n"
        "  let pick(s, x, z) = s ? z : x;\n"
        "  assign y = pick(sel, a, b);\nendmodule\n"
    )
    grade, _ = env.evaluate(env.tasks.get(MUX2), code)
    assert grade.status is Status.CE, grade.feedback()
    assert grade.message == "iverilog rejected the design"
    assert any(d.file == "solution.sv" and d.line == 2 and d.severity == "error" for d in grade.diagnostics)


def test_an_interface_mismatch_is_ce_and_precise(env: VerilogEnv) -> None:
    code = "module TopModule(input [7:0] a, input [6:0] b, output [7:0] y, output z);\n  assign y = a; assign z = 0;\nendmodule\n"
    grade, _ = env.evaluate(env.tasks.get(MUX2), code)
    assert grade.status is Status.CE and grade.message == "interface mismatch"
    messages = [d.message for d in grade.diagnostics if d.code == "interface"]
    assert "interface mismatch: port 'b' is 7 bit(s) wide, expected 8 (`input [7:0] b`)" in messages
    assert "interface mismatch: missing port 'sel' (expected `input sel`)" in messages
    assert "interface mismatch: unexpected port 'z' (`output z`)" in messages
    wrong_direction = "module TopModule(input [7:0] a, input [7:0] b, input sel, inout [7:0] y);\nendmodule\n"
    grade, _ = env.evaluate(env.tasks.get(MUX2), wrong_direction)
    assert any("port 'y' is an inout, expected `output [7:0] y`" in d.message for d in grade.diagnostics)


def test_a_wrong_design_is_wa_with_per_phase_feedback(env: VerilogEnv) -> None:
    task = env.tasks.get("codegym-verilog/adder8")
    grade, _ = env.evaluate(task, ADDER_OFF_BY_ONE)
    assert grade.status is Status.WA
    assert 0 < grade.metrics["mismatch_ratio"] < 1
    failed = {t.name: t for t in grade.tests if not t.passed}
    assert "sum/directed" in failed and "sum/random" in failed
    first = failed["sum/directed"]
    assert first.call is not None and "cin=1" in first.call and first.call.startswith("t=")
    assert first.expected == "0" and first.got == "255 (0xff)"  # a=255 b=0 cin=1
    assert grade.resources["compile_s"] > 0 and grade.resources["simulate_s"] > 0


def test_a_sequential_design_reports_the_reset_phase(env: VerilogEnv) -> None:
    task = env.tasks.get("codegym-verilog/reg_en")
    no_reset = "module TopModule(input clk, input reset, input en, input [7:0] d, output reg [7:0] q);\n  always @(posedge clk) if (en) q <= d;\nendmodule\n"
    grade, _ = env.evaluate(task, no_reset)
    assert grade.status is Status.WA
    reset = next(t for t in grade.tests if t.name == "q/reset")
    assert not reset.passed and reset.expected == "0" and reset.got is not None and "x" in reset.got


def test_a_hung_simulation_is_tle(executor: LocalExecutor) -> None:
    env = VerilogEnv(executor=executor, lint="never", limits=Limits(cpu_s=1.0, wall_s=2.0))
    code = "module TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n  reg t;\n  initial forever t = ~t;\n  assign y = sel ? b : a;\nendmodule\n"
    grade, _ = env.evaluate(env.tasks.get(MUX2), code)
    assert grade.status is Status.TLE
    assert env.reward(grade) == 0.0


def test_lint_on_failure_adds_verilator_warnings(executor: LocalExecutor) -> None:
    env = VerilogEnv(executor=executor, lint="failure")
    grade, _ = env.evaluate(env.tasks.get("codegym-verilog/adder8"), ADDER_OFF_BY_ONE)
    assert grade.status is Status.WA
    unused = [d for d in grade.diagnostics if d.code == "UNUSEDSIGNAL"]
    assert unused and unused[0].line == 1 and unused[0].column is not None and "cin" in unused[0].message
    ok, _ = env.evaluate(
        env.tasks.get("codegym-verilog/adder8"), env.tasks.get("codegym-verilog/adder8").reference or ""
    )
    assert ok.status is Status.OK and not any(d.code == "UNUSEDSIGNAL" for d in ok.diagnostics)


def test_single_mode_terminates_after_one_step(executor: LocalExecutor) -> None:
    env = gym.make("codegym/Verilog-v1", executor=executor, lint="never")
    obs, info = env.reset(seed=0, options={"task_id": MUX2})
    assert "module TopModule (" in obs["prompt"] and "input sel" in obs["prompt"]
    _, reward, terminated, truncated, info = env.step(ADDER_OFF_BY_ONE)
    assert reward == 0.0 and terminated and not truncated and info["status"] == "CE"
    env.close()


def test_refine_mode_continues_until_solved(executor: LocalExecutor) -> None:
    env = gym.make("codegym/Verilog-v1", executor=executor, lint="never", mode="refine", max_episode_steps=5)
    env.reset(seed=0, options={"task_id": MUX2})
    wrong = "```verilog\nmodule TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n  assign y = sel ? a : b;\nendmodule\n```"
    obs, reward, terminated, truncated, info = env.step(wrong)
    assert (reward, terminated, truncated, info["status"]) == (0.0, False, False, "WA")
    assert "FAILED y/directed" in obs["feedback"] and obs["attempt"] == 1
    right = wrong.replace("sel ? a : b", "sel ? b : a")
    obs, reward, terminated, truncated, info = env.step(right)
    assert (reward, terminated, info["status"], obs["attempt"]) == (1.0, True, "OK", 2)
    env.close()


def test_the_scorer_grades_gate_rejections_and_runs_alike(executor: LocalExecutor) -> None:
    env = VerilogEnv(executor=executor, lint="never")
    reference = env.tasks.get(MUX2).reference or ""
    with Scorer(env) as scorer:
        grades = scorer.score(
            [(MUX2, reference), (MUX2, reference.replace("endmodule", "initial $finish;\nendmodule"))]
        )
    assert [g.status for g in grades] == [Status.OK, Status.HACK]


def test_reference_time_limits_calibrate(executor: LocalExecutor) -> None:
    from codegym.core import ReferenceTimeLimits

    env = VerilogEnv(executor=executor, lint="never", time_limits=ReferenceTimeLimits(multiple=5, floor_s=1))
    limits = env.limits_for(env.tasks.get(FIFO))
    assert limits.cpu_s < env.limits.cpu_s


def test_unknown_task_source_is_refused() -> None:
    from codegym.error import TaskFormatError

    with pytest.raises(TaskFormatError, match="neither 'codegym-verilog' nor a VerilogEval folder"):
        VerilogEnv(str(Path(__file__)))
    with pytest.raises(ValueError, match="lint must be"):
        VerilogEnv(lint="sometimes")  # type: ignore[arg-type]


def test_problems_json_is_what_the_build_script_writes() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_problems", DATA / "build_problems.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.records() == RECORDS


def test_records_in_memory_load_as_tasks(executor) -> None:
    import json

    import gymnasium as gym
    from codegym.envs.verilog.tasks import DATA

    from codegym.error import TaskFormatError

    rows = json.loads((DATA / "problems.json").read_text())[:2]
    env = gym.make("codegym/Verilog-v1", tasks=rows, executor=executor, lint="never").unwrapped
    task = env.tasks.get(rows[0]["id"])  # type: ignore[attr-defined]
    assert env.evaluate(task, task.reference)[0].status.value == "OK"  # type: ignore[attr-defined]
    with pytest.raises(TaskFormatError, match=r"row 0: a Verilog record needs .* missing \['spec'"):
        gym.make("codegym/Verilog-v1", tasks=[{"id": "x", "reference": "", "ports": [], "stimulus": {}}])
