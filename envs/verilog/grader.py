"""From the gate's report and the simulation's `RunResult` to a `Grade`: pure functions.

The verdict is read only from testbench lines tagged ``@@<nonce>@@`` (the nonce is this run's
``+codegym_nonce=`` plusarg, taken from the step's own argv as the executor recorded it), and
only when every phase reports exactly the number of samples a complete run produces. So a
design that ends the run early, prints a fake summary, or stops the testbench from printing
scores 0: ``HACK`` when the run exited cleanly without a complete report, the run's own
failure status (``TLE``, ``MLE``, ``OLE``, ``RE``, ``SEC``) otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from codegym.envs.verilog.gate import GateReport
from codegym.envs.verilog.runner import COMPILED, MISSING
from codegym.envs.verilog.testbench import NONCE_PLUSARG, PHASES, Bench

from codegym.error import SandboxError
from codegym.executor import RunResult, StepResult
from codegym.grade import LIMIT_STATUS, Diagnostic, Grade, Status, TestOutcome, pass_metrics

_IVERILOG = re.compile(
    r"^(?P<file>[^:\s]+):(?P<line>\d+):\s*(?:(?P<severity>error|warning|sorry):\s*)?(?P<message>.+)$"
)
_VERILATOR = re.compile(
    r"^%(?P<severity>Error|Warning)(?:-(?P<code>[A-Z0-9_]+))?:\s*"
    r"(?:(?P<file>[^:\s]+):(?P<line>\d+):(?:(?P<column>\d+):)?)?\s*(?P<message>.+)$"
)
_NONCE = re.compile(rf"\+{NONCE_PLUSARG}=([0-9a-f]+)")


@dataclass(frozen=True)
class Report:
    """What the testbench reported through its tagged lines."""

    samples: Mapping[str, int]  # per phase
    errors: Mapping[str, int]  # samples with any mismatch, per phase
    outcomes: tuple[TestOutcome, ...]
    complete: bool  # the end-of-run marker was printed
    timeout: bool = False  # the testbench's own time-out fired (external testbenches)


def parse_iverilog(text: str) -> tuple[Diagnostic, ...]:
    """Icarus Verilog's ``file:line: [error|warning:] message`` lines (no columns)."""
    out = []
    for line in text.splitlines():
        match = _IVERILOG.match(line.strip())
        if match is None:
            continue
        kind = match["severity"]
        severity = "warning" if kind == "warning" else "error" if kind or "error" in match["message"] else "note"
        code = "sorry" if kind == "sorry" else None
        out.append(Diagnostic(match["message"].strip(), match["file"], int(match["line"]), None, severity, code))  # type: ignore[arg-type]
    return tuple(out)


def parse_verilator(text: str) -> tuple[Diagnostic, ...]:
    """Verilator's ``%Warning-CODE: file:line:col: message`` lines."""
    out = []
    for line in text.splitlines():
        match = _VERILATOR.match(line.strip())
        if match is None or match["message"].startswith("Exiting due to"):
            continue
        severity = "error" if match["severity"] == "Error" else "warning"
        line_no = int(match["line"]) if match["line"] else None
        column = int(match["column"]) if match["column"] else None
        out.append(
            Diagnostic(
                match["message"].strip(),
                match["file"] or "solution.sv",
                line_no,
                column,
                severity,
                match["code"] or None,
            )
        )  # type: ignore[arg-type]
    return tuple(out)


def compile_report(stderr: bytes) -> tuple[str, str, float] | None:
    """The compiler's output, exit status and seconds, from the runner's first
    ``@@codegym-compiled@@`` line (None when the compile never finished)."""
    text = stderr.decode(errors="replace")
    match = re.search(rf"^{COMPILED} (\S+) ([0-9.]+)$", text, re.M)
    if match is None:
        return None
    return text[: match.start()], match.group(1), float(match.group(2))


def nonce_of(step: StepResult) -> str | None:
    """The nonce the simulation step was given (from its argv)."""
    match = _NONCE.search(" ".join(step.argv))
    return match.group(1) if match else None


def tagged_lines(stdout: bytes, nonce: str) -> list[str]:
    """The testbench's lines: what follows ``@@<nonce>@@`` (the design's output is ignored)."""
    tag = f"@@{nonce}@@"
    return [line.split(tag, 1)[1].strip() for line in stdout.decode(errors="replace").splitlines() if tag in line]


