"""The grader's side of a replay: run the answer on each input CrossHair reported, concretely,
and judge the contract here (stdlib only).

Runs in the job's grader process, outside the sandbox, like the hidden tests' harness whose
proxy it reuses (`codegym.envs.python_function.harness`): the answer runs in a fresh
sandboxed process (``python -m codegym.envs.python_function.candidate``) and only plain
builtin values cross back. For each input this harness evaluates the task's preconditions
(an input that breaks one is no counterexample), calls the answer, and evaluates each
postcondition on the arguments and ``__return__`` with its own code. A report that CrossHair
made in the answer's process is so checked before it counts: a forged one changes nothing.
"""

from __future__ import annotations

import builtins
import copy
import importlib
import json
import marshal
import time
from typing import Any

from codegym.envs.python_function import codec
from codegym.envs.python_function.harness import CandidateGone, CandidateRaised, Greeting, NotReady, Proxy

from codegym.executor.base import Harness
from codegym.executor.channel import Channel

MAX_SHOWN = 300


def replay(channel: Channel, payload: bytes) -> bytes:
    """Harness entry (see `codegym.executor.Harness`): ``payload`` is `replayer_for`'s spec."""
    spec = marshal.loads(payload)
    deadline = time.monotonic() + float(spec["time_budget_s"])
    greeting = Greeting(channel, deadline)
    proxy = Proxy(channel, spec["entry_point"], deadline, greeting)
    base = {name: importlib.import_module(name) for name in spec["modules"]}
    cases: list[dict[str, Any]] = []
    try:
        for args in spec["cases"]:
            cases.append(_case(spec, base, proxy, list(args)))
            if cases[-1].get("gone"):
                break
        greeting.expect()
    except NotReady as e:
        return json.dumps({"phase": "load", "report": e.report.decode(errors="replace")}).encode()
    channel.close()
    return json.dumps({"phase": "replay", "cases": cases}).encode()


def _case(spec: dict[str, Any], base: dict[str, Any], proxy: Proxy, args: list[Any]) -> dict[str, Any]:
    """One input: whether it meets the preconditions, what the answer did, which
    postconditions it broke (each with why)."""
    arguments = dict(zip(spec["params"], args, strict=True))
    for index, condition in enumerate(spec["pre"]):
        holds, _ = _holds(condition, {**base, **copy.deepcopy(arguments)})
        if not holds:
            return {"met": False, "unmet": index}
    try:
        returned = proxy(*copy.deepcopy(args))
    except CandidateRaised as e:
        return {"met": True, "raised": str(e)[:MAX_SHOWN], "frames": e.frames}
    except CandidateGone as e:
        return {"met": True, "gone": str(e), "violation": e.violation}
    broken = []
    for index, condition in enumerate(spec["post"]):
        holds, why = _holds(condition, {**base, **copy.deepcopy(arguments), "__return__": copy.deepcopy(returned)})
        if not holds:
            broken.append([index, why])
    return {"met": True, "returned": codec.encode(returned).decode(), "broken": broken}


def _holds(condition: str, names: dict[str, Any]) -> tuple[bool, str]:
    """Whether ``condition`` is true in ``names`` (one that raises is not), and why not.
    The names are the globals: a comprehension in the condition sees them."""
    try:
        return bool(eval(condition, {"__builtins__": builtins, **names})), "is False"
    except Exception as e:  # (its type only: a message may quote the hidden condition's names)
        return False, f"raised {type(e).__name__}"


def replayer_for(
    entry_point: str,
    params: list[str],
    pre: list[str],
    post: list[str],
    cases: list[list[Any]],
    modules: tuple[str, ...],
    time_budget_s: float,
) -> Harness:
    """`replay`, calling ``entry_point`` with each of ``cases`` (argument lists) and judging
    ``pre`` and ``post`` on each (``modules``: what the conditions may name)."""
    spec = {"entry_point": entry_point, "params": params, "pre": pre, "post": post, "cases": cases,
            "modules": list(modules), "time_budget_s": time_budget_s}  # fmt: skip
    return Harness(f"{__name__}:replay", marshal.dumps(spec))
