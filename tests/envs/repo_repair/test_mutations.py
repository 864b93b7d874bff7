"""The bug injector: each kind's exact edit, what it never touches, determinism, and a sweep over
real stdlib modules where every mutation parses, changes the AST and round-trips through `git apply`."""

from __future__ import annotations

import ast
import importlib
import random
import subprocess
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from codegym.envs.repo_repair.mutations import KINDS, Mutation, candidates, sample

PATH = "lib/mod.py"


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def mutants(source: str, kind: str, path: str = PATH) -> list[Mutation]:
    return candidates(source, path, kinds=[kind])


def only(source: str, kind: str, expected: str) -> Mutation:
    """The candidate of `kind` whose mutated file is exactly `expected` (dedented)."""
    expected = src(expected)
    found = [m for m in mutants(source, kind) if m.mutated == expected]
    assert found, f"no {kind} mutant gives:\n{expected}\nmutants:\n" + "\n---\n".join(
        m.mutated for m in mutants(source, kind)
    )
    return found[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def git_apply(repo: Path, path: str, before: str, patch: str) -> str:
    """Writes `before` at `path` in `repo`, applies `patch` with git, returns the file's new text."""
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(before.encode())
    done = subprocess.run(["git", "apply", "-"], input=patch.encode(), cwd=repo, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode() + patch
    return target.read_bytes().decode()


def assert_round_trip(repo: Path, mutation: Mutation) -> None:
    ast.parse(mutation.mutated)
    assert ast.dump(ast.parse(mutation.mutated)) != ast.dump(ast.parse(mutation.original))
    assert git_apply(repo, mutation.path, mutation.original, mutation.bug_patch()) == mutation.mutated
    assert git_apply(repo, mutation.path, mutation.mutated, mutation.fix_patch()) == mutation.original


# --- flip_operator ------------------------------------------------------------------------------

TABLE = src('''
    """Rows with a capacity."""


    class Table:
        def insert(self, row):
            # refuse when full
            if len(self.rows) < self.size:
                self.rows.append(row)
            return row
''')


def test_flip_operator_on_a_method_says_what_changed_and_where(repo: Path) -> None:
    m = only(TABLE, "flip_operator", TABLE.replace("len(self.rows) < self.size", "len(self.rows) >= self.size"))
    assert (m.kind, m.path, m.line, m.symbol) == ("flip_operator", PATH, 7, "Table.insert")
    assert m.description == "`<` became `>=` in Table.insert"
    assert m.bug_patch().startswith("diff --git a/lib/mod.py b/lib/mod.py\n--- a/lib/mod.py\n+++ b/lib/mod.py\n@@ ")
    changed = [line for line in m.bug_patch().splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ["-        if len(self.rows) < self.size:", "+        if len(self.rows) >= self.size:"]
    assert_round_trip(repo, m)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a < b", "a >= b"),
        ("a <= b", "a > b"),
        ("a == b", "a != b"),
        ("a not  in b", "a in b"),
        ("a is b", "a is not b"),
        ("a + b", "a - b"),
        ("a * b", "a / b"),
        ("a // b", "a * b"),
        ("a and b", "a or b"),
        ("(a) or (b)", "(a) and (b)"),
    ],
)
def test_flip_operator_table(before: str, after: str) -> None:
    source = f"def f(a, b):\n    return {before}  # a < b\n"
    assert f"def f(a, b):\n    return {after}  # a < b\n" in [m.mutated for m in mutants(source, "flip_operator")]


def test_flip_operator_on_augmented_assignment_and_non_ascii_line(repo: Path) -> None:
    source = 'def f(n):\n    s = "é" + "ü"\n    n += 2\n    return s, n\n'
    assert_round_trip(repo, only(source, "flip_operator", source.replace("n += 2", "n -= 2")))
    assert_round_trip(repo, only(source, "flip_operator", source.replace('"é" + "ü"', '"é" - "ü"')))


# --- change_constant ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("n + 0", "n + 1"),
        ("n + 1", "n + 0"),
        ("n + 41", "n + 42"),
        ("n + 0x1F", "n + 0x20"),
        ("n is True", "n is False"),
        ('n == "ab"', "n == 'a'"),
        ('n in ("ab", "c")', "n in (\"ab\", 'cc')"),
    ],
)
def test_change_constant_table(before: str, after: str) -> None:
    source = f"def f(n):\n    return {before}\n"
    assert f"def f(n):\n    return {after}\n" in [m.mutated for m in mutants(source, "change_constant")]