def imitations(stdout: bytes, nonce: str) -> list[str]:
    """Untagged lines that mimic the testbench's report (``Mismatches:`` or an ``@@`` tag):
    they can never count, and printing them is an attempt to forge the verdict."""
    tag = f"@@{nonce}@@"
    lines = stdout.decode(errors="replace").splitlines()
    return [line for line in lines if tag not in line and ("@@" in line or "Mismatches:" in line)]


def bundled_report(lines: Sequence[str], bench: Bench) -> Report:
    """Parse a generated testbench's lines."""
    samples: dict[str, int] = {}
    errors: dict[str, int] = {}
    outcomes = []
    for line in lines:
        fields = line.split()
        if fields[:1] == ["phase"] and len(fields) == 4 and fields[1].isdigit() and int(fields[1]) < len(PHASES):
            phase = PHASES[int(fields[1])]
            samples[phase], errors[phase] = int(fields[2]), int(fields[3])
        elif fields[:1] == ["output"] and len(fields) == 8:
            outcome = _output_outcome(fields, bench)
            if outcome is not None:
                outcomes.append(outcome)
    return Report(samples, errors, tuple(outcomes), complete="done" in lines)


def _output_outcome(fields: Sequence[str], bench: Bench) -> TestOutcome | None:
    name, phase_index, count, when, vector = fields[1], int(fields[2]), int(fields[3]), int(fields[4]), int(fields[5])
    phase = PHASES[phase_index]
    if bench.expected.get(phase, 0) == 0:
        return None
    if count == 0:
        return TestOutcome(f"{name}/{phase}", True, tier=phase, status="OK")
    inputs = bench.inputs_of(vector) if 0 <= vector < len(bench.vectors) else {}
    shown = " ".join(f"{k}={_hex(v)}" for k, v in inputs.items())
    return TestOutcome(
        f"{name}/{phase}", False, tier=phase, status="WA",
        call=f"t={when}ns vector {vector}: {shown}".rstrip(),
        expected=_value(fields[6]), got=_value(fields[7]),
        trace=f"{count} mismatching sample(s) of output {name} in the {phase} phase",
    )  # fmt: skip


def _hex(value: int) -> str:
    return str(value) if value < 10 else f"{value} (0x{value:x})"


def _value(bits: str) -> str:
    """A sampled value: decimal and hex when fully known, else the raw bits (x/z shown)."""
    if re.fullmatch(r"[01]+", bits):
        return _hex(int(bits, 2))
    return f"'b{bits}"


_HINT = re.compile(
    r"Hint: Output '(?P<name>[^']+)' has "
    r"(?:(?P<count>\d+) mismatches\. First mismatch occurred at time (?P<time>\d+)|no mismatches)"
)
_TOTAL = re.compile(r"Mismatches: (\d+) in (\d+) samples")


def external_report(lines: Sequence[str]) -> Report:
    """Parse a VerilogEval testbench's tagged lines (its ``Hint:`` and ``Mismatches:`` lines)."""
    outcomes, total = [], None
    for line in lines:
        hint = _HINT.search(line)
        if hint:
            count = int(hint["count"] or 0)
            trace = f"{count} mismatch(es), first at t={hint['time']}" if count else None
            outcomes.append(
                TestOutcome(f"{hint['name']}", count == 0, tier="all", status="OK" if count == 0 else "WA", trace=trace)
            )
        found = _TOTAL.search(line)
        if found:
            total = (int(found.group(1)), int(found.group(2)))
    timeout = any("TIMEOUT" in line for line in lines)
    if total is None:
        return Report({}, {}, tuple(outcomes), complete=False, timeout=timeout)
    if not outcomes:  # a testbench without per-output hints: its total is the one test
        trace = f"{total[0]} mismatched sample(s) of {total[1]}" if total[0] else None
        outcomes.append(
            TestOutcome("all", total[0] == 0, tier="all", status="OK" if not total[0] else "WA", trace=trace)
        )
    return Report({"all": total[1]}, {"all": total[0]}, tuple(outcomes), complete=True, timeout=timeout)


