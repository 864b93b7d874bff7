"""Line-traced runs of a submission and its reference on one call (stdlib only).

Runs inside the sandbox as ``python -m codegym.envs.python_function.tracer``; reads
``candidate.py``, ``reference.py`` and ``call.json`` from the work dir and prints one JSON
line: the earliest point where the submission's execution departs from the reference's.

Divergence: while both runs step through the same lines (relative to the function's
``def``), their shared local variables are compared event by event; the first difference,
or the first branch that goes elsewhere, names the line that just ran. When the two are
laid out differently, each shared variable's history of values is followed instead: the
first value the reference never had at that point of its history names the line. Failing
both, the submission's ``return`` line, if the results differ. The result is advice for
credit assignment, never a verdict.
"""

from __future__ import annotations

import ast
import copy
import json
import sys
from typing import Any

from codegym.envs.python_function import codec

MAX_EVENTS = 20_000
MAX_REPR = 200
MAX_EDITS = 3


class _Budget(Exception):
    pass


def _show(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text[:MAX_REPR]


def trace(
    path: str, entry: str, args: list[Any], kwargs: dict[str, Any]
) -> tuple[list[tuple[int, str, dict[str, str]]], str, int]:
    """Line events ``(line relative to the def, event, locals)`` of ``entry``'s frames, the
    result's repr, and the line of the ``def``."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        namespace: dict[str, Any] = {"__name__": "traced"}
        exec(compile(handle.read(), path, "exec"), namespace)
    function = namespace[entry]
    events: list[tuple[int, str, dict[str, str]]] = []

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != path or frame.f_code.co_name != entry:
            return None
        if event in ("line", "return"):
            line = frame.f_lineno - frame.f_code.co_firstlineno
            events.append((line, event, {k: _show(v) for k, v in frame.f_locals.items()}))
            if len(events) > MAX_EVENTS:
                raise _Budget
        return tracer

    sys.settrace(tracer)
    try:
        result = _show(function(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
    except _Budget:
        result = "<trace budget exhausted>"
    except Exception as e:
        result = f"<raised {type(e).__name__}: {str(e)[:MAX_REPR]}>"
    finally:
        sys.settrace(None)
    return events, result, function.__code__.co_firstlineno


def _histories(events: list[tuple[int, str, dict[str, str]]]) -> dict[str, list[str]]:
    histories: dict[str, list[str]] = {}
    for _, _, snapshot in events:
        for name, value in snapshot.items():
            seen = histories.setdefault(name, [])
            if not seen or seen[-1] != value:
                seen.append(value)
    return histories


def divergence(
    candidate: list[tuple[int, str, dict[str, str]]], reference: list[tuple[int, str, dict[str, str]]],
    candidate_result: str, reference_result: str, *, same_layout: bool,
) -> dict[str, Any] | None:  # fmt: skip
    """The earliest departure of ``candidate`` from ``reference`` (see the module doc); lines
    are relative to the entry function's ``def``. ``same_layout``: the two functions have
    the same lines but for a few edits, so their runs can be compared event by event."""
    if same_layout:
        found = _lockstep(candidate, reference, candidate_result, reference_result)
        if found is not None:
            return found
    return _by_history(candidate, reference, candidate_result, reference_result)


def function_lines(path: str, entry: str) -> list[str]:
    """The source lines of ``entry``'s definition in ``path``."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            return source.splitlines()[node.lineno - 1 : node.end_lineno]
    return []


def similar_layout(candidate: list[str], reference: list[str], max_edits: int = MAX_EDITS) -> bool:
    """Same number of lines, at most ``max_edits`` of them changed."""
    if len(candidate) != len(reference) or not candidate:
        return False
    return sum(a.strip() != b.strip() for a, b in zip(candidate, reference, strict=True)) <= max_edits


def _lockstep(
    candidate: list[tuple[int, str, dict[str, str]]], reference: list[tuple[int, str, dict[str, str]]],
    candidate_result: str, reference_result: str,
) -> dict[str, Any] | None:  # fmt: skip
    pairs = zip(candidate, reference, strict=False)
    for index, ((line, event, snapshot), (ref_line, ref_event, ref_snapshot)) in enumerate(pairs):
        previous = candidate[index - 1][0] if index else line
        if (line, event) != (ref_line, ref_event):
            if index >= 2:  # same shape so far: the branch after ``previous`` went elsewhere
                return {"line": previous, "variable": None, "got": None, "expected": None}
            return None
        for name in snapshot.keys() & ref_snapshot.keys():
            if snapshot[name] != ref_snapshot[name]:
                return {"line": previous, "variable": name, "got": snapshot[name], "expected": ref_snapshot[name]}
        if event == "return" and candidate_result != reference_result:
            return {"line": line, "variable": None, "got": candidate_result, "expected": reference_result}
    return None


def _by_history(
    candidate: list[tuple[int, str, dict[str, str]]], reference: list[tuple[int, str, dict[str, str]]],
    candidate_result: str, reference_result: str,
) -> dict[str, Any] | None:  # fmt: skip
    expected = _histories(reference)
    seen: dict[str, list[str]] = {}
    previous_line = candidate[0][0] if candidate else None
    for line, event, snapshot in candidate:
        for name, value in snapshot.items():
            if name not in expected:
                continue
            history = seen.setdefault(name, [])
            if history and history[-1] == value:
                continue
            history.append(value)
            position = len(history) - 1
            if position >= len(expected[name]) or expected[name][position] != value:
                wanted = expected[name][position] if position < len(expected[name]) else None
                return {"line": previous_line, "variable": name, "got": value, "expected": wanted}
        if event == "return" and candidate_result != reference_result:
            return {"line": line, "variable": None, "got": candidate_result, "expected": reference_result}
        previous_line = line
    if candidate_result != reference_result:
        return {"line": previous_line, "variable": None, "got": candidate_result, "expected": reference_result}
    return None


def main() -> None:
    with open("call.json") as handle:
        spec = json.load(handle)
    args, kwargs = codec.decode(spec["args"].encode())
    candidate, candidate_result, first_line = trace("candidate.py", spec["entry"], args, kwargs)
    reference, reference_result, _ = trace("reference.py", spec["entry"], args, kwargs)
    layout = similar_layout(
        function_lines("candidate.py", spec["entry"]), function_lines("reference.py", spec["entry"])
    )
    found = divergence(candidate, reference, candidate_result, reference_result, same_layout=layout)
    if found is not None:
        found["line"] += first_line  # back to the file's own numbering
    print(json.dumps({"divergence": found, "events": len(candidate)}))
