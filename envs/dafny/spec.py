"""Spec tasks: the agent writes a method's ``requires`` and ``ensures``; the env scores them by
how many held mutants of the method they reject (pure).

A spec task holds, for its target method, concrete inputs that meet the task's own
precondition, the reference body's outcome on each (its results, and the arrays it may
modify, after the call), and held mutants of the body with their outcomes (`mutants.build`
makes them: it compiles the mutated bodies and runs them). A mutant is *killed* when, on
some input, Dafny proves from the answer's specification alone that the mutant's outcome is
impossible. The env appends one check per (input, wrong outcome)::

    method {:fuel SumTo,7} CodegymKill<hash>x3()
    {
      var a := new int[3];
      a[0], a[1], a[2] := 3, 1, 2;
      var s := Sum(a);
      assert !(s == 5);
    }

At the call Dafny knows only the specification: it must prove the precondition holds for the
input (a precondition that excludes the input kills nothing there) and it may assume the
postcondition. The assertion verifies only when the postcondition rules the mutant's outcome
out. A check proves a violation, so an incomplete prover can lose a kill but never invent
one, and ``ensures true`` kills nothing. ``{:fuel}`` lets Z3 unfold the program's functions
as deep as the inputs need. (Mutants that crash or hang on an input are dropped when they are
made: no specification is needed to reject them; so are those the program's own specification
does not rule out, which makes its own reference score kill rate 1.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from codegym.envs.dafny.lexer import Token, tokens
from codegym.envs.dafny.program import Assembly, Declaration, KillCheck, assemble_spec, declarations

from codegym.error import TaskFormatError

Value = int | bool | tuple[int, ...]
Outcome = tuple[Value, ...]  # one value per observed name
TYPES = frozenset({"int", "nat", "bool", "array<int>", "seq<int>"})
ARRAY = "array<int>"
SPEC_CLAUSES = frozenset({"requires", "ensures"})
PER_MUTANT = 2  # inputs checked per mutant (the first ones where it differs from the reference)


@dataclass(frozen=True)
class Parameter:
    """A parameter or result of the target: its name and type (one of `TYPES`)."""

    name: str
    type: str


@dataclass(frozen=True)
class Signature:
    """The target method as a spec task calls it.

    Attributes:
        method: Its name.
        parameters, results: In order.
        modified: The array parameters its ``modifies`` clause names (their contents after
            the call are part of its outcome).
    """

    method: str
    parameters: tuple[Parameter, ...]
    results: tuple[Parameter, ...]
    modified: tuple[str, ...] = ()

    @property
    def observed(self) -> tuple[Parameter, ...]:
        """What an outcome holds, in order: the results, then the modified arrays."""
        arrays = {p.name: p for p in self.parameters}
        return (*self.results, *(arrays[name] for name in self.modified))


@dataclass(frozen=True)
class Mutant:
    """A held mutant: what was changed, and its outcome on each input."""

    edit: str
    outcomes: tuple[Outcome, ...]


@dataclass(frozen=True)
class SpecCases:
    """A spec task's hidden half: the inputs, the reference's outcomes and the mutants'.

    Attributes:
        not_ruled_out: How many distinct mutants the program's own specification did not
            rule out when `mutants.build` made these (they were left out, so the program's
            own specification rules out every held one); None when not recorded.
    """

    signature: Signature
    inputs: tuple[tuple[Value, ...], ...]
    reference: tuple[Outcome, ...]
    mutants: tuple[Mutant, ...]
    not_ruled_out: int | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (`from_json` reads it back)."""
        return {
            "method": self.signature.method,
            "parameters": [[p.name, p.type] for p in self.signature.parameters],
            "results": [[p.name, p.type] for p in self.signature.results],
            "modified": list(self.signature.modified),
            "inputs": [_plain(values) for values in self.inputs],
            "reference": [_plain(values) for values in self.reference],
            "mutants": [{"edit": m.edit, "outcomes": [_plain(o) for o in m.outcomes]} for m in self.mutants],
            **({} if self.not_ruled_out is None else {"not_ruled_out": self.not_ruled_out}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "spec cases") -> SpecCases:
        """Read `to_json`'s data (raises `TaskFormatError` naming ``where`` and what is wrong)."""
        try:
            signature = Signature(
                str(data["method"]),
                tuple(Parameter(str(n), str(t)) for n, t in data["parameters"]),
                tuple(Parameter(str(n), str(t)) for n, t in data["results"]),
                tuple(str(n) for n in data.get("modified", ())),
            )
            inputs = tuple(_values(row) for row in data["inputs"])
            reference = tuple(_values(row) for row in data["reference"])
            mutants = tuple(Mutant(str(m["edit"]), tuple(_values(o) for o in m["outcomes"])) for m in data["mutants"])
            unruled = data.get("not_ruled_out")
            not_ruled_out = None if unruled is None else int(unruled)
        except (KeyError, TypeError, ValueError) as e:
            expected = (
                "method, parameters, results, modified, inputs, reference and mutants (each with edit and outcomes)"
            )
            raise TaskFormatError(f"{where}: expected {expected}: {type(e).__name__}: {e}") from None
        cases = cls(signature, inputs, reference, mutants, not_ruled_out)
        cases.check(where)
        return cases

    def check(self, where: str) -> None:
        """Raise `TaskFormatError` unless every row has the shape the signature says."""
        unknown = [p.type for p in (*self.signature.parameters, *self.signature.results) if p.type not in TYPES]
        if unknown:
            raise TaskFormatError(f"{where}: spec tasks take parameters and results of types {sorted(TYPES)}, "
                                  f"not {unknown[0]}")  # fmt: skip
        width, observed = len(self.signature.parameters), len(self.signature.observed)
        if len(self.reference) != len(self.inputs) or any(len(row) != width for row in self.inputs):
            raise TaskFormatError(f"{where}: expected one reference outcome per input and {width} values per input")
        rows = [*self.reference, *(o for m in self.mutants for o in m.outcomes)]
        if any(len(row) != observed for row in rows) or any(len(m.outcomes) != len(self.inputs) for m in self.mutants):
            raise TaskFormatError(f"{where}: expected an outcome of {observed} values per input for the reference "
                                  "and each mutant")  # fmt: skip


def _plain(values: Sequence[Value]) -> list[Any]:
    return [list(v) if isinstance(v, tuple) else v for v in values]


def _values(row: Iterable[Any]) -> tuple[Value, ...]:
    values: list[Value] = []
    for value in row:
        if isinstance(value, bool | int):
            values.append(value)
        elif isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            values.append(tuple(value))
        else:
            raise ValueError(f"{value!r} is not an int, a bool or a list of ints")
    return tuple(values)


# --- the target's signature ------------------------------------------------------------------


def signature_of(declaration: Declaration) -> Signature:
    """The target's `Signature`, read from its header (raises `TaskFormatError` for a
    parameter type a spec task cannot build)."""
    found = tokens(declaration.signature)
    groups = _groups(found)
    if not groups or declaration.kind != "method":
        raise TaskFormatError(f"{declaration.name}: a spec task's target is a method with parameters in parentheses")
    parameters = _parameters(groups[0])
    results = _parameters(groups[1]) if len(groups) > 1 else ()
    modifies = " ".join(c.text for c in declaration.clauses if c.keyword == "modifies")
    named = {t.text for t in tokens(modifies) if t.kind == "name"}
    modified = tuple(p.name for p in parameters if p.type == ARRAY and p.name in named)
    signature = Signature(declaration.name, parameters, results, modified)
    unknown = [p for p in (*parameters, *results) if p.type not in TYPES]
    if unknown:
        raise TaskFormatError(f"{declaration.name}: spec tasks take parameters and results of types "
                              f"{sorted(TYPES)}; {unknown[0].name} is {unknown[0].type}")  # fmt: skip
    return signature


def _groups(found: Sequence[Token]) -> list[list[Token]]:
    """The tokens inside each top-level pair of parentheses of a signature."""
    groups: list[list[Token]] = []
    level = found[0].depth if found else 0
    for token in found:
        if token.depth == level:
            if token.text == "(":
                groups.append([])
        elif groups and not (token.text == ")" and token.depth == level + 1):  # (not the closing one)
            groups[-1].append(token)
    return groups


def _parameters(inside: Sequence[Token]) -> tuple[Parameter, ...]:
    """``name: type`` pairs split at the commas outside brackets and type arguments."""
    parameters: list[Parameter] = []
    current: list[Token] = []
    level = inside[0].depth if inside else 0
    for token in [*inside, None]:
        angles = sum((t.text == "<") - (t.text == ">") for t in current)
        if token is None or (token.text == "," and token.depth == level and angles == 0):
            words = [t.text for t in current if t.text != "ghost"]
            if ":" in words:
                colon = words.index(":")
                parameters.append(Parameter(words[colon - 1], "".join(words[colon + 1 :])))
            current = []
        else:
            current.append(token)
    return tuple(parameters)


# --- the checks ------------------------------------------------------------------------------------


def literal(value: Value) -> str:
    """``value`` as a Dafny literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def call(signature: Signature, values: Sequence[Value], method: str | None = None, *,
         mention: Sequence[Outcome] = ()) -> list[str]:  # fmt: skip
    """Statements that build ``values`` (an array or a sequence becomes a local of the
    parameter's name) and call the method (``method``: another of the same signature) into
    locals named as its results.

    With ``mention`` (outcomes the caller will compare with), ghost statements also name each
    element of the arrays and sequences before and after the call, and of the results up to
    the longest of ``mention``'s: the terms Z3 instantiates a specification's quantifiers
    with (``forall k :: ... a[k] ...``). They state nothing, so they cannot make a check
    verify that would not."""
    lines, arguments, before, after = [], [], [], []
    for parameter, value in zip(signature.parameters, values, strict=True):
        name = parameter.name
        if parameter.type == ARRAY and isinstance(value, tuple):
            lines.append(f"var {name} := new int[{len(value)}];")
            if value:
                cells = ", ".join(f"{name}[{k}]" for k in range(len(value)))
                lines.append(f"{cells} := {', '.join(map(str, value))};")
        elif isinstance(value, tuple):
            lines.append(f"var {name}: seq<int> := {literal(value)};")
        else:
            arguments.append(literal(value))
            continue
        arguments.append(name)
        if value:
            elements = ", ".join(f"{name}[{k}]" for k in range(len(value)))
            before.append(f"ghost var codegymBefore{len(before)} := [{elements}];")
            after.append(f"ghost var codegymAfter{len(after)} := [{elements}];")
    invoked = f"{method or signature.method}({', '.join(arguments)});"
    results = ", ".join(r.name for r in signature.results)
    lines.append(f"var {results} := {invoked}" if results else invoked)
    if not mention:
        return lines
    for index, result in enumerate(signature.results):
        longest = max((len(v) for o in mention if isinstance(v := o[index], tuple)), default=0)
        size = f"{result.name}.Length" if result.type == ARRAY else f"|{result.name}|"
        guarded = [f"if {k} < {size} then {result.name}[{k}] else 0" for k in range(longest)]
        if guarded:
            after.append(f"ghost var codegymResult{index} := [{', '.join(guarded)}];")
    return [*lines[:-1], *before, lines[-1], *after]


def observed(signature: Signature) -> list[str]:
    """The expressions whose values make up an outcome, after `call`."""
    return [f"{p.name}[..]" if p.type == ARRAY else p.name for p in signature.observed]


def kill_checks(cases: SpecCases, functions: Iterable[str], tag: str) -> tuple[str, tuple[KillCheck, ...]]:
    """The check methods for ``cases`` (named ``CodegymKill<tag>x<n>``) and which mutants each
    kills; ``functions``: every function and predicate the file declares (given fuel)."""
    pairs: dict[tuple[int, Outcome], list[int]] = {}
    for index, mutant in enumerate(cases.mutants):
        differing = [i for i, o in enumerate(mutant.outcomes) if o != cases.reference[i]][:PER_MUTANT]
        for i in differing:
            pairs.setdefault((i, mutant.outcomes[i]), []).append(index)
    depth = 3 + max((len(v) if isinstance(v, tuple) else 0 for row in cases.inputs for v in row), default=0)
    fuel = "".join(f"{{:fuel {name},{depth}}} " for name in dict.fromkeys(functions))
    expressions = observed(cases.signature)
    texts, checks = [], []
    for number, ((i, outcome), killed) in enumerate(pairs.items()):
        name = f"CodegymKill{tag}x{number}"
        claim = " && ".join(f"{e} == {literal(v)}" for e, v in zip(expressions, outcome, strict=True))
        statements = call(cases.signature, cases.inputs[i], mention=(cases.reference[i], outcome))
        body = [*statements, f"assert !({claim});"]
        texts.append(f"method {fuel}{name}()\n{{\n" + "".join(f"  {line}\n" for line in body) + "}\n")
        checks.append(KillCheck(name, tuple(killed)))
    return "\n" + "\n".join(texts), tuple(checks)


def assemble_answer(trusted: str, answer: str, target: str, cases: SpecCases) -> Assembly:
    """The file a spec answer is verified in: `program.assemble_spec`'s, with the kill checks
    of ``cases`` appended (raises `lexer.LexError` for an answer that does not lex). The env
    grades every answer in it, and `mutants.ruled_out` the program's own specification."""
    assembly = assemble_spec(trusted, answer, target)
    functions = [d.name for d in declarations(assembly.text) if d.kind in ("function", "predicate")]
    text, kills = kill_checks(cases, functions, assembly.canary.removeprefix("CodegymCanary"))
    return replace(assembly, text=assembly.text + text, kills=kills)
