"""Make a spec task's hidden half (`spec.SpecCases`) from a verified program: inputs that meet
its target's precondition, and held mutants of the target's body with what each does.

Run once per program when a task set is made, never at grade time::

    python -m codegym.envs.dafny.mutants <folder>   # writes <stem>.spec.json beside each .dfy

1. Candidate inputs are drawn from the target's parameter types (seeded). Dafny keeps those
   that meet the precondition: one method per candidate calls the target on it, and a
   candidate is kept when that call verifies.
2. Mutants change one token of the body (its proof hints removed first): a comparison,
   an arithmetic or boolean operator, an integer literal, ``true``/``false``; or delete
   one assignment statement.
3. One compiled program (``dafny /compile:2 /noVerify``, in the sandbox) holds the reference
   and every mutant; one run of it per method runs that method on every input and prints
   each outcome. A mutant that crashes, or loops past `FUEL` steps, is dropped: no
   specification is needed to reject it.
   So is one whose outcome breaks a result's type (a negative ``nat``), one that does what
   the reference does on every input, and one that does what an earlier mutant does.
4. The program's own specification is graded as an answer is (`ruled_out`: the env's kill
   checks of every remaining mutant, one Dafny run), and only the mutants it rules out are
   held (up to `MAX_MUTANTS`), so the program's own reference scores kill rate 1 (solved).
   The others are right by the specification the task is made from: no answer could be
   asked to rule them out. How many were left out is recorded (``not_ruled_out``).
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from codegym.envs.dafny import gate, grader
from codegym.envs.dafny.lexer import Token, tokens
from codegym.envs.dafny.program import Declaration, declarations, opens_block, strip_hints
from codegym.envs.dafny.spec import (
    Mutant,
    Outcome,
    Signature,
    SpecCases,
    Value,
    assemble_answer,
    call,
    observed,
    signature_of,
)

from codegym.error import TaskFormatError
from codegym.executor import Executor, Job, RunResult, Step, StepResult
from codegym.executor.registry import get_executor
from codegym.grade import Status
from codegym.verifier.dafny import LIMITS, Dafny, command

INPUTS = 8
CANDIDATES = 120
MAX_MUTANTS = 16
MARK = "@@codegym"
MUTANT = "CodegymMutant"
# The compiled program asks which method to run (Dafny 2.3 has no command-line arguments).
SELECT = """\
public static class CodegymSelect {
  public static void Which(out System.Numerics.BigInteger j) {
    j = System.Numerics.BigInteger.Parse(System.Environment.GetEnvironmentVariable("CODEGYM_MUTANT") ?? "-1");
  }
}
"""
FUEL = 100_000
RUN_LIMITS = replace(LIMITS, cpu_s=10.0, wall_s=10.0)  # (one method's run on every input)
_SWAPS: dict[str, tuple[str, ...]] = {
    "<": ("<=", ">"), "<=": ("<", ">="), ">": (">=", "<"), ">=": (">", "<="), "==": ("!=",), "!=": ("==",),
    "+": ("-", "*"), "-": ("+",), "*": ("+",), "/": ("%", "*"), "%": ("/",), "&&": ("||",), "||": ("&&",),
    "true": ("false",), "false": ("true",),
}  # fmt: skip
_OPERAND_END = frozenset({")", "]"})  # (after these, or a name or number, a + or - is binary)
_STATEMENT_WORDS = frozenset({"var", "ghost", "return", "if", "while", "assert", "assume", "print", "forall",
                              "calc", "match", "break", "label", "modify", "reveal", "expect", "yield"})  # fmt: skip
_TYPE_WORDS = frozenset({"int", "nat", "bool", "char", "real", "seq", "set", "array", "map", "multiset"})


@dataclass(frozen=True)
class Mutation:
    """One token of the body changed: the mutated program text and the edit in words."""

    edit: str
    body: str


def build(program: str, *, target: str | None = None, executor: Executor | None = None, seed: int = 0) -> SpecCases:
    """The `SpecCases` of ``program``'s ``target`` (by default its first method with a body):
    its inputs, and the mutants its own specification rules out (raises `TaskFormatError`
    when it rules out none, or when the program does not verify)."""
    declaration = _target(program, target)
    signature = signature_of(declaration)
    runner = executor or get_executor()
    inputs = _valid_inputs(program, signature, _candidates(signature, random.Random(seed)), runner)
    if not inputs:
        raise TaskFormatError(f"{signature.method}: no candidate input meets its precondition")
    mutations = _mutations(program, declaration)
    reference, outcomes = _run(program, declaration, signature, inputs, mutations, runner)
    mutants: list[Mutant] = []
    for mutation, rows in zip(mutations, outcomes, strict=True):
        if rows is None or rows == reference or any(m.outcomes == rows for m in mutants):
            continue
        if not _well_typed(signature, rows):
            continue  # (a negative nat: its type rules it out, with no specification)
        mutants.append(Mutant(mutation.edit, rows))
    candidates = SpecCases(signature, tuple(inputs), reference, tuple(mutants))
    candidates.check(signature.method)
    cases = ruled_out(program, candidates, executor=runner)
    if not cases.mutants:
        raise TaskFormatError(f"{signature.method}: its specification rules out none of its {len(mutants)} distinct "
                              "mutants (a spec task needs one it rules out: strengthen its ensures)")  # fmt: skip
    return replace(cases, mutants=cases.mutants[:MAX_MUTANTS])


def ruled_out(program: str, cases: SpecCases, *, executor: Executor | None = None) -> SpecCases:
    """``cases`` with only the mutants that ``program``'s own specification of the target rules
    out, and ``not_ruled_out`` the count of the others: ``program`` graded as a spec answer
    is (`spec.assemble_answer`, the gate, one Dafny run, `grader.grade`). Rows whose
    ``spec_cases`` were made elsewhere are fixed with it. Raises `TaskFormatError` when the
    program, as its own answer, is not ``OK``."""
    method = cases.signature.method
    assembly = assemble_answer(program, program, method, cases)
    verifier = Dafny()
    report = verifier.read((executor or get_executor()).run(verifier.job({grader.PROGRAM: assembly.text}, LIMITS)))
    graded = grader.grade(gate.check(program), assembly, report)
    if graded.status is not Status.OK:
        raise TaskFormatError(f"{method}: the program as its own spec answer is {graded.status.value}, not OK: "
                              f"{graded.message}")  # fmt: skip
    killed = {m for k in assembly.kills if report.outcome_of(k.name) == "verified" for m in k.mutants}
    kept = tuple(m for j, m in enumerate(cases.mutants) if j in killed)
    return replace(cases, mutants=kept, not_ruled_out=len(cases.mutants) - len(kept))


def _well_typed(signature: Signature, rows: Sequence[Outcome]) -> bool:
    kinds = [p.type for p in signature.observed]
    return all(
        not (kind == "nat" and isinstance(v, int) and v < 0) for row in rows for kind, v in zip(kinds, row, strict=True)
    )


def _target(program: str, name: str | None) -> Declaration:
    methods = [d for d in declarations(program) if d.kind == "method" and d.body is not None]
    chosen = [d for d in methods if name is None or d.name == name][:1]
    if not chosen:
        raise TaskFormatError(f"expected a method with a body{f' named {name}' if name else ''}, found "
                              f"{[d.name for d in methods]}")  # fmt: skip
    return chosen[0]


# --- inputs ------------------------------------------------------------------------------------------


def _candidates(signature: Signature, rng: random.Random) -> list[tuple[Value, ...]]:
    """Distinct candidate inputs: the smallest first, then seeded draws."""
    found: list[tuple[Value, ...]] = []
    for index in range(CANDIDATES * 4):
        values = tuple(_draw(p.type, rng, small=index == 0) for p in signature.parameters)
        if values not in found:
            found.append(values)
        if len(found) == CANDIDATES:
            break
    return found


def _draw(kind: str, rng: random.Random, *, small: bool) -> Value:
    if kind == "bool":
        return False if small else rng.random() < 0.5
    if kind in ("int", "nat"):
        low = 0 if kind == "nat" else -3
        return max(low, 0) if small else rng.choice((rng.randint(low, 7), rng.randint(0, 4)))  # (indices, often)
    if small:
        return ()
    items = [rng.randint(-3, 7) for _ in range(rng.randint(1, 5))]
    return tuple(sorted(items) if rng.random() < 0.5 else items)


def _valid_inputs(program: str, signature: Signature, candidates: Sequence[tuple[Value, ...]],
                  executor: Executor) -> list[tuple[Value, ...]]:  # fmt: skip
    """The first `INPUTS` candidates the target may be called on (Dafny proves the call's
    precondition)."""
    checks = "".join(f"\nmethod CodegymPre{k}()\n{{\n" + "".join(f"  {line}\n" for line in call(signature, values))
                     + "}\n" for k, values in enumerate(candidates))  # fmt: skip
    report = Dafny().read(executor.run(Dafny().job({"program.dfy": program + checks}, LIMITS)))
    if report.ended != "complete":
        raise TaskFormatError(f"{signature.method}: Dafny could not check the candidate inputs ({report.ended}: "
                              f"{report.detail or [m.text for m in report.messages[:3]]})")  # fmt: skip
    valid = [values for k, values in enumerate(candidates) if report.outcome_of(f"CodegymPre{k}") == "verified"]
    return valid[:INPUTS]


# --- mutants -------------------------------------------------------------------------------------


def _mutations(program: str, declaration: Declaration) -> list[Mutation]:
    """Every one-token change of the target's body, with its proof hints removed, and every
    assignment statement deleted."""
    stripped = next(d for d in declarations(strip_hints(program, [declaration.name])) if d.name == declaration.name)
    body = stripped.body or "{}"
    found = tokens(body)
    mutations = []
    for index, token in enumerate(found):
        line = stripped.body_line + token.line - 1
        for replacement in _replacements(found, index):
            edit = f"line {line}: `{token.text}` -> `{replacement}`"
            mutations.append(Mutation(edit, body[: token.start] + replacement + body[token.end :]))
        end = _assignment_end(found, index)
        if end is not None:
            statement = body[token.start : found[end].end]
            deleted = body[: token.start] + body[found[end].end :]
            mutations.append(Mutation(f"line {line}: deleted `{statement}`", deleted))
    return mutations


def _assignment_end(found: Sequence[Token], index: int) -> int | None:
    """The index of the ``;`` ending the assignment statement that starts at ``index`` (None
    when none does: a ``var`` declaration is not deleted, its variable is used later)."""
    token = found[index]
    starts = index == 0 or found[index - 1].text in (";", "{", "}")
    if not (starts and token.kind == "name" and token.text not in _STATEMENT_WORDS):
        return None
    level = token.depth
    ends = (k for k in range(index + 1, len(found)) if found[k].depth == level and found[k].text in (";", "{", "}"))
    end = next(ends, None)
    if end is None or found[end].text != ";":
        return None
    assigns = any(found[k].text == ":=" and found[k].depth == level for k in range(index + 1, end))
    return end if assigns else None


def _replacements(found: Sequence[Token], index: int) -> list[str]:
    token = found[index]
    if token.kind == "number":
        value = int(token.text) if token.text.isdigit() else None
        return [] if value is None else [str(value + 1)] + ([str(value - 1)] if value > 0 else [])
    swaps = _SWAPS.get(token.text, ()) if token.kind == "symbol" or token.text in ("true", "false") else ()
    if not swaps:
        return []
    previous = found[index - 1] if index else None
    following = found[index + 1] if index + 1 < len(found) else None
    beside = {t.text for t in (previous, following) if t is not None}
    if token.text in ("<", ">") and beside & _TYPE_WORDS:
        return []  # (a type's angle bracket)
    if token.text in ("+", "-") and not (
        previous is not None and (previous.kind in ("name", "number") or previous.text in _OPERAND_END)
    ):
        return []  # (a sign, not a binary operator)
    return list(swaps)


# --- running them --------------------------------------------------------------------------------------


Rows = tuple[Outcome, ...]  # a method's outcome on each input


def _run(program: str, declaration: Declaration, signature: Signature, inputs: Sequence[tuple[Value, ...]],
         mutations: Sequence[Mutation], executor: Executor) -> tuple[Rows, list[Rows | None]]:  # fmt: skip
    """The reference's outcomes, and each mutant's (None: it does not type-check, or it
    crashed or hung on some input).

    One step compiles the reference, every mutant and a ``Main`` that runs the one
    ``CODEGYM_MUTANT`` names (-1: the reference) on every input; one step per method runs
    the compiled program, so a crash or a hang ends only that method's run. Mutants Dafny
    rejects (``+`` on sequences made ``*``) are left out, and the rest compiled again."""
    before, after = declaration.signature.split(declaration.name, 1)
    texts = {j: f"\n{before}{MUTANT}{j}{after}\n{_with_fuel(m.body)}\n" for j, m in enumerate(mutations)}
    for _ in range(3):
        branches = [(-1, signature.method), *((j, f"{MUTANT}{j}") for j in texts)]
        source, spans = program, {}
        for j, text in texts.items():
            first = source.count("\n") + 1
            source += text
            spans[j] = range(first, source.count("\n") + 1)
        result = _execute(source + _main(signature, inputs, branches), branches, executor)
        compiled = result.steps[0]
        output = (compiled.stdout + compiled.stderr).decode("utf-8", "replace")
        rejected = {j for j, lines in spans.items() for line in _error_lines(output) if line in lines}
        if compiled.exit_code == 0 and len(result.steps) == len(branches) + 1:
            rows = dict(zip((j for j, _ in branches), (_read(s, len(signature.observed), len(inputs))
                                                       for s in result.steps[1:]), strict=True))  # fmt: skip
            if rows[-1] is None:
                raise TaskFormatError(f"{signature.method}: the reference itself crashed or hung on an input")
            return rows[-1], [rows.get(j) for j in range(len(mutations))]
        if not rejected:
            break
        texts = {j: text for j, text in texts.items() if j not in rejected}
    raise TaskFormatError(f"{signature.method}: the reference and its mutants did not compile: {output[-600:]}")


def _execute(source: str, branches: Sequence[tuple[int, str]], executor: Executor) -> RunResult:
    compile_step = Step(argv=(*command(), "/compile:2", "/noVerify", "/out:program", "program.dfy", "select.cs"),
                        env=(("HOME", "$TMPDIR"),), sockets="errno")  # fmt: skip
    runs = tuple(Step(argv=("mono", "program.exe"), env=(("HOME", "$TMPDIR"), ("CODEGYM_MUTANT", str(j))),
                      sockets="errno", limits=RUN_LIMITS, stop_on_failure=False) for j, _ in branches)  # fmt: skip
    files = {"program.dfy": source.encode(), "select.cs": SELECT.encode()}
    return executor.run(Job(steps=(compile_step, *runs), files=files, limits=LIMITS))


def _error_lines(output: str) -> set[int]:
    return {int(m.group(1)) for m in re.finditer(r"^program\.dfy\((\d+),\d+\): Error", output, re.MULTILINE)}


def _with_fuel(body: str) -> str:
    """``body`` with a step count that ends a loop running past `FUEL` iterations by dividing
    by zero: a crash, which drops the mutant at once instead of at the time limit."""
    found = tokens(body)
    inserts = []
    for index, token in enumerate(found):
        if token.text != "while" or token.kind != "name":
            continue
        brace = next((k for k in range(index + 1, len(found)) if found[k].text == "{" and found[k].depth == token.depth
                      and opens_block(found[k - 1])), None)  # fmt: skip
        if brace is not None:
            inserts.append(found[brace].end)
    crash = "codegymFuel := 1 / (codegymFuel - codegymFuel);"
    guard = f" codegymFuel := codegymFuel + 1; if codegymFuel > {FUEL} {{ {crash} }}"
    parts, at = [], 0
    for offset in inserts:
        parts += [body[at:offset], guard]
        at = offset
    parts.append(body[at:])
    text = "".join(parts)
    return text[:1] + " var codegymFuel := 0;" + text[1:] if inserts else text


def _main(signature: Signature, inputs: Sequence[tuple[Value, ...]], branches: Sequence[tuple[int, str]]) -> str:
    """A ``Main`` that runs the method ``CODEGYM_MUTANT`` names on every input and prints
    each outcome after a mark line, one value a line."""
    printed = "".join(f', {e}, "\\n"' for e in observed(signature))
    lines = ["var which := CodegymWhich();"]
    for j, method in branches:
        lines.append(f"{'if' if j == branches[0][0] else 'else if'} which == {j} {{")
        for i, values in enumerate(inputs):
            statements = [*call(signature, values, method), f'print "{MARK} {i}\\n"{printed};']
            lines += ["  {", *(f"    {s}" for s in statements), "  }"]
        lines.append("}")
    extern = 'method {:extern "CodegymSelect", "Which"} CodegymWhich() returns (j: int)\n'
    return f"\n{extern}\nmethod Main()\n{{\n" + "".join(f"  {line}\n" for line in lines) + "}\n"


def _read(step: StepResult, width: int, count: int) -> Rows | None:
    """The outcomes one run printed, or None when it did not finish cleanly."""
    if step.exit_code != 0 or step.limit is not None:
        return None
    lines = step.stdout.decode("utf-8", "replace").split("\n")
    rows = tuple(tuple(_value(v) for v in lines[at + 1 : at + 1 + width]) for at, line in enumerate(lines)
                 if line.startswith(MARK))  # fmt: skip
    return rows if len(rows) == count and all(len(r) == width for r in rows) else None


def _value(text: str) -> Value:
    if text in ("true", "false"):
        return text == "true"
    value = json.loads(text)
    return tuple(value) if isinstance(value, list) else int(value)


def main(argv: Sequence[str] | None = None) -> int:
    """Write ``<stem>.spec.json`` beside each ``.dfy`` of the folders or files given; a program
    that cannot be made a spec task is named with why and skipped (exit status 1)."""
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    files = [f for p in paths for f in (sorted(p.glob("*.dfy")) if p.is_dir() else [p])]
    executor = get_executor()
    skipped = 0
    for path in files:
        try:
            cases = build(path.read_text(encoding="utf-8"), executor=executor)
        except TaskFormatError as e:
            print(f"{path.name}: skipped: {e}", file=sys.stderr)
            skipped += 1
            continue
        path.with_suffix(".spec.json").write_text(json.dumps(cases.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"{path.name}: {len(cases.inputs)} inputs, {len(cases.mutants)} mutants "
              f"({cases.not_ruled_out} its specification does not rule out left out)")  # fmt: skip
    return 1 if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
