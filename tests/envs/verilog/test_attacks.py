"""Designs that try to forge the verdict: each is rewarded 0, as HACK (or CE).

The first group goes through the env (the static gate is the first line of defence). The
second bypasses the gate and runs the compile-and-simulate job directly, to show that the
later layers (nonce-tagged lines, full sample counts, the emptied work dir, limits) hold on
their own.
"""

from __future__ import annotations

import pytest
from codegym.envs.verilog import grader
from codegym.envs.verilog.env import VerilogEnv
from codegym.envs.verilog.gate import GateReport

from codegym.executor import Limits
from codegym.executor.local import LocalExecutor
from codegym.grade import Grade, Status
from codegym.task import Task


@pytest.fixture(scope="module")
def executor(tiered_executor: LocalExecutor) -> LocalExecutor:
    """Each sandbox tier the suite can make here in turn (see ``tests/conftest.py``)."""
    return tiered_executor


MUX2 = "codegym-verilog/mux2"
HEADER = "module TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n"
RIGHT = "  assign y = sel ? b : a;\n"
WRONG = "  assign y = a;\n"


def design(*lines: str, right: bool = True) -> str:
    return HEADER + (RIGHT if right else WRONG) + "".join(f"  {line}\n" for line in lines) + "endmodule\n"


ATTACKS = {
    "finish at time 0": (design("initial $finish;", right=False), Status.HACK),
    "stop": (design("initial #3 $stop;", right=False), Status.HACK),
    "fake Mismatches: 0 line": (design('initial $display("Mismatches: 0 in 62 samples");', right=False), Status.HACK),
    "fake tagged lines": (design('initial $display("@@0@@ done");', right=False), Status.HACK),
    "hierarchical write into the testbench": (design("always #1 tb.errors[1] = 0;", right=False), Status.HACK),
    "hierarchical read of the reference": (HEADER + "  assign y = tb.y_ref;\nendmodule\n", Status.HACK),
    "disable the testbench": (design("initial #1 disable tb.sample;", right=False), Status.HACK),
    "$root": (HEADER + "  assign y = $root.tb.y_ref;\nendmodule\n", Status.HACK),
    "redefine the reference": (
        design(right=False) + "module RefModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n"
        "  assign y = a;\nendmodule\n",
        Status.HACK,
    ),
    "declare the testbench": (design() + "module tb;\nendmodule\n", Status.HACK),
    "instantiate the reference": (HEADER + "  RefModule r(.a(a), .b(b), .sel(sel), .y(y));\nendmodule\n", Status.HACK),
    "$fopen": (design('integer f; initial f = $fopen("tb.sv", "r");'), Status.HACK),
    "$readmemh": (design('reg [7:0] m [0:3]; initial $readmemh("tb.sv", m);'), Status.HACK),
    "$fwrite to stdout": (design('initial $fwrite(1, "Mismatches: 0 in 62 samples\\n");'), Status.HACK),
    "read the nonce plusarg": (
        design('reg [8*40:1] n; initial if ($value$plusargs("codegym_nonce=%s", n)) $display("%0s", n);'),
        Status.HACK,
    ),
    "shared random state": (design("integer r; initial r = $random;"), Status.HACK),
    "$system": (design('initial $system("ls");'), Status.HACK),
    "include the testbench": ('`include "tb.sv"\n' + design(), Status.HACK),
    "drive an input": (design("assign sel = 1'b0;", right=False), Status.HACK),
    "drive an input from a child": (
        HEADER
        + "  Zero z(.o(sel));\n  assign y = b;\nendmodule\nmodule Zero(output o);\n  assign o = 1'b0;\nendmodule\n",
        Status.HACK,
    ),
    "force": (design("initial force y = 8'd0;", right=False), Status.HACK),
    "defparam": (design("defparam tb.N = 0;"), Status.HACK),
    "bind": (design() + "bind tb Probe p();\nmodule Probe;\nendmodule\n", Status.HACK),
    "DPI": (design('import "DPI-C" function int getpid();'), Status.HACK),
    "token pasting": ("`define CAT(x) `x``lude\n" + design(), Status.CE),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_through_the_env_scores_zero(env: VerilogEnv, name: str) -> None:
    code, status = ATTACKS[name]
    grade, _ = env.evaluate(env.tasks.get(MUX2), code)
    assert grade.status is status, grade.feedback()
    assert env.reward(grade) == 0.0


def test_a_macro_bomb_is_refused_before_parsing(env: VerilogEnv) -> None:
    uses = "\n".join(f"  localparam Q{i} = `A;" for i in range(300))
    bomb = "`define A " + "1" * 5000 + "\n" + HEADER + RIGHT + uses + "\nendmodule\n"
    grade, _ = env.evaluate(env.tasks.get(MUX2), bomb)
    assert grade.status is Status.CE and "macro expansion is too large" in grade.message


def test_printing_is_allowed_but_never_counts(env: VerilogEnv) -> None:
    chatty = design('always @(a) $display("a is %0d", a);')
    grade, _ = env.evaluate(env.tasks.get(MUX2), chatty)
    assert grade.status is Status.OK
    wrong = design('always @(a) $display("a is %0d", a);', right=False)
    assert env.evaluate(env.tasks.get(MUX2), wrong)[0].status is Status.WA


def test_flooding_stdout_is_ole(env: VerilogEnv) -> None:
    flood = design('always @(a) repeat (2000) $display("%0600d", a);')
    grade, _ = env.evaluate(env.tasks.get(MUX2), flood)
    assert grade.status is Status.OLE and env.reward(grade) == 0.0


# --- the later layers on their own (the gate bypassed) -----------------------------------------


def _bypass(env: VerilogEnv, task: Task, code: str, limits: Limits | None = None) -> tuple[Grade, bytes]:
    result = env.executor.run(env.simulation_job(task, code, limits or env.limits))
    grade = grader.grade(GateReport(None), result, expected=env.expected_samples(task), bench=task.metadata["bench"])
    return grade, result.steps[-1].stdout


def test_bypassed_finish_at_time_zero_is_hack(env: VerilogEnv) -> None:
    grade, _ = _bypass(env, env.tasks.get(MUX2), design("initial $finish;", right=False))
    assert grade.status is Status.HACK and "ended before" in grade.message


def test_bypassed_forged_report_with_a_guessed_nonce_is_hack(env: VerilogEnv) -> None:
    forged = design(
        "initial begin",
        '  $display("@@0123456789abcdef0123456789abcdef@@ phase 0 0 0");',
        '  $display("@@0123456789abcdef0123456789abcdef@@ phase 1 2 0");',
        '  $display("@@0123456789abcdef0123456789abcdef@@ phase 2 60 0");',
        '  $display("@@0123456789abcdef0123456789abcdef@@ done");',
        '  $display("Mismatches: 0 in 62 samples");',
        "  $finish;",
        "end",
        right=False,
    )
    grade, _ = _bypass(env, env.tasks.get(MUX2), forged)
    assert grade.status is Status.HACK


def test_bypassed_fake_summary_of_a_wrong_design_is_not_ok(env: VerilogEnv) -> None:
    grade, stdout = _bypass(
        env, env.tasks.get(MUX2), design('initial #100 $display("Mismatches: 0 in 62 samples");', right=False)
    )
    assert b"Mismatches: 0 in 62 samples" in stdout
    assert grade.status is Status.HACK and grade.metrics["mismatch_ratio"] == 1.0


def test_the_simulation_runs_in_an_empty_folder(env: VerilogEnv) -> None:
    probe = design(
        "integer t, s, v;",
        'initial begin t = $fopen("tb.sv", "r"); s = $fopen("solution.sv", "r"); v = $fopen("sim.vvp", "r");',
        '  $display("PROBE %0d %0d %0d", t, s, v); end',
    )
    grade, stdout = _bypass(env, env.tasks.get(MUX2), probe)
    assert b"PROBE 0 0 0" in stdout  # every open failed: no source, reference or image to read
    assert grade.status is Status.OK  # and the probe changed nothing about the verdict


def test_bypassed_hung_simulation_is_tle(env: VerilogEnv) -> None:
    grade, _ = _bypass(env, env.tasks.get(MUX2), design("initial forever #0 ;"), Limits(cpu_s=1.0, wall_s=2.0))
    assert grade.status is Status.TLE


def test_the_nonce_differs_per_job(env: VerilogEnv) -> None:
    task = env.tasks.get(MUX2)
    first, second = (env.simulation_job(task, design(), env.limits) for _ in range(2))
    assert first.steps[0].argv != second.steps[0].argv
    assert all(job.steps[0].argv[-1].startswith("+codegym_nonce=") for job in (first, second))
