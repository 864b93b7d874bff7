"""The VerilogEval v2 loader on a small folder written for these tests, forgery included."""

from __future__ import annotations

from pathlib import Path

import pytest
from codegym.envs.verilog import grader
from codegym.envs.verilog.env import VerilogEnv
from codegym.envs.verilog.gate import GateReport, Port
from codegym.envs.verilog.tasks import load_tasks

from codegym.error import InvalidTask, TaskFormatError
from codegym.executor.local import LocalExecutor
from codegym.grade import Status

from .conftest import VERILOG_EVAL

AND4 = "verilog-eval/Prob001_and4"
COUNT = "verilog-eval/Prob002_count_en"
SEL = "verilog-eval/Prob003_sel"
AND4_HEADER = "module TopModule(input [3:0] x, output y);\n"


def test_the_folder_loads_with_interfaces_from_the_references() -> None:
    tasks = load_tasks(VERILOG_EVAL)
    assert tasks.ids == (AND4, COUNT, SEL)
    count = tasks.get(COUNT)
    assert count.metadata["ports"] == (
        Port("clk", "input", 1),
        Port("reset", "input", 1),
        Port("en", "input", 1),
        Port("q", "output", 4),
    )
    assert "module TopModule (" in count.prompt  # the prompt had no interface: it is appended
    assert tasks.get(AND4).prompt.count("module TopModule") == 1  # it had one: kept as written
    assert {"tb", "stimulus_gen", "RefModule", "RefModule__Pick"} <= tasks.get(SEL).metadata["harness_names"]


def test_every_reference_is_ok_and_sets_the_sample_count(eval_env: VerilogEnv) -> None:
    for task in eval_env.tasks:
        grade, _ = eval_env.evaluate(task, task.reference or "")
        assert grade.status is Status.OK, grade.feedback()
    assert eval_env.expected_samples(eval_env.tasks.get(AND4)) == {"all": 162}


def test_a_wrong_design_is_wa_with_the_testbench_hints(eval_env: VerilogEnv) -> None:
    grade, _ = eval_env.evaluate(eval_env.tasks.get(AND4), AND4_HEADER + "  assign y = |x;\nendmodule\n")
    assert grade.status is Status.WA and 0 < grade.metrics["mismatch_ratio"] < 1
    (outcome,) = grade.tests
    assert outcome.name == "y" and not outcome.passed and outcome.trace is not None and "first at t=" in outcome.trace


def test_a_design_may_reuse_the_references_helper_names(eval_env: VerilogEnv) -> None:
    code = (
        "module TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] out);\n"
        "  Pick p(.a(a), .b(b), .s(sel), .y(out));\nendmodule\n"
        "module Pick(input [7:0] a, input [7:0] b, input s, output [7:0] y);\n  assign y = s ? b : a;\nendmodule\n"
    )
    assert eval_env.evaluate(eval_env.tasks.get(SEL), code)[0].status is Status.OK


FORGERIES = {
    "finish at time 0": AND4_HEADER + "  assign y = 1'b0;\n  initial $finish;\nendmodule\n",
    "fake Mismatches: 0": AND4_HEADER
    + '  assign y = 1\'b0;\n  final $display("Mismatches: 0 in 162 samples");\nendmodule\n',
    "hierarchical write into the stats": AND4_HEADER + "  assign y = 1'b0;\n  always #1 tb.stats1 = 0;\nendmodule\n",
    "redefine the stimulus": AND4_HEADER
    + "  assign y = &x;\nendmodule\nmodule stimulus_gen(input clk, output reg [3:0] x);\nendmodule\n",
    "instantiate the reference": AND4_HEADER + "  RefModule r(.x(x), .y(y));\nendmodule\n",
    "$fopen": AND4_HEADER + '  assign y = &x;\n  integer f;\n  initial f = $fopen("wave.vcd", "w");\nendmodule\n',
    "use the testbench's macro": AND4_HEADER + "  assign y = &x;\n  localparam N = `SAMPLES;\nendmodule\n",
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_forgery_on_an_external_testbench_scores_zero(eval_env: VerilogEnv, name: str) -> None:
    grade, _ = eval_env.evaluate(eval_env.tasks.get(AND4), FORGERIES[name])
    assert grade.status in (Status.HACK, Status.CE), grade.feedback()
    assert eval_env.reward(grade) == 0.0


def test_an_early_end_is_caught_by_the_sample_count_with_the_gate_bypassed(eval_env: VerilogEnv) -> None:
    task = eval_env.tasks.get(AND4)
    result = eval_env.executor.run(eval_env.simulation_job(task, FORGERIES["finish at time 0"], eval_env.limits))
    stdout = result.steps[-1].stdout
    assert b"Mismatches: 0 in 0 samples" in stdout  # the testbench's own final block ran
    grade = grader.grade(GateReport(None), result, expected=eval_env.expected_samples(task))
    assert grade.status is Status.HACK and "reported 0 samples, expected 162" in grade.message


def test_a_folder_with_a_missing_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "Prob001_x_prompt.txt").write_text("spec")
    (tmp_path / "Prob001_x_ref.sv").write_text("module RefModule(input a, output b); assign b = a; endmodule\n")
    with pytest.raises(TaskFormatError, match=r"Prob001_x_test\.sv is missing"):
        load_tasks(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskFormatError, match=r"no \*_prompt\.txt"):
        load_tasks(tmp_path / "empty")


def test_a_testbench_printing_untagged_report_lines_is_refused(tmp_path: Path, executor: LocalExecutor) -> None:
    for suffix in ("prompt.txt", "ref.sv", "test.sv"):
        text = (VERILOG_EVAL / f"Prob001_and4_{suffix}").read_text()
        if suffix == "test.sv":  # a report split over two lines: the second would carry no tag
            text = text.replace('$display("Mismatches: %1d', '$display("Done.\\nMismatches: %1d')
        (tmp_path / f"Prob001_and4_{suffix}").write_text(text)
    env = VerilogEnv(tmp_path, executor=executor, lint="never")
    with pytest.raises(InvalidTask, match="prints report lines its tag does not cover"):
        env.expected_samples(env.tasks.get(AND4))
