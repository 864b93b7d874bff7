"""An external testbench whose reference needs more than the env's limits (VerilogEval's
``Prob144_conwaylife`` takes about 5 s of CPU; issue 45 item 8): the limit is raised for the
task, never a reason to drop it; a reference run that fails says why, and which limit it hit;
the runner's marker line never reaches a message.

The problem is written here in VerilogEval v2's layout: a 16x16 toroidal game of life with a
256-bit state, ``load`` and a step per clock, the reference written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from codegym.envs.verilog.env import VerilogEnv, needed_limits, reference_failure
from codegym.envs.verilog.runner import COMPILED

from codegym.executor import Limits
from codegym.executor.local import LocalExecutor
from codegym.grade import Grade, Status

STEM = "Prob144_conwaylife"
TASK = f"verilog-eval/{STEM}"
PROMPT = """\
Conway's Game of Life on a 16x16 torus. The 256-bit state q holds row r, column c at bit
q[r*16 + c]; every cell has eight neighbours, and the grid wraps at its edges. On each rising
edge of clk: when load is 1, q becomes data; otherwise every cell takes its next state (a live
cell with 2 or 3 live neighbours lives, a dead cell with exactly 3 becomes live, every other
cell is dead).
"""
REFERENCE = """\
module RefModule (
  input clk,
  input load,
  input [255:0] data,
  output reg [255:0] q
);
  function automatic [3:0] live_around(input [255:0] s, input integer row, input integer col);
    integer dr, dc;
    begin
      live_around = 4'd0;
      for (dr = -1; dr <= 1; dr = dr + 1)
        for (dc = -1; dc <= 1; dc = dc + 1)
          if (dr != 0 || dc != 0)
            live_around = live_around + s[((row + dr + 16) % 16) * 16 + (col + dc + 16) % 16];
    end
  endfunction

  integer row, col;
  reg [3:0] around;
  always @(posedge clk) begin
    if (load) q <= data;
    else
      for (row = 0; row < 16; row = row + 1)
        for (col = 0; col < 16; col = col + 1) begin
          around = live_around(q, row, col);
          q[row * 16 + col] <= around == 4'd3 || (around == 4'd2 && q[row * 16 + col]);
        end
  end
