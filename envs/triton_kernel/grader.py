"""From run results to a `Grade` for Triton kernels: pure functions.

The verdict comes from the harness's report (it compared the outputs outside the
submission's process), the sandbox's own measurements and the static checks of the source;
never from the submission's exit code or output.
"""

from __future__ import annotations

import json
import signal
from typing import Any

from codegym.envs.triton_kernel.integrity import Finding
from codegym.envs.triton_kernel.wire import TIMING_KEYS

from codegym.error import SandboxError
from codegym.executor import RunResult
from codegym.grade import LIMIT_STATUS, Diagnostic, Grade, Status, TestOutcome, pass_metrics
from codegym.task import Task


def static_grade(task: Task, findings: list[Finding]) -> Grade:
    """The grade of a submission the static checks refused (it never ran)."""
    diagnostics = tuple(Diagnostic(f.message, line=f.line, code=f.check) for f in findings[:10])
    tests = _not_run(task, "not run: the submission failed the integrity checks")
    first = findings[0]
    return Grade(
        Status.HACK, tests, diagnostics, {**pass_metrics(tests), "kernels_launched": 0.0},
        message=f"integrity check '{first.check}' failed: {first.message}",
    )  # fmt: skip


def grade(task: Task, result: RunResult) -> Grade:
    """Judge a submission from its job's result (one step, talking to the harness)."""
    if result.harness_error is not None or result.harness_output is None:
        raise SandboxError(f"the Triton harness failed for task {task.id}: {result.harness_error}")
    step = result.steps[0]
    report = json.loads(result.harness_output)
    resources = {"cpu_s": step.cpu_s, "wall_s": step.wall_s, "peak_memory_bytes": float(step.peak_memory_bytes)}
    tests = _outcomes(task, report)
    status, message = _status(task, step, report, tests)
    metrics = {**pass_metrics(tests), **_error_metrics(report)}
    timing = report.get("timing")
    if status is Status.OK and timing and "speedup" in timing:
        metrics.update({k: float(timing[k]) for k in TIMING_KEYS if k in timing})
    return Grade(status, tests, _diagnostics(report), metrics, message=message, resources=resources)


def _status(task: Task, step: Any, report: dict[str, Any], tests: tuple[TestOutcome, ...]) -> tuple[Status, str]:
    if step.denied_syscall:
        return Status.SEC, "killed by the sandbox for a forbidden system call"
    if step.limit is not None:
        return LIMIT_STATUS[step.limit]
    if "hack" in report:
        hack = report["hack"]
        return Status.HACK, f"integrity check '{hack.get('check')}' failed: {hack.get('message')}"
    gone = report.get("gone")
    if gone and gone.get("violation"):
        return Status.HACK, f"the submission tampered with the harness channel: {gone.get('reason')}"
    if "error" in report:
        return _error_status(report["error"])
    if gone:
        how = f"killed by {signal.Signals(step.signal).name}" if step.signal else f"exit status {step.exit_code}"
        return Status.RE, f"the submission's process died ({how}): {gone.get('reason')}"
    if [t["index"] for t in report["trials"]] != list(range(len(task.tests))):
        return Status.HACK, "the harness did not receive every trial"
    kernels = _kernel_summary(report)
    if all(t.passed for t in tests):
        return Status.OK, f"all {len(tests)} trials match the reference; {kernels}"
    return Status.WA, f"{sum(not t.passed for t in tests)} of {len(tests)} trials differ from the reference; {kernels}"


def _error_status(error: dict[str, Any]) -> tuple[Status, str]:
    text = f"{error.get('type')}: {error.get('message')}"
    if error.get("phase") == "compile":
        return Status.CE, text.splitlines()[0] if error.get("type") == "SyntaxError" else "Triton compilation failed"
    where = {"load": "importing the submission", "init": "constructing ModelNew", "trial": "the forward"}
    return Status.RE, f"{error.get('type')} in {where.get(error.get('phase', ''), 'the submission')}"