def test_change_constant_skips_docstrings_annotations_decorators_and_fstrings(repo: Path) -> None:
    source = src('''
        @cache(size=128)
        def f(x: Literal[5] = 3) -> Annotated[int, 7]:
            """Returns x == "doc" plus 9."""
            y: Literal[6] = 2
            return f"{x + 4}" == "z"
    ''')
    found = {m.description for m in mutants(source, "change_constant")}
    assert found == {"`3` became `4` in f", "`2` became `3` in f", "`\"z\"` became `'zz'` in f"}
    for m in mutants(source, "change_constant"):
        assert_round_trip(repo, m)


# --- swap_operands ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a - b", "b - a"),
        ("(a + 1) - b", "(b) - (a + 1)"),
        ("a ** -b", "(-b) ** a"),
        ("a < b", "b < a"),
        ("a not in b", "b not in a"),
        ("g(a, b)", "g(b, a)"),
    ],
)
def test_swap_operands_table(before: str, after: str) -> None:
    source = f"def f(a, b):\n    return {before}\n"
    assert f"def f(a, b):\n    return {after}\n" in [m.mutated for m in mutants(source, "swap_operands")]


@pytest.mark.parametrize("expr", ["a + b", "a * b", "a == b", "max(a, b)", "g(a, a)", "g(a, 1)", "a < b < a"])
def test_swap_operands_skips_symmetric_and_non_name_cases(expr: str) -> None:
    assert mutants(f"def f(a, b):\n    return {expr}\n", "swap_operands") == []


# --- invert_if ----------------------------------------------------------------------------------

BRANCHES = src("""
    def sign(x):
        if x >= 0:
            label = "plus"  # non-negative
            x = x + 1
        else:
            # negative
            label = "minus"
        return label, x
""")


def test_invert_if_swaps_branches_as_whole_lines(repo: Path) -> None:
    m = only(
        BRANCHES,
        "invert_if",
        """
        def sign(x):
            if x >= 0:
                label = "minus"
            else:
                # negative
                label = "plus"  # non-negative
                x = x + 1
            return label, x
        """,
    )
    assert m.line == 2 and m.symbol == "sign"
    assert_round_trip(repo, m)


def test_invert_if_negates_an_if_without_else_and_undoes_a_not(repo: Path) -> None:
    source = "def f(x, y):\n    if x > 0:\n        return 1\n    if not (x or y):\n        return 2\n"
    first = only(source, "invert_if", source.replace("if x > 0:", "if not x > 0:"))
    second = only(source, "invert_if", source.replace("if not (x or y):", "if x or y:"))
    assert first.description == "the `if` condition `x > 0` became `not x > 0` in f"
    assert_round_trip(repo, first)
    assert_round_trip(repo, second)


def test_invert_if_swaps_a_conditional_expression() -> None:
    source = "def f(x, y):\n    return x + 1 if x else y if y else 0\n"
    expected = source.replace("x + 1 if x else y if y else 0", "(y if y else 0) if x else x + 1")
    assert expected in [m.mutated for m in mutants(source, "invert_if")]


# --- remove_condition ---------------------------------------------------------------------------


def test_remove_condition_drops_each_operand_of_a_chain(repo: Path) -> None:
    source = "def f(a, b, c):\n    if (a and  # first\n            (b) and c):\n        return 1\n"
    found = {m.mutated for m in mutants(source, "remove_condition")}
    assert "def f(a, b, c):\n    if ((b) and c):\n        return 1\n" in found
    assert "def f(a, b, c):\n    if (a and c):\n        return 1\n" in found
    assert "def f(a, b, c):\n    if (a and  # first\n            (b)):\n        return 1\n" in found
    for m in mutants(source, "remove_condition"):
        assert_round_trip(repo, m)


def test_remove_condition_replaces_a_guard_by_its_dedented_body(repo: Path) -> None:
    source = src('''
        def f(x):
            if x:
                for i in range(2):
                    x = """
                keep
            """
            return x
    ''')
    expected = '''
        def f(x):
            for i in range(2):
                x = """
                keep
            """
            return x
    '''
    m = only(source, "remove_condition", expected)
    assert m.description == "the guard `if x:` at line 2 was removed, so its body always runs, in f"
    assert_round_trip(repo, m)


def test_an_elif_is_negated_in_place_and_never_unwrapped(repo: Path) -> None:
    source = "def f(x):\n    if x > 1:\n        x = 1\n    elif x < 0:\n        x = 0\n    return x\n"
    m = only(source, "invert_if", source.replace("elif x < 0:", "elif not x < 0:"))
    assert_round_trip(repo, m)
    # the `if` has an elif (so no guard to drop), and an elif is no statement to stand on its own
    assert [m for m in mutants(source, "remove_condition") if "guard" in m.description] == []


