"""Reading what the CrossHair runner printed (pure, and wary: it comes from the answer's process).

The runner (`codegym.envs.pycontracts.runner`) prints one line, tagged with the episode's
report nonce, holding a JSON report. `read` turns it into a `CrossHairReport`: each search
(a postcondition, the diff) with its outcome, every counterexample CrossHair claims
(`Finding`, its input read back into plain values), and whether the canary was refuted with
its own value. Nothing read here is believed as it stands: the env replays each finding's
input concretely, and the grader counts only what the replay confirms.
"""

from __future__ import annotations

import ast
import io
import json
import math
import re
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from codegym.envs.pycontracts.assembly import Assembly

from codegym.executor import StepResult

MARK = "codegym-crosshair-report"  # (the runner's; it is not imported here: it imports CrossHair)
REFUTED = ("post_fail", "exec_err", "post_err")
Ended = Literal["complete", "missing", "error"]
Kind = Literal["post", "raises", "diff"]
MAX_TEXT = 500
_ERROR_TYPE = re.compile(r"([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))\b")


@dataclass(frozen=True)
class Finding:
    """A counterexample CrossHair claims.

    Attributes:
        kind: ``post`` (a postcondition was false, or raised), ``raises`` (the function
            raised) or ``diff`` (the answer and the reference differ).
        search: The postcondition's index for ``post`` and ``raises`` (the search that found
            it); -1 for ``diff``.
        args: The input, read back into plain values; None when it could not be read.
        call: The call, as CrossHair wrote it (``clamp(6, 0, 0)``).
        detail: What CrossHair said (its message, or what each side did for a diff).
    """

    kind: Kind
    search: int
    args: tuple[Any, ...] | None
    call: str
    detail: str

    @property
    def key(self) -> str | None:
        """The input, as text that tells inputs apart (None when it could not be read)."""
        return None if self.args is None else repr(self.args)


@dataclass(frozen=True)
class Search:
    """One of CrossHair's searches: a postcondition (``post 1``, ...) or the ``diff``.

    Attributes:
        name: Which.
        state: CrossHair's word (``confirmed``: no path left; ``cannot_confirm``: the budget
            was spent; ``post_fail``, ``exec_err``, ``post_err``: it claims a counterexample;
            ``pre_unsat``: no input met the preconditions; ``complete`` for the diff).
        paths: Paths explored.
        cut: Stopped by its CPU time before its budget of paths was spent.
        checked: Paths that ran to the postcondition and met it (a postcondition's search;
            0 when each was cut short or ran what CrossHair cannot run symbolically).
    """

    name: str
    state: str
    paths: int
    cut: bool
    checked: int = 0

    @property
    def refuted(self) -> bool:
        return self.state in REFUTED


@dataclass(frozen=True)
class CrossHairReport:
    """What the runner reported.

    Attributes:
        ended: ``complete``; ``missing`` (no report carrying the nonce: it was suppressed or
            forged); ``error`` (the modules did not load: ``detail`` says why).
        searches: Each postcondition's search, then the diff's (when it ran).
        findings: Every counterexample claimed, in the searches' order.
        canary: Whether the canary was refuted, with its own value.
        detail: Why it did not complete.
        frames: For ``error``: the answer's frames of the exception (line, function, text).
    """

    ended: Ended
    searches: tuple[Search, ...] = ()
    findings: tuple[Finding, ...] = ()
    canary: bool = False
    detail: str = ""
    frames: tuple[tuple[int, str, str], ...] = ()

    @property
    def paths(self) -> int:
        return sum(s.paths for s in self.searches)


def read(step: StepResult, nonce: str, assembly: Assembly, params: Sequence[str]) -> CrossHairReport:
    """The report in ``step``'s output tagged with ``nonce`` (see the module docstring)."""
    prefix = f"{MARK} {nonce} "
    lines = [line for line in step.stdout.decode("utf-8", "replace").splitlines() if line.startswith(prefix)]
    if len(lines) != 1:
        return CrossHairReport("missing", detail=f"{len(lines)} reports carry the episode's nonce, not one")
    try:
        report = json.loads(lines[0][len(prefix) :])
        return _read(report, assembly, list(params))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        return CrossHairReport("missing", detail=f"the report is malformed ({type(e).__name__}: {e})")