endmodule
"""
TESTBENCH = """\
`timescale 1 ps/1 ps

module stimulus_gen (
  input clk,
  output reg load,
  output reg [255:0] data
);
  integer round;
  initial begin
    data = 256'h0;
    data[2*16 + 1 +: 3] = 3'b111;
    data[8*16 + 8] = 1'b1;
    data[9*16 + 9] = 1'b1;
    data[10*16 + 7 +: 3] = 3'b111;
    load = 1'b1;
    @(negedge clk) load = 1'b0;
    repeat (60) @(negedge clk);
    for (round = 0; round < ROUNDS; round = round + 1) begin
      data = {$random, $random, $random, $random, $random, $random, $random, $random};
      load = 1'b1;
      @(negedge clk) load = 1'b0;
      repeat (60) @(negedge clk);
    end
    #1 $finish;
  end
endmodule

module tb();
  typedef struct packed {
    int errors;
    int errortime;
    int errors_q;
    int errortime_q;
    int clocks;
  } stats;
  stats stats1;

  reg clk = 0;
  initial forever #5 clk = ~clk;

  logic load;
  logic [255:0] data;
  logic [255:0] q_ref;
  logic [255:0] q_dut;
  wire tb_match;

  stimulus_gen stim1 (.clk(clk), .load(load), .data(data));
  RefModule good1 (.clk(clk), .load(load), .data(data), .q(q_ref));
  TopModule top_module1 (.clk(clk), .load(load), .data(data), .q(q_dut));

  assign tb_match = ({q_ref} === ({q_ref} ^ {q_dut} ^ {q_ref}));

  final begin
    if (stats1.errors_q) $display("Hint: Output '%s' has %0d mismatches. First mismatch occurred at time %0d.", "q", stats1.errors_q, stats1.errortime_q);
    else $display("Hint: Output '%s' has no mismatches.", "q");
    $display("Hint: Total mismatched samples is %1d out of %1d samples\\n", stats1.errors, stats1.clocks);
    $display("Simulation finished at %0d ps", $time);
    $display("Mismatches: %1d in %1d samples", stats1.errors, stats1.clocks);
  end

  initial stats1 = 0;

  always @(posedge clk, negedge clk) begin
    stats1.clocks++;
    if (!tb_match) begin
      if (stats1.errors == 0) stats1.errortime = $time;
      stats1.errors++;
    end
    if (q_ref !== (q_ref ^ q_dut ^ q_ref)) begin
      if (stats1.errors_q == 0) stats1.errortime_q = $time;
      stats1.errors_q = stats1.errors_q + 1'b1;
    end
  end

  initial begin
    #100000000
    $display("TIMEOUT");
    $finish();
  end
endmodule
"""
HEADER = "module TopModule(input clk, input load, input [255:0] data, output reg [255:0] q);\n"
# A step that never lets the cells live: right on every load, wrong on every step after it.
DIES_OUT = HEADER + "  always @(posedge clk) q <= load ? data : 256'h0;\nendmodule\n"


def conway_folder(root: Path, rounds: int) -> Path:
    """A VerilogEval v2 folder of the one problem; each round loads a random board and steps
    it 60 times (about 0.5 s of CPU for the reference's run per round here)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{STEM}_prompt.txt").write_text(PROMPT)
    (root / f"{STEM}_ref.sv").write_text(REFERENCE)
    (root / f"{STEM}_test.sv").write_text(TESTBENCH.replace("ROUNDS", str(rounds)))
    return root


def shown(grade: Grade) -> str:
    return "\n".join([grade.message, grade.feedback(), *(d.message for d in grade.diagnostics)])


def test_a_reference_that_needs_more_than_the_limits_raises_them_for_its_task(
    tmp_path: Path, executor: LocalExecutor
) -> None:
    """Under limits smaller than its run, as VerilogEval's 5 s are for Prob144: it was ``IE``
    with an empty reason ("did not compile and run cleanly:" and the runner's marker)."""
    small = Limits(cpu_s=0.3, wall_s=3.0, memory_bytes=512 << 20, processes=8, output_bytes=1 << 20)
    env = VerilogEnv(conway_folder(tmp_path / "eval", rounds=2), executor=executor, lint="never", limits=small)
    task = env.tasks.get(TASK)
    grade, problem = env.evaluate(task, task.reference or "")
    assert (grade.status, problem) == (Status.OK, {}), shown(grade)
    measured = env.reference_run(task)
    assert measured.cpu_s > small.cpu_s  # (the fixture needs what it means to)
    raised = env.limits_for(task)
    assert raised.cpu_s >= 2 * measured.cpu_s and raised.wall_s / raised.cpu_s == pytest.approx(10.0)
    wrong, _ = env.evaluate(task, DIES_OUT)
    assert wrong.status is Status.WA, shown(wrong)
    assert COMPILED not in shown(grade) + shown(wrong)


def test_the_raise_keeps_the_envs_limits_where_they_suffice() -> None:
    base = Limits(cpu_s=5.0, wall_s=10.0)
    assert needed_limits(base, 1.0) == base
    assert (needed_limits(base, 5.5).cpu_s, needed_limits(base, 5.5).wall_s) == (12.0, 24.0)


def test_a_reference_run_that_hits_a_limit_says_which(
    tmp_path: Path, executor: LocalExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference that never ends (its testbench has no time-out of its own), measured under
    1 s of CPU time instead of a minute."""
    folder = conway_folder(tmp_path / "eval", rounds=1)
    bench = folder / f"{STEM}_test.sv"
    bench.write_text(bench.read_text().replace("#1 $finish;", "forever @(negedge clk);"))
    small = Limits(cpu_s=0.5, wall_s=1.0, memory_bytes=512 << 20, processes=8, output_bytes=1 << 20)
    env = VerilogEnv(folder, executor=executor, lint="never", limits=small)
    monkeypatch.setattr("codegym.envs.verilog.env.REFERENCE_CPU_S", 1.0)
    monkeypatch.setattr("codegym.envs.verilog.env.REFERENCE_WALL_S", 5.0)
    task = env.tasks.get(TASK)
    grade, problem = env.evaluate(task, task.reference or "")
    assert grade.status is Status.IE
    reason = problem["task_error"]
    assert "simulation hit the cpu limit (1 s of CPU time)" in reason or "hit the wall limit (5 s" in reason, reason
    assert COMPILED not in reason + shown(grade)


def test_a_reference_that_does_not_compile_says_why(tmp_path: Path, executor: LocalExecutor) -> None:
    folder = conway_folder(tmp_path / "eval", rounds=1)
    env = VerilogEnv(folder, executor=executor, lint="never")
    task = env.tasks.get(TASK)
    broken = env.simulation_job(task, (task.reference or "").replace("q <= data;", "q <= data"), env.limits)
    reason = reference_failure(executor.run(broken).steps[0], env.limits)
    assert reason.startswith("its reference did not compile (iverilog exited with status") and "syntax error" in reason
    assert COMPILED not in reason
    (folder / f"{STEM}_ref.sv").write_text(REFERENCE.replace("q <= data;", "q <= data"))
    unread = VerilogEnv(folder, executor=executor, lint="never")  # (the loader finds it out: IE, with why)
    grade, problem = unread.evaluate(unread.tasks.get(TASK), task.reference or "")
    assert grade.status is Status.IE and "does not elaborate" in problem["task_error"], problem


DESIGNS = {
    "compile error": HEADER + "  always @(posedge clk) q <= load ? data : ;\nendmodule\n",
    "wrong": DIES_OUT,
    "hangs": HEADER + "  always @(posedge clk) q <= data;\n  always begin q[0] = ~q[0]; end\nendmodule\n",
}


@pytest.mark.parametrize("name", list(DESIGNS))
def test_the_runners_marker_never_reaches_a_message(tmp_path: Path, executor: LocalExecutor, name: str) -> None:
    env = VerilogEnv(conway_folder(tmp_path / "eval", rounds=1), executor=executor, lint="always")
    grade, _ = env.evaluate(env.tasks.get(TASK), DESIGNS[name])
    assert grade.status is not Status.OK
    assert COMPILED not in shown(grade) and "@@" not in shown(grade), shown(grade)


@pytest.mark.slow
def test_a_reference_as_slow_as_verilog_evals_conwaylife_is_gradable(tmp_path: Path, executor: LocalExecutor) -> None:
    """At the default limits (5 s of CPU), a run of about VerilogEval Prob144's length."""
    env = VerilogEnv(conway_folder(tmp_path / "eval", rounds=14), executor=executor, lint="never")
    task = env.tasks.get(TASK)
    grade, problem = env.evaluate(task, task.reference or "")
    assert (grade.status, problem) == (Status.OK, {}), shown(grade)
    assert env.reference_run(task).cpu_s > 4.0 and env.limits_for(task).cpu_s > 9.0