# --- remove_assignment --------------------------------------------------------------------------


def test_remove_assignment_deletes_the_line_or_leaves_pass(repo: Path) -> None:
    source = "def f(x):\n    y = x * 2  # twice\n    if y:\n        y += 1\n    return y\n"
    deleted = only(source, "remove_assignment", "def f(x):\n    if y:\n        y += 1\n    return y\n")
    passed = only(source, "remove_assignment", source.replace("y += 1", "pass"))
    assert deleted.description == "the assignment `y = x * 2` was removed in f"
    assert_round_trip(repo, deleted)
    assert_round_trip(repo, passed)


def test_remove_assignment_leaves_module_and_class_level_alone() -> None:
    assert mutants("X = 1\n\n\nclass A:\n    y = 2\n", "remove_assignment") == []


# --- remove_loop_or_wrapper ---------------------------------------------------------------------

WRAPPERS = src("""
    def load(path):
        try:
            with open(path) as fh:
                text = fh.read()
        except OSError:
            text = ""
        for line in text.splitlines():
            print(line)
        return text
""")


@pytest.mark.parametrize(
    "expected",
    [
        # the try by its body
        """
        def load(path):
            with open(path) as fh:
                text = fh.read()
            for line in text.splitlines():
                print(line)
            return text
        """,
        # the with by its body
        """
        def load(path):
            try:
                text = fh.read()
            except OSError:
                text = ""
            for line in text.splitlines():
                print(line)
            return text
        """,
        # the loop removed
        """
        def load(path):
            try:
                with open(path) as fh:
                    text = fh.read()
            except OSError:
                text = ""
            return text
        """,
    ],
)
def test_remove_loop_or_wrapper(repo: Path, expected: str) -> None:
    assert_round_trip(repo, only(WRAPPERS, "remove_loop_or_wrapper", expected))


def test_remove_loop_alone_in_its_block_leaves_pass() -> None:
    source = "def f(xs):\n    if xs:\n        while xs:\n            xs.pop()\n    return xs\n"
    only(source, "remove_loop_or_wrapper", "def f(xs):\n    if xs:\n        pass\n    return xs\n")


# --- shuffle_statements -------------------------------------------------------------------------


def test_shuffle_swaps_dependent_neighbours_only(repo: Path) -> None:
    source = "def f(items, x):\n    a = 1\n    b = 2\n    items.append(x)\n    n = len(items)\n    return a, b, n\n"
    found = mutants(source, "shuffle_statements")
    assert [m.mutated for m in found] == [
        source.replace("items.append(x)\n    n = len(items)", "n = len(items)\n    items.append(x)")
    ]
    assert found[0].description == "`items.append(x)` and `n = len(items)` (lines 4 and 5) were swapped in f"
    assert_round_trip(repo, found[0])


# --- drop_method --------------------------------------------------------------------------------

SHAPES = src('''
    import abc


    class Shape(abc.ABC):
        @abc.abstractmethod
        def area(self):
            return 0

        def name(self):
            """Stub."""
            raise NotImplementedError


    class Square(Shape):
        def __init__(self, side):
            self.side = side

        @property
        def side(self):
            return self._side

        @side.setter
        def side(self, value):
            self._side = value

        # the area of a square
        def area(self):
            return self.side ** 2


    class Point:
        def __init__(self, x):
            self.x = x


    class Unit(Shape):
        @staticmethod
        def area():
            return 1
''')


def test_drop_method_removes_lines_and_leaves_pass_in_an_emptied_class(repo: Path) -> None:
    found = mutants(SHAPES, "drop_method")
    assert [m.symbol for m in found] == ["Square.__init__", "Square.area", "Unit.area"]
    area = found[1]
    assert area.description == "the method `area` was removed from class `Square`"
    assert "        self._side = value\n\n\nclass Point:" in area.mutated  # comment and blank line gone too
    assert "class Square(Shape):\n    @property" in found[0].mutated
    assert "class Unit(Shape):\n    pass\n" in found[2].mutated
    for m in found:
        assert_round_trip(repo, m)


# --- drop_base_class ----------------------------------------------------------------------------


def test_drop_base_class(repo: Path) -> None:
    source = src("""
        class A(Base, Mixin, metaclass=Meta):
            def f(self):
                return 1


        class B(Base):
            def f(self):
                return 2


        class C(object):
            def f(self):
                return 3


        class D(ValueError):
            pass
    """)
    found = {m.mutated.splitlines()[m.line - 1] for m in mutants(source, "drop_base_class")}
    assert found == {"class A(Mixin, metaclass=Meta):", "class A(Base, metaclass=Meta):", "class B:"}
    for m in mutants(source, "drop_base_class"):
        assert_round_trip(repo, m)


