"""CrossHair in the sandbox: search for counterexamples to a task's contracts (stdlib and
CrossHair only).

Runs as ``python -m codegym.envs.pycontracts.runner`` in a worker of the family's executor,
which imported CrossHair (and Z3) once, at its start. The step's standard input is the spec
the env wrote (`codegym.envs.pycontracts.assembly.runner_spec`): the assembled module (the
answer's function behind a wrapper whose docstring holds the task's hidden contracts, the
guarded pair for the behavioural diff, and the canary), the reference's source, the budgets
and the episode's nonce. Neither the contracts nor the reference is ever a file of the work
dir; they live in this process only, beside the answer's code, which the gate keeps from
reaching them.

It prints one line: the nonce and a JSON report of what CrossHair said, condition by
condition, then of the diff, then of the canary (`codegym.envs.pycontracts.report` reads it).
Nothing here is trusted: the answer shares this process, so every counterexample in the
report is replayed concretely by the harness before it counts, and a run whose canary was
not refuted is not believed at all.
"""

from __future__ import annotations

import collections
import dataclasses
import importlib.util
import json
import linecache
import os
import sys
import time
import traceback
import types
from typing import Any

from crosshair.auditwall import engage_auditwall
from crosshair.condition_parser import condition_parser
from crosshair.core import ConditionCheckable, analyze_calltree
from crosshair.core_and_libs import analyze_function
from crosshair.diff_behavior import ExceptionEquivalenceType, diff_behavior_with_signature
from crosshair.fnutil import resolve_signature
from crosshair.options import DEFAULT_OPTIONS, AnalysisKind, AnalysisOptions, AnalysisOptionSet
from crosshair.statespace import AnalysisMessage, MessageType, VerificationStatus

MARK = "codegym-crosshair-report"
SOLUTION = "solution.py"
MODULE = "contracts"  # the assembled module's name (and file name, for CrossHair's messages)
REFERENCE = "codegym_reference"
MAX_MESSAGE = 2000
REFUTED = ("post_fail", "exec_err", "post_err")


def main() -> None:
    spec = json.loads(sys.stdin.buffer.read())
    report = run(spec)
    sys.stdout.write(f"{MARK} {spec['nonce']} {json.dumps(report)}\n")
    sys.stdout.flush()


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """What CrossHair says of the spec's module: per condition, the diff, the canary."""
    engage_auditwall()  # (no file writes, processes or sockets from here on: CrossHair's own guard)
    try:
        _load(REFERENCE, "reference.py", spec["reference"])
        _load_solution()
        module = _load(MODULE, f"{MODULE}.py", spec["module"])
    except Exception as e:
        return {"error": f"{type(e).__name__}: {str(e)[:MAX_MESSAGE]}", "trace": _trace(e)}
    conditions = _check(getattr(module, spec["entry_point"]), spec["check"])
    cut = any(c["cut"] for c in conditions)
    diff = None
    if spec.get("diff") and not cut:
        diff = _diff(module.codegym_diff_reference, module.codegym_diff_candidate, spec["diff"])
    canary = _check(module.codegym_canary, spec["canary"])
    return {"conditions": conditions, "diff": diff, "canary": canary[0] if canary else None}