def grade(
    gate: GateReport,
    result: RunResult | None,
    *,
    expected: Mapping[str, int] | None,
    bench: Bench | None = None,
) -> Grade:
    """Judge one design.

    Args:
        gate: The static gate's report (a rejection is the verdict; nothing ran).
        result: The job's one step (`runner`: compile, then simulate).
        expected: Samples per phase of a complete run (None: unknown, which only an
            infrastructure fault can cause, and is refused).
        bench: The generated testbench (None for an external one).
    """
    if not gate.passed or result is None:
        assert gate.status is not None
        return _failed(gate.status, gate.message, gate.diagnostics)
    simulate = result.steps[-1]
    compiler_output, compile_failure, compile_s = _compile_outcome(simulate)
    diagnostics = (*gate.diagnostics, *parse_iverilog(compiler_output))
    resources = _resources(simulate, compile_s)
    if compile_failure is not None:
        return _failed(Status.CE, compile_failure, diagnostics, resources)
    nonce = nonce_of(simulate)
    lines = tagged_lines(simulate.stdout, nonce) if nonce else []
    report = bundled_report(lines, bench) if bench is not None else external_report(lines)
    status, message = _run_status(simulate, report, expected)
    if status is None and imitations(simulate.stdout, nonce or ""):
        status, message = Status.HACK, "the design printed a line imitating the testbench's report"
    if status is not None:
        return _failed(status, message, diagnostics, resources, report.outcomes)
    return _judged(report, diagnostics, resources)


def _compile_outcome(step: StepResult) -> tuple[str, str | None, float]:
    """The compiler's output, why the compile failed (None: it succeeded), and its seconds."""
    compiled = compile_report(step.stderr)
    if compiled is None:  # the step's limits stopped the compile before it reported
        return step.stderr.decode(errors="replace"), "the compiler exceeded its limits", step.wall_s
    output, exit_status, seconds = compiled
    if exit_status == MISSING:
        raise SandboxError(f"the Verilog toolchain is missing in the sandbox: {output.strip()}")
    if exit_status == "timeout":
        return output, "the compiler exceeded its limits", seconds
    return output, None if exit_status == "0" else "iverilog rejected the design", seconds


def _run_status(step: StepResult, report: Report, expected: Mapping[str, int] | None) -> tuple[Status | None, str]:
    if step.denied_syscall:
        return Status.SEC, "the simulation made a forbidden system call"
    if step.limit is not None:
        return LIMIT_STATUS[step.limit][0], f"the simulation exceeded its {step.limit} limit"
    if report.timeout:
        return Status.TLE, "the testbench's own time-out fired"
    if not report.complete:
        if step.exit_code != 0 or step.signal is not None:
            return Status.RE, f"the simulator failed (exit {step.exit_code}, signal {step.signal})"
        return Status.HACK, "the simulation ended before the testbench reported its results"
    if expected is None:
        raise ValueError("the expected sample counts are unknown")
    for phase, count in expected.items():
        if report.samples.get(phase) != count:
            return Status.HACK, f"the {phase} phase reported {report.samples.get(phase)} samples, expected {count}"
    return None, ""


def _judged(report: Report, diagnostics: Sequence[Diagnostic], resources: Mapping[str, float]) -> Grade:
    samples, errors = sum(report.samples.values()), sum(report.errors.values())
    outcomes = report.outcomes
    metrics = {**pass_metrics(outcomes), "samples": float(samples), "mismatches": float(errors),
               "mismatch_ratio": errors / samples if samples else 1.0}  # fmt: skip
    if errors == 0:
        return Grade(
            Status.OK,
            outcomes,
            tuple(diagnostics),
            metrics,
            message=f"all {samples} samples match",
            resources=resources,
        )
    first = next((t for t in outcomes if not t.passed), None)
    where = f" (first failing: {first.name})" if first else ""
    message = f"{errors} of {samples} samples mismatch{where}"
    return Grade(Status.WA, outcomes, tuple(diagnostics), metrics, message=message, resources=resources)


def _failed(
    status: Status,
    message: str,
    diagnostics: Sequence[Diagnostic],
    resources: Mapping[str, float] | None = None,
    outcomes: Sequence[TestOutcome] = (),
) -> Grade:
    metrics = {**pass_metrics(outcomes), "mismatch_ratio": 1.0}
    return Grade(status, tuple(outcomes), tuple(diagnostics), metrics, message=message, resources=resources or {})


def _resources(step: StepResult, compile_s: float) -> dict[str, float]:
    return {
        "compile_s": compile_s,
        "simulate_s": max(step.wall_s - compile_s, 0.0),
        "wall_s": step.wall_s,
        "cpu_s": step.cpu_s,
        "peak_memory_bytes": float(step.peak_memory_bytes),
    }