# --- what is never mutated ----------------------------------------------------------------------


def test_guards_stubs_and_test_files_are_skipped() -> None:
    source = src('''
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            LIMIT = 1 + 2


        class Base:
            def run(self, x):
                """Run it."""
                ...

            def stop(self, x):
                raise NotImplementedError(x + 1)

            @abc.abstractmethod
            def size(self, x):
                return x - 1 < 2


        if __name__ == "__main__":
            print(3 - 4 < 5)
    ''')
    assert candidates(source, PATH) == []
    body = "def f(a, b):\n    return a < b\n"
    assert candidates(body, PATH)
    for path in ["tests/mod.py", "lib/test_mod.py", "lib/mod_test.py", "lib/testing/mod.py", "conftest.py"]:
        assert candidates(body, path) == []
    assert candidates(body, "lib/latest.py")


def test_unknown_kind_and_negative_limit_are_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown mutation kind.*'flip'"):
        candidates("x = 1\n", PATH, kinds=["flip"])
    with pytest.raises(ValueError, match="limit must be at least 0"):
        sample("x = 1\n", PATH, random.Random(0), limit=-1)


def test_file_without_final_newline_round_trips(repo: Path) -> None:
    source = "def f(a, b):\n    return a - b"
    for m in candidates(source, PATH):
        assert_round_trip(repo, m)


# --- determinism --------------------------------------------------------------------------------


def stdlib_sources() -> list[tuple[str, str]]:
    """(path relative to the library root, source) for every file of a few pure-Python stdlib modules."""
    files = []
    for name in ("json", "textwrap", "configparser"):
        origin = Path(importlib.import_module(name).__file__ or "")
        paths = sorted(origin.parent.glob("*.py")) if origin.name == "__init__.py" else [origin]
        root = origin.parent.parent if origin.name == "__init__.py" else origin.parent
        files += [(p.relative_to(root).as_posix(), p.read_text()) for p in paths]
    return files


def key(mutations: list[Mutation]) -> list[tuple[str, int, str | None, str, str]]:
    return [(m.kind, m.line, m.symbol, m.description, m.mutated) for m in mutations]


def test_candidates_and_sample_are_deterministic() -> None:
    path, source = next(item for item in stdlib_sources() if item[0] == "textwrap.py")
    assert key(candidates(source, path)) == key(candidates(source, path))
    first = sample(source, path, random.Random(7), limit=12)
    assert key(first) == key(sample(source, path, random.Random(7), limit=12))
    assert len(first) == 12
    assert len({m.kind for m in first}) == len({m.kind for m in candidates(source, path)})  # kinds taken in turn
    assert len({m.symbol for m in first}) >= 10  # spread over functions
    assert key(sample(source, path, random.Random(8), limit=12)) != key(first)
    assert {m.kind for m in sample(source, path, random.Random(0), kinds=["drop_method"], limit=3)} == {"drop_method"}


# --- a sweep over real library code -------------------------------------------------------------


CHECKED_PER_FILE_AND_KIND = 6  # parsing a whole module per mutation is what costs


@pytest.mark.slow
def test_stdlib_mutations_parse_change_the_ast_and_round_trip(repo: Path) -> None:
    """Over a few pure-Python stdlib modules: every kind is found at least ten times; of each
    kind in each file, the first few are parsed (the AST changed) and go through git apply,
    bug then fix."""
    counts: Counter[str] = Counter()
    for path, source in stdlib_sources():
        original = ast.dump(ast.parse(source))
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.encode())
        checked: Counter[str] = Counter()
        for m in candidates(source, path):
            counts[m.kind] += 1
            checked[m.kind] += 1
            if checked[m.kind] > CHECKED_PER_FILE_AND_KIND:
                continue
            assert ast.dump(ast.parse(m.mutated)) != original, m
            # bug then fix in place: the file is back to the original for the next mutation
            for patch, result in ((m.bug_patch(), m.mutated), (m.fix_patch(), m.original)):
                done = subprocess.run(
                    ["git", "apply", "-"], input=patch.encode(), cwd=repo, capture_output=True, check=False
                )
                assert done.returncode == 0, (m, done.stderr.decode())
                assert target.read_bytes() == result.encode(), m
    assert set(counts) == set(KINDS), f"counts per kind: {dict(counts)}"
    assert min(counts.values()) >= 10, f"counts per kind: {dict(counts)}"