def _read(report: Mapping[str, Any], assembly: Assembly, params: list[str]) -> CrossHairReport:
    if report.get("error") is not None:
        frames = tuple((int(line), str(name), str(text)) for line, name, text in report.get("trace") or ())
        return CrossHairReport("error", detail=str(report["error"])[:MAX_TEXT], frames=frames)
    searches: list[Search] = []
    findings: list[Finding] = []
    for entry in report["conditions"]:
        index = int(entry["search"])
        searches.append(Search(f"post {index + 1}", str(entry["state"]), int(entry["paths"]), bool(entry["cut"]),
                               int(entry["checked"])))  # fmt: skip
        if entry["state"] in REFUTED:
            kind: Kind = "raises" if entry["state"] == "exec_err" else "post"
            message = str(entry["message"])
            call, args = _call_in(message, assembly.entry_point, params)
            findings.append(Finding(kind, index, args, call, _claim(kind, str(entry["state"]), message)[:MAX_TEXT]))
    diff = report.get("diff")
    if diff is not None:
        searches.append(Search("diff", "complete", int(diff["paths"]), bool(diff["cut"])))
        for difference in diff["differences"]:
            findings.append(_difference(difference, assembly.entry_point, params))
    canary = report.get("canary") or {}
    _, canary_args = _call_in(str(canary.get("message", "")), "codegym_canary", ["n"])
    refuted = canary.get("state") == "post_fail" and canary_args == (assembly.nonce,)
    return CrossHairReport("complete", tuple(searches), tuple(findings), refuted)


def _claim(kind: Kind, state: str, message: str) -> str:
    """What a claim says, as the agent may read it: the answer's own exception for ``raises``;
    for a postcondition, only that it was false or raised (of which type), never its text nor
    an error message that may quote its names."""
    if kind == "raises":
        return message
    if state == "post_err":
        raised = _ERROR_TYPE.match(message)
        return f"a hidden postcondition raised {raised.group(1)}" if raised else "a hidden postcondition failed"
    return "a hidden postcondition was false"


def _difference(difference: Mapping[str, Any], entry: str, params: list[str]) -> Finding:
    texts = difference["args"]
    shown = ", ".join(f"{name}={texts.get(name, '?')}" for name in params)
    try:
        args: tuple[Any, ...] | None = tuple(_value(ast.parse(str(texts[name]), mode="eval").body) for name in params)
    except (KeyError, ValueError, SyntaxError, RecursionError):
        args = None
    sides = [f"{who} {_behaviour(difference[who])}" for who in ("reference", "candidate")]
    return Finding("diff", -1, args, f"{entry}({shown})", "; ".join(sides)[:MAX_TEXT])


def _behaviour(result: Mapping[str, Any]) -> str:
    return f"raised {result['raises']}" if result.get("raises") else f"returned {result.get('returns')}"


def _call_in(message: str, name: str, params: list[str]) -> tuple[str, tuple[Any, ...] | None]:
    """The call ``name(...)`` after the last "when calling " in ``message``: as written, and
    its arguments as plain values in ``params``' order (None when they cannot be read)."""
    start = message.rfind(f"when calling {name}(")
    if start < 0:
        return "", None
    text = message[start + len("when calling ") :]
    call = _balanced(text)
    if call is None:
        return text[:MAX_TEXT], None
    try:
        node = ast.parse(call, mode="eval").body
        assert isinstance(node, ast.Call)
        values = [_value(arg) for arg in node.args]
        named = {k.arg: _value(k.value) for k in node.keywords if k.arg is not None}
        if len(values) + len(named) != len(params) or any(p not in named for p in params[len(values) :]):
            return call, None
        return call, (*values, *(named[p] for p in params[len(values) :]))
    except (ValueError, SyntaxError, AssertionError, RecursionError):
        return call, None


def _balanced(text: str) -> str | None:
    """``text`` up to the parenthesis that closes its first one (strings in it respected)."""
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
                if depth == 0:
                    return text[: _offset(text, token.end)]
    except (tokenize.TokenError, SyntaxError):
        return None
    return None


def _offset(text: str, position: tuple[int, int]) -> int:
    line, column = position
    return sum(len(part) for part in text.splitlines(keepends=True)[: line - 1]) + column


def _value(node: ast.expr) -> Any:
    """A plain value written as CrossHair writes one: a literal, or ``set()``,
    ``frozenset(...)``, ``float('nan')``-like floats (nothing is called or evaluated)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords and len(node.args) <= 1:
        inner = [_value(arg) for arg in node.args]
        if node.func.id == "set":
            return set(*inner)
        if node.func.id == "frozenset":
            return frozenset(*inner)
        if node.func.id == "float" and len(inner) == 1 and isinstance(inner[0], str):
            value = float(inner[0])
            if not math.isfinite(value):
                return value
    return ast.literal_eval(node)
