"""The pure grader: tool output parsers and the rules that turn a run into a status."""

from __future__ import annotations

import pytest
from codegym.envs.verilog import grader
from codegym.envs.verilog.gate import GateReport, Port
from codegym.envs.verilog.runner import COMPILED
from codegym.envs.verilog.testbench import Stimulus, build

from codegym.error import SandboxError
from codegym.executor import RunResult, StepResult
from codegym.grade import Diagnostic, Status

NONCE = "00ff"
PORTS = (Port("a", "input", 2), Port("y", "output", 2))
BENCH = build(
    "module RefModule(input [1:0] a, output [1:0] y); assign y = a; endmodule\n",
    PORTS,
    Stimulus(directed=[{"a": 3}], random=3),
)
COMPILED_OK = f"{COMPILED} 0 0.010000\n".encode()


def run(stdout: str, *, stderr: bytes = COMPILED_OK, exit_code: int | None = 0, limit: str | None = None) -> RunResult:
    step = StepResult(
        argv=("python", "-m", "runner", "10.0", f"+codegym_nonce={NONCE}"),
        exit_code=exit_code,
        stdout=stdout.encode(),
        stderr=stderr,
        wall_s=0.05,
        limit=limit,  # type: ignore[arg-type]
    )
    return RunResult(steps=(step,))


def report(errors: int = 0, samples: tuple[int, int, int] = (0, 1, 3)) -> str:
    lines = [f"@@{NONCE}@@ phase {p} {n} {errors if p == 2 else 0}" for p, n in enumerate(samples)]
    lines += [f"@@{NONCE}@@ output y {p} {errors if p == 2 else 0} 25 2 01 00" for p in range(3)]
    return "\n".join([*lines, f"@@{NONCE}@@ done", ""])


def judge(result: RunResult):
    return grader.grade(GateReport(None), result, expected=BENCH.expected, bench=BENCH)


def test_the_bench_counts_samples_per_phase() -> None:
    assert BENCH.expected == {"reset": 0, "directed": 1, "random": 3}
    assert BENCH.inputs_of(0) == {"a": 3}


def test_a_complete_clean_report_is_ok() -> None:
    grade = judge(run(report()))
    assert grade.status is Status.OK and grade.metrics["mismatch_ratio"] == 0.0
    assert grade.resources["compile_s"] == 0.01


def test_mismatches_are_wa_with_the_first_one_decoded() -> None:
    grade = judge(run(report(errors=2)))
    assert grade.status is Status.WA and grade.metrics["mismatch_ratio"] == 0.5
    (failed,) = [t for t in grade.tests if not t.passed]
    assert failed.name == "y/random" and failed.expected == "1" and failed.got == "0"
    assert failed.call is not None and failed.call.startswith("t=25ns vector 2: a=")


def test_a_short_count_or_a_missing_end_is_hack() -> None:
    assert judge(run(report(samples=(0, 1, 2)))).status is Status.HACK
    assert judge(run(report().replace(f"@@{NONCE}@@ done\n", ""))).status is Status.HACK
    assert judge(run(report().replace(NONCE, "beef"))).status is Status.HACK  # another run's nonce


def test_untagged_report_lines_are_ignored_then_flagged() -> None:
    assert judge(run("Mismatches: 0 in 4 samples\n" + report())).status is Status.HACK
    assert judge(run("hello\n" + report())).status is Status.OK


def test_limits_and_crashes_take_precedence() -> None:
    assert judge(run("", exit_code=None, limit="cpu")).status is Status.TLE
    assert judge(run("", exit_code=None, limit="memory")).status is Status.MLE
    assert judge(run("x" * 10, exit_code=None, limit="output")).status is Status.OLE
    assert judge(run("", exit_code=1)).status is Status.RE


def test_a_compile_failure_is_ce_with_iverilog_diagnostics() -> None:
    stderr = (
        b"solution.sv:3: syntax error\nsolution.sv:3: error: Invalid module item.\n" + f"{COMPILED} 2 0.01\n".encode()
    )
    grade = judge(run("", stderr=stderr, exit_code=97))
    assert grade.status is Status.CE and grade.message == "iverilog rejected the design"
    assert grade.diagnostics[1] == Diagnostic("Invalid module item.", "solution.sv", 3, None, "error")
    unfinished = judge(run("", stderr=b"", exit_code=None, limit="wall"))
    assert unfinished.status is Status.CE and unfinished.message == "the compiler exceeded its limits"


def test_a_design_cannot_fake_the_compile_line_after_the_runner() -> None:
    stderr = COMPILED_OK + f"{COMPILED} 1 0.0\n".encode()  # a second, later line is never read
    assert judge(run(report(), stderr=stderr)).status is Status.OK


def test_verilator_lines_parse() -> None:
    text = (
        "%Warning-WIDTHEXPAND: solution.sv:3:14: Operator ADD expects 9 bits\n"
        "                                   : ... note\n"
        "%Error: solution.sv:7:1: syntax error, unexpected endmodule\n"
        "%Error: Exiting due to 1 error(s)\n"
    )
    assert grader.parse_verilator(text) == (
        Diagnostic("Operator ADD expects 9 bits", "solution.sv", 3, 14, "warning", "WIDTHEXPAND"),
        Diagnostic("syntax error, unexpected endmodule", "solution.sv", 7, 1, "error", None),
    )


def test_external_reports_parse() -> None:
    lines = [
        "Hint: Output 'out' has 3 mismatches. First mismatch occurred at time 40.",
        "Hint: Output 'z' has no mismatches.",
        "Mismatches: 3 in 20 samples",
    ]
    parsed = grader.external_report(lines)
    assert parsed.complete and parsed.samples == {"all": 20} and parsed.errors == {"all": 3}
    assert [(t.name, t.passed) for t in parsed.outcomes] == [("out", False), ("z", True)]
    assert not grader.external_report(lines[:2]).complete
    # A testbench without per-output hints: its total is one test (a pass rate, for shaping).
    assert [(t.name, t.passed) for t in grader.external_report(["Mismatches: 0 in 20 samples"]).outcomes] == [
        ("all", True)
    ]
    assert [(t.name, t.passed) for t in grader.external_report(lines[2:]).outcomes] == [("all", False)]


def test_a_missing_toolchain_is_an_infrastructure_error() -> None:
    stderr = b"[Errno 2] No such file or directory: 'iverilog'\n" + f"{COMPILED} missing 0.0\n".encode()
    with pytest.raises(SandboxError, match="toolchain is missing"):
        judge(run("", stderr=stderr, exit_code=97))