def _load(name: str, filename: str, source: str) -> types.ModuleType:
    """``source`` as module ``name`` (its lines in linecache: CrossHair reads conditions' lines)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    exec(compile(source, filename, "exec", dont_inherit=True), module.__dict__)
    return module


def _load_solution() -> None:
    spec = importlib.util.spec_from_file_location("solution", os.path.join(os.getcwd(), SOLUTION))
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {SOLUTION}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    spec.loader.exec_module(module)


def _options(budget: dict[str, Any]) -> AnalysisOptionSet:
    return AnalysisOptionSet(
        analysis_kind=[AnalysisKind.PEP316],
        max_iterations=int(budget["max_iterations"]),
        per_condition_timeout=float(budget["per_condition_timeout"]),
        per_path_timeout=float(budget["per_path_timeout"]),
    )


def _check(function: Any, budget: dict[str, Any]) -> list[dict[str, Any]]:
    """Each postcondition of ``function`` searched in turn (one after a cut is not searched)."""
    found: list[dict[str, Any]] = []
    for index, checkable in enumerate(analyze_function(function, _options(budget))):
        if found and found[-1]["cut"]:
            break
        if not isinstance(checkable, ConditionCheckable):  # (a condition that does not parse)
            found += [_entry(index, m, 0, 0, False, False, 0.0) for m in checkable.analyze()]
            continue
        stats: collections.Counter[str] = collections.Counter()
        started = time.process_time()
        messages, checked = _search(checkable, stats)
        seconds = time.process_time() - started
        paths, exhausted = stats["num_paths"], stats["exhaustion"] > 0
        for message in messages:
            refuted = message.state.value in REFUTED
            cut = not (refuted or exhausted or paths >= int(budget["max_iterations"]))
            found.append(_entry(index, message, paths, checked, exhausted, cut, seconds))
    return found


def _search(checkable: ConditionCheckable, stats: collections.Counter[str]) -> tuple[list[AnalysisMessage], int]:
    """What ``checkable.analyze()`` says, and how many paths ran to the postcondition and met
    it (CrossHair keeps that count to itself): 0 when every path was cut short or used what
    CrossHair cannot run symbolically."""
    options = dataclasses.replace(checkable.options, stats=stats)
    options.deadline = time.process_time() + options.per_condition_timeout
    with condition_parser(options.analysis_kind):
        analysis = analyze_calltree(options, checkable.conditions)
    messages = list(analysis.messages)
    if not messages:
        (condition,) = checkable.conditions.post
        state = MessageType.CONFIRMED if analysis.verification_status is VerificationStatus.CONFIRMED else (
            MessageType.CANNOT_CONFIRM)  # fmt: skip
        messages = [AnalysisMessage(state, state.value, condition.filename, condition.line, 0, "")]
    return messages, analysis.num_confirmed_paths


def _entry(index: int, message: AnalysisMessage, paths: int, checked: int, exhausted: bool, cut: bool,
           seconds: float) -> dict[str, Any]:  # fmt: skip
    return {"search": index, "line": message.line, "state": message.state.value,
            "message": message.message[:MAX_MESSAGE], "paths": paths, "checked": checked, "exhausted": exhausted,
            "cut": cut, "cpu_s": round(seconds, 3)}  # fmt: skip


def _diff(reference: Any, candidate: Any, budget: dict[str, Any]) -> dict[str, Any]:
    """The behavioural diff of the guarded pair, each way round (as ``crosshair diffbehavior``
    does) with half the paths and half the CPU time each: every input on which they differ."""
    options = DEFAULT_OPTIONS.overlay(_options(budget))
    first_paths = max(1, options.max_iterations // 2)
    seconds = options.per_condition_timeout / 2
    halves = (
        dataclasses.replace(options, max_iterations=first_paths, per_condition_timeout=seconds),
        dataclasses.replace(options, max_iterations=max(1, options.max_iterations - first_paths),
                            per_condition_timeout=seconds),
    )  # fmt: skip
    differences: list[dict[str, Any]] = []
    paths, cut, seconds = 0, False, 0.0
    for (first, second), half in zip(((reference, candidate), (candidate, reference)), halves, strict=True):
        found, stats, spent = _diff_one_way(first, second, half)
        paths, seconds = paths + stats["num_paths"], seconds + spent
        cut = cut or not (stats["exhaustion"] or stats["num_paths"] >= half.max_iterations)
        swap = first is candidate
        for diff in found:
            ours, theirs = (diff.result2, diff.result1) if not swap else (diff.result1, diff.result2)
            differences.append({"args": dict(diff.args), "reference": _result(theirs), "candidate": _result(ours)})
    return {"differences": differences, "paths": paths, "cut": cut, "cpu_s": round(seconds, 3)}


def _diff_one_way(
    first: Any, second: Any, budget: AnalysisOptions
) -> tuple[list[Any], collections.Counter[str], float]:
    stats: collections.Counter[str] = collections.Counter()
    options = dataclasses.replace(budget, stats=stats)
    signature = resolve_signature(first)
    if isinstance(signature, str):
        raise TypeError(f"no signature to search with: {signature}")
    started = time.process_time()
    found = diff_behavior_with_signature(first, second, signature, options, ExceptionEquivalenceType.ALL)
    return list(found), stats, time.process_time() - started


def _result(result: Any) -> dict[str, Any]:
    return {
        "returns": str(result.return_repr)[:MAX_MESSAGE],
        "raises": result.error and str(result.error)[:MAX_MESSAGE],
    }


def _trace(error: BaseException) -> list[list[Any]]:
    """The answer's own frames of ``error`` (line, function, text)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.endswith(SOLUTION)]
    return [[f.lineno or 0, f.name, (f.line or "")[:200]] for f in frames[-5:]]
