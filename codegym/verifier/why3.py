"""Why3 as a `codegym.verifier.Verifier`: Debian's ``why3`` (1.5) with Z3 as its prover.

A job has three steps in one sandbox: ``why3 config detect`` (the step's home is its own
temp dir, so it finds the provers afresh), ``why3 prove -a split_vc`` on the theories to
verify, and the same on the ``Canary`` module under a step limit. Each verification
condition is reported as::

    File "program.mlw", line 17, characters 18-25:
    Sub-goal Loop invariant preservation of goal sum_to'vc.
    Prover result is: Valid (0.01s, 3998 steps).

A `Procedure` here is one such condition: its name is the goal's (``sum_to'vc``), its check
the sub-goal's kind and place (``Loop invariant preservation, line 17``). Only ``Valid`` is
verified; a timeout or step limit is ``timeout``; anything else (``Unknown``, ``Invalid``, a
prover failure) is ``failed``. The canary's conditions are reported under the name
``canary``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from codegym.executor import Job, Limits, RunResult, Step
from codegym.grade import step_failure
from codegym.verifier import Message, Outcome, Procedure, VerifierReport

WHY3 = "why3"
CANARY = "Canary"  # the module whose goal ``false`` must stay unproved
LIMITS = Limits(cpu_s=60.0, wall_s=60.0, memory_bytes=1 << 30, processes=16, output_bytes=4 << 20)
_PLACE = re.compile(r'^File "(?P<file>[^"]+)", line (?P<line>\d+), characters (?P<first>\d+)-\d+:$')
_GOAL = re.compile(r"^(?:Sub-goal (?P<kind>.+) of goal (?P<parent>\S+)|Goal (?P<goal>\S+))\.$")
_RESULT = re.compile(r"^Prover result is: (?P<result>[A-Za-z ]+?)(?: \(|\.|,|$)")
_OUTCOMES: Mapping[str, Outcome] = {"Valid": "verified", "Timeout": "timeout", "Step limit exceeded": "timeout",
                                    "Out of memory": "timeout"}  # fmt: skip


@dataclass(frozen=True)
class Why3:
    """Why3 1.5 with Z3.

    Args:
        time_limit_s: The prover's time per condition (``-t``).
        canary_steps: Z3's step limit on the canary (``-s``): a consistent context never
            proves it, and gives up within it in about 0.05 s; an inconsistent one (an axiom
            that needs arithmetic to contradict, measured) proves it in about 5,000 steps.
            Steps, unlike seconds, do not move with the machine's load.
    """

    time_limit_s: int = 5
    canary_steps: int = 200_000
    name: str = "Why3"

    def job(self, files: Mapping[str, str], limits: Limits = LIMITS, *, theories: tuple[str, ...] = ()) -> Job:
        """Verify the first file's ``theories`` (all of them but the canary when empty),
        then its canary."""
        first = next(iter(files))
        selected = [a for t in theories for a in ("-T", t)]
        env = (("HOME", "$TMPDIR"),)
        prove = (WHY3, "prove", "-P", "z3", "-a", "split_vc", "-t", str(self.time_limit_s), first, *selected)
        bounded = ("-s", str(self.canary_steps), "-t", str(self.time_limit_s))
        canary = (WHY3, "prove", "-P", "z3", *bounded, first, "-T", CANARY)
        # (why3 prove talks to the why3server it starts over a unix socket: a tool's step)
        steps = (
            Step(argv=(WHY3, "config", "detect"), env=env),
            Step(argv=prove, env=env, stop_on_failure=False, sockets="tool"),
            Step(argv=canary, env=env, sockets="tool"),
        )
        return Job(steps=steps, files={k: v.encode() for k, v in files.items()}, limits=limits)

    def read(self, result: RunResult) -> VerifierReport:
        detect, prove, canary = result.steps
        if not detect.ok:
            why = step_failure(detect)
            return VerifierReport("Why3", "crashed", detail=f"why3 config detect failed: {why[1] if why else '?'}")
        text = (prove.stdout + prove.stderr).decode("utf-8", "replace")
        procedures, messages = _conditions(text)
        if prove.limit is not None:
            why = step_failure(prove)
            return VerifierReport("Why3", "timeout", procedures, messages, why[1] if why else "stopped")
        if prove.exit_code not in (0, 2) or not procedures:
            return VerifierReport("Why3", "syntax", (), _errors(text), _last_line(text))
        canary_text = (canary.stdout + canary.stderr).decode("utf-8", "replace")
        canary_conditions, _ = _conditions(canary_text)
        if canary.skipped or not canary_conditions:
            return VerifierReport("Why3", "crashed", procedures, messages, "the canary was not checked")
        canaries = tuple(Procedure("canary", p.check, p.outcome, p.obligations) for p in canary_conditions)
        return VerifierReport("Why3", "complete", procedures + canaries, messages)


def _conditions(text: str) -> tuple[tuple[Procedure, ...], tuple[Message, ...]]:
    procedures: list[Procedure] = []
    messages: list[Message] = []
    place: re.Match[str] | None = None
    goal: re.Match[str] | None = None
    for line in text.splitlines():
        if found := _PLACE.match(line):
            place, goal = found, None
        elif (found := _GOAL.match(line)) and place is not None:
            goal = found
        elif (found := _RESULT.match(line)) and place is not None and goal is not None:
            name = goal.group("parent") or goal.group("goal")
            kind = goal.group("kind") or "Goal"
            check = f"{kind}, line {place.group('line')}"
            outcome = _OUTCOMES.get(found.group("result").strip(), "failed")
            procedures.append(Procedure(name, check, outcome, 1))
            if outcome != "verified":
                why = f"{kind} not proved ({found.group('result').strip()})"
                at, column = int(place.group("line")), int(place.group("first")) + 1
                messages.append(Message(place.group("file"), at, column, "error", why, name))
            place = goal = None
    return tuple(procedures), tuple(messages)


def _errors(text: str) -> tuple[Message, ...]:
    """A file that did not parse or type: its errors, where Why3 puts them."""
    messages = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if (found := _PLACE.match(line)) and index + 1 < len(lines) and not lines[index + 1].startswith("warning"):
            messages.append(Message(found.group("file"), int(found.group("line")), int(found.group("first")) + 1,
                                    "error", lines[index + 1].strip()))  # fmt: skip
    return tuple(messages)


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "why3 gave no verdict"
