"""A seeded generator of small Python functions ``f`` and their inputs, for execution prediction.

Each program is deterministic from ``(seed, index, knobs)`` and terminates by construction:
its loops run over its (bounded) arguments or small ranges, it has no ``while``, no
recursion and no call that can raise (no indexing past an end, division by constants only,
``dict.get``). Its answer is never computed here: the env runs it in the sandbox.

The knobs (`Knobs`): how deep loops nest, how many ``if``/``elif`` conditions it has, which
kinds of values it works on (``int``, ``str``, ``list``, ``dict``: one argument and one
accumulator each) and how many simple statements a block holds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from codegym.task import Difficulty

KINDS = ("int", "str", "list", "dict")
PARAMS = {"int": "n", "str": "s", "list": "xs", "dict": "d"}
STATE = {"int": "acc", "str": "text", "list": "out", "dict": "counts"}
LETTERS = "abcdeiouxyzAEB0123"
# Loop variables by depth: an int value, an index, a character, a dict key.
NAMES = {"value": ("x", "y", "z", "w"), "index": ("i", "j", "k", "m"), "char": ("ch", "c", "t", "u"),
         "key": ("key", "name", "word", "tag")}  # fmt: skip


@dataclass(frozen=True)
class Knobs:
    """How hard a generated program is.

    Attributes:
        loop_depth: How deep ``for`` loops nest (0: straight-line code), 0 to 3.
        branches: ``if``/``elif`` conditions in all, 0 to 6.
        ops: The kinds of values it works on, from ``int``, ``str``, ``list``, ``dict``.
        statements: Simple statements in the innermost block (fewer elsewhere), 1 to 8.
    """

    loop_depth: int = 1
    branches: int = 1
    ops: tuple[str, ...] = ("int", "list")
    statements: int = 3

    def __post_init__(self) -> None:
        object.__setattr__(self, "ops", tuple(self.ops))
        if not 0 <= self.loop_depth <= 3:
            raise ValueError(f"loop_depth must be 0 to 3, got {self.loop_depth!r}")
        if not 0 <= self.branches <= 6:
            raise ValueError(f"branches must be 0 to 6, got {self.branches!r}")
        if not 1 <= self.statements <= 8:
            raise ValueError(f"statements must be 1 to 8, got {self.statements!r}")
        if not self.ops or set(self.ops) - set(KINDS) or len(set(self.ops)) != len(self.ops):
            raise ValueError(f"ops must be distinct kinds from {KINDS}, at least one, got {self.ops!r}")

    @property
    def difficulty(self) -> Difficulty:
        """``easy``, ``medium`` or ``hard``, from a score of loops, branches, kinds and size."""
        score = 2 * self.loop_depth + self.branches + len(self.ops) - 1 + (self.statements - 1) // 2
        return "easy" if score <= 3 else "medium" if score <= 6 else "hard"


@dataclass(frozen=True)
class Program:
    """A generated function ``f`` and the text of the arguments it is called with."""

    code: str
    input: str
    knobs: Knobs


def random_knobs(rng: random.Random) -> Knobs:
    """A mix of easy, medium and hard knobs (the default: each program draws its own)."""
    ops = tuple(sorted(rng.sample(KINDS, rng.choice((1, 1, 2, 2, 3))), key=KINDS.index))
    return Knobs(rng.choice((0, 1, 1, 2, 2, 3)), rng.randint(0, 3), ops, rng.randint(1, 4))


def generate(seed: int, index: int, knobs: Knobs | None = None) -> Program:
    """Program ``index`` of ``seed``: with ``knobs``, or knobs of its own drawn from the two."""
    rng = random.Random(f"codegym-output-prediction/{seed}/{index}/{knobs!r}")
    chosen = knobs or random_knobs(rng)
    return _Writer(rng, chosen).program()


class _Writer:
    """Writes one program; every choice from ``rng``."""

    def __init__(self, rng: random.Random, knobs: Knobs) -> None:
        self.rng = rng
        self.knobs = knobs
        self.kinds = knobs.ops
        self.branches_left = knobs.branches

    def program(self) -> Program:
        params = [PARAMS[kind] for kind in self.kinds]
        lines = [f"def f({', '.join(params)}):"]
        lines += [f"    {STATE[kind]} = {self._initial(kind)}" for kind in self.kinds]
        lines += self._block(0, [], 1)
        if self.branches_left:  # (what the loops' bodies left)
            lines += self._if_chain([], 1, self.branches_left)
        lines.append(f"    return {self._result()}")
        arguments = ", ".join(repr(self._argument(kind)) for kind in self.kinds)
        return Program("\n".join(lines) + "\n", arguments, self.knobs)

    # --- structure ---------------------------------------------------------------------------

    def _block(self, depth: int, scope: list[tuple[str, str]], indent: int) -> list[str]:
        """Statements at loop ``depth``: the innermost block holds ``statements`` of them and
        the program's conditions; outer ones one or two, and the next loop."""
        pad = "    " * indent
        innermost = depth == self.knobs.loop_depth
        count = self.knobs.statements if innermost else self.rng.randint(0, 1)
        lines = [pad + self._statement(scope) for _ in range(count)]
        if not innermost:
            header, bound = self._loop(depth)
            lines.append(pad + header)
            lines += self._block(depth + 1, scope + bound, indent + 1)
        elif self.branches_left:
            conditions = min(self.branches_left, self.rng.randint(1, 3))
            lines += self._if_chain(scope, indent, conditions)
        if self.rng.random() < 0.3:
            lines.append(pad + self._statement(scope))
        return lines

    def _if_chain(self, scope: list[tuple[str, str]], indent: int, conditions: int) -> list[str]:
        pad = "    " * indent
        self.branches_left -= conditions
        lines = []
        for number in range(conditions):
            lines.append(f"{pad}{'if' if number == 0 else 'elif'} {self._condition(scope)}:")
            lines += [f"{pad}    {self._statement(scope)}" for _ in range(self.rng.randint(1, 2))]
        if self.rng.random() < 0.6:
            lines += [f"{pad}else:", f"{pad}    {self._statement(scope)}"]
        return lines

    def _loop(self, depth: int) -> tuple[str, list[tuple[str, str]]]:
        """A loop header over something bounded, and the variables it binds (name, type)."""
        value, index = NAMES["value"][depth], NAMES["index"][depth]
        char, key = NAMES["char"][depth], NAMES["key"][depth]
        options: list[tuple[str, list[tuple[str, str]]]] = [(f"for {index} in range({self.rng.randint(2, 4)}):",
                                                             [(index, "int")])]  # fmt: skip
        cut = "" if depth == 0 else f"[:{self.rng.randint(2, 3)}]"  # (inner loops run a few times)
        if "list" in self.kinds:
            options += [(f"for {value} in xs{cut}:", [(value, "int")]),
                        (f"for {index}, {value} in enumerate(xs{cut}):", [(index, "int"), (value, "int")])]  # fmt: skip
        if "str" in self.kinds:
            options += [(f"for {char} in s{cut}:", [(char, "str")]),
                        (f"for {index}, {char} in enumerate(s{cut}):", [(index, "int"), (char, "str")])]  # fmt: skip
        if "int" in self.kinds:
            options.append(
                (f"for {index} in range(n % {self.rng.randint(3, 6) if depth == 0 else 3}):", [(index, "int")])
            )
        if "dict" in self.kinds:
            options.append((f"for {key}, {value} in sorted(d.items()):", [(key, "str"), (value, "int")]))
        return self.rng.choice(options)

    # --- statements ----------------------------------------------------------------------------

    def _statement(self, scope: list[tuple[str, str]]) -> str:
        kind = self.rng.choice(self.kinds)
        return getattr(self, f"_{kind}_statement")(scope)

    def _int_statement(self, scope: list[tuple[str, str]]) -> str:
        e = self._int(scope)
        scale, modulus = self.rng.randint(2, 5), self.rng.choice((97, 101, 1000))
        return self.rng.choice((
            f"acc += {e}", f"acc -= {e}", f"acc = (acc * {scale} + {e}) % {modulus}",
            f"acc = max(acc, {e})", f"acc = min(acc, {e})", f"acc = abs(acc - {e})",
        ))  # fmt: skip

    def _str_statement(self, scope: list[tuple[str, str]]) -> str:
        a, b = self.rng.sample("abeiouxz", 2)
        piece = self._str(scope)
        return self.rng.choice((
            f"text += {piece}", f"text += {piece}", f"text = {piece} + text", "text = text[::-1]",
            "text = text.upper()", "text = text.lower()", "text = text.swapcase()", f"text = text.strip('{a}')",
            f"text = text.replace('{a}', '{b}')", f"text = text[-{self.rng.randint(5, 12)}:]",
        ))  # fmt: skip

    def _list_statement(self, scope: list[tuple[str, str]]) -> str:
        e = self._int(scope)
        c = self.rng.randint(1, 3)
        return self.rng.choice((
            f"out.append({e})", f"out.append({e})", f"out.insert(0, {e})", "out.sort()", "out.reverse()",
            "out.sort(reverse=True)", "out = out[:-1]", f"out = [item + {c} for item in out]",
            f"out = [item for item in out if item % {c + 1} != 0]", f"out = out[-{self.rng.randint(3, 8)}:]",
        ))  # fmt: skip

    def _dict_statement(self, scope: list[tuple[str, str]]) -> str:
        key = self._key(scope)
        e = self._int(scope)
        return self.rng.choice((
            f"counts[{key}] = counts.get({key}, 0) + {e}", f"counts[{key}] = counts.get({key}, 0) + 1",
            f"counts[{key}] = {e}", f"counts.pop({key}, None)",
        ))  # fmt: skip

    # --- expressions ---------------------------------------------------------------------------

    def _int_atom(self, scope: list[tuple[str, str]]) -> str:
        atoms = [str(self.rng.randint(1, 9))] + [name for name, kind in scope if kind == "int"] * 2
        atoms += [f"ord({name}) % {self.rng.randint(3, 9)}" for name, kind in scope if kind == "str"]
        looked_up = f"d.get('{self.rng.choice('abcdef')}', 0)"
        atoms += {"int": ["n", "acc"], "str": ["len(s)", "len(text)"], "list": ["len(xs)", "len(out)", "sum(xs)"],
                  "dict": [looked_up, "len(counts)"]}[self.rng.choice(self.kinds)]  # fmt: skip
        return self.rng.choice(atoms)

    def _int(self, scope: list[tuple[str, str]]) -> str:
        a, b = self._int_atom(scope), self._int_atom(scope)
        if a.startswith("acc") or self.rng.random() < 0.5:  # (acc is never multiplied: values stay small)
            return a
        c = self.rng.randint(2, 5)
        return self.rng.choice((f"{a} + {b}", f"{a} - {b}", f"{a} * {c}", f"{a} // {c}", f"{a} % {c}",
                                f"abs({a} - {b})", f"min({a}, {b})", f"max({a}, {b})"))  # fmt: skip

    def _str(self, scope: list[tuple[str, str]]) -> str:
        pieces = [f"'{self.rng.choice('abcxyz')}'", f"str({self._int(scope)})"]
        pieces += [name for name, kind in scope if kind == "str"] * 3
        pieces += [f"{name}.upper()" for name, kind in scope if kind == "str"]
        if "str" in self.kinds:
            pieces.append(f"s[:{self.rng.randint(1, 3)}]")
        return self.rng.choice(pieces)

    def _key(self, scope: list[tuple[str, str]]) -> str:
        keys = [f"'{self.rng.choice('abcdef')}'"] + [name for name, kind in scope if kind == "str"] * 2
        keys += [f"str({name} % 4)" for name, kind in scope if kind == "int"]
        return self.rng.choice(keys)

    def _condition(self, scope: list[tuple[str, str]]) -> str:
        c = self.rng.randint(0, 6)
        options = [f"{self._int(scope)} > {c}", f"{self._int(scope)} % 2 == {c % 2}"]
        for name, kind in scope:
            if kind == "int":
                options += [f"{name} % {self.rng.randint(2, 4)} == 0", f"{name} > {c}"]
            else:
                options += [f"{name} in 'aeiou'", f"{name}.isdigit()", f"{name}.isupper()"]
        ending = self.rng.choice("abx")
        options += {"int": [f"acc > {c * 3}"], "str": [f"text.endswith('{ending}')"], "list": [f"len(out) < {c}"],
                    "dict": [f"len(counts) > {c // 2}"]}[self.rng.choice(self.kinds)]  # fmt: skip
        return self.rng.choice(options)

    def _result(self) -> str:
        chosen = self.rng.sample(self.kinds, min(len(self.kinds), self.rng.choice((1, 1, 2))))
        parts = [self.rng.choice(_RESULTS[kind]).format(c=self.rng.randint(2, 8)) for kind in chosen]
        return parts[0] if len(parts) == 1 else f"({', '.join(parts)})"

    def _initial(self, kind: str) -> str:
        return self.rng.choice({"int": ("0", "0", "n"), "str": ("''", "''", "s[:2]"), "list": ("[]", "[]", "xs[:2]"),
                                "dict": ("{}", "{}", "dict(d)")}[kind])  # fmt: skip

    def _argument(self, kind: str) -> object:
        rng = self.rng
        if kind == "int":
            return rng.randint(-4, 15)
        if kind == "str":
            return "".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 7)))
        if kind == "list":
            return [rng.randint(-5, 12) for _ in range(rng.randint(1, 7))]
        return {key: rng.randint(-3, 9) for key in sorted(rng.sample("abcdef", rng.randint(1, 4)))}


# What a program returns of each accumulator ({c}: a small constant).
_RESULTS = {
    "int": ("acc", "acc", "acc / {c}", "round(acc / 3, 3)", "acc > {c}", "acc % {c}", "float(acc)"),
    "str": ("text", "text", "len(text)", "text[:{c}]", "text.count('a')", "text.split('a')"),
    "list": ("out", "out", "sorted(out)", "tuple(out)", "set(out)", "sum(out)", "out[-{c}:]"),
    "dict": ("counts", "counts", "sorted(counts)", "sorted(counts.items())", "len(counts)"),
}