def _kernel_summary(report: dict[str, Any]) -> str:
    trials = report["trials"]
    if not trials:
        return "no trial ran"
    names = sorted({name for t in trials for name in t["kernels"]})
    per_call = max(t["launches"] for t in trials)
    return f"{per_call} Triton kernel launch{'es' if per_call != 1 else ''} per call ({', '.join(names)})"


def _outcomes(task: Task, report: dict[str, Any]) -> tuple[TestOutcome, ...]:
    by_index = {t["index"]: t for t in report.get("trials", [])}
    failure = _failure_text(report)
    outcomes = []
    for index, test in enumerate(task.tests):
        trial = by_index.get(index)
        if trial is None:
            outcomes.append(TestOutcome(test.name, False, test.hidden, test.tier, trace=failure or "not run"))
            continue
        passed = all(o["ok"] for o in trial["outputs"])
        bad = next((o for o in trial["outputs"] if not o["ok"]), None)
        outcomes.append(
            TestOutcome(
                name=test.name,
                passed=passed,
                hidden=test.hidden,
                tier=test.tier,
                call=f"ModelNew(...)(*get_inputs()) with seed {test.code}",
                expected=_worst(bad, "expected"),
                got=_worst(bad, "got"),
                trace=None if passed else _output_lines(trial["outputs"]),
            )
        )
    return tuple(outcomes)


def _worst(output: dict[str, Any] | None, key: str) -> str | None:
    if output is None or "worst" not in output:
        return None
    worst = output["worst"]
    return f"{worst[key]} at index {tuple(worst['index'])}"


def _output_lines(outputs: list[dict[str, Any]]) -> str:
    lines = []
    for k, o in enumerate(outputs):
        if "problem" in o:
            lines.append(o["problem"])
        else:
            verdict = "ok" if o["ok"] else f"{o['mismatched']} of {o['elements']} values off"
            lines.append(
                f"output {k}: {verdict}; max abs error {o['max_abs']:.3g}, max rel error {o['max_rel']:.3g} "
                f"(atol = rtol = {o['atol']:g})"
            )
    return "\n".join(lines)


def _failure_text(report: dict[str, Any]) -> str | None:
    for key in ("hack", "error"):
        if key in report:
            return f"not run: {report[key].get('message', key)}"
    if "gone" in report:
        return f"not run: {report['gone'].get('reason')}"
    return None


def _error_metrics(report: dict[str, Any]) -> dict[str, float]:
    outputs = [o for t in report.get("trials", []) for o in t["outputs"] if "max_abs" in o]
    metrics = {"kernels_launched": float(max((t["launches"] for t in report.get("trials", [])), default=0))}
    if outputs:
        metrics["max_abs_error"] = max(o["max_abs"] for o in outputs)
        metrics["max_rel_error"] = max(o["max_rel"] for o in outputs)
    return metrics


def _diagnostics(report: dict[str, Any]) -> tuple[Diagnostic, ...]:
    diagnostics = []
    error = report.get("error")
    if error:
        diagnostics.append(
            Diagnostic(f"{error.get('type')}: {error.get('message')}", line=error.get("line"),
                       column=error.get("column"), code=error.get("type"))
        )  # fmt: skip
    hack = report.get("hack")
    if hack:
        diagnostics.append(Diagnostic(str(hack.get("message")), code=str(hack.get("check"))))
    notes = {t["aot"] for t in report.get("trials", []) if t.get("aot")}
    diagnostics += [Diagnostic(f"ahead-of-time compile check unavailable: {n}", severity="note") for n in sorted(notes)]
    return tuple(diagnostics)


def _not_run(task: Task, reason: str) -> tuple[TestOutcome, ...]:
    return tuple(TestOutcome(t.name, False, t.hidden, t.tier, trace=reason) for t in task.tests)
