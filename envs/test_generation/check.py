"""Collecting and running submitted tests: the runner's rules, stdlib only.

The sandbox's test process (`codegym.envs.test_generation.runner`) collects tests with
`collect`; an agent's workspace gets this file as it is, so ``./run_tests`` runs tests
against the shown reference by the same rules (`main`).
"""

from __future__ import annotations

import ast
import contextlib
import re
import sys
import traceback
import types
from collections.abc import Callable, Iterator
from typing import Any

Statement = tuple[str | None, int, Any]  # a top-level assert's test name (else None), its line, its code


def compile_tests(source: str, filename: str) -> list[Statement]:
    """Each top-level statement of ``source``, compiled (once: every run execs the same)."""
    compiled: list[Statement] = []
    for statement in ast.parse(source).body:
        code = compile(ast.Module(body=[statement], type_ignores=[]), filename, "exec")
        name = None
        if isinstance(statement, ast.Assert):
            name = f"line {statement.lineno}: {ast.get_source_segment(source, statement) or 'assert'}"[:200]
        compiled.append((name, statement.lineno, code))
    return compiled


def collect(
    source: str | list[Statement], namespace: dict[str, Any], filename: str
) -> Iterator[tuple[str, Callable[[], None]]]:
    """The tests of ``source`` (text, or `compile_tests` of it), in order, each a name and a
    callable that runs it.

    Each top-level ``assert`` is a test (named by its line); the other top-level statements
    run in order as set-up, and one that raises fails as a test of its own and ends the
    module. Then every function named ``test*`` the module defined, in order (a
    ``@pytest.mark.parametrize``'d one once per case), and every ``test*`` method of a
    ``Test*`` class, each on a fresh instance. Code objects carry ``filename`` (the file that
    holds ``source``: tracebacks then show its lines).
    """
    statements = compile_tests(source, filename) if isinstance(source, str) else source
    for name, line, code in statements:
        if name is not None:
            yield name, (lambda code=code: exec(code, namespace))
            continue
        failed: list[BaseException] = []
        try:
            exec(code, namespace)
        except BaseException as e:  # (sys.exit at import included: the module failed)
            failed.append(e)
        if failed:
            error = failed[0]

            def reraise(error: BaseException = error) -> None:
                raise error

            yield f"module line {line}", reraise
            return
    yield from _test_functions(namespace)


def _test_functions(namespace: dict[str, Any]) -> Iterator[tuple[str, Callable[[], None]]]:
    for name, value in list(namespace.items()):
        if name.startswith("test") and isinstance(value, types.FunctionType):
            yield from _cases(name, value)
        elif name.startswith("Test") and isinstance(value, type):
            for method in [m for m in vars(value) if m.startswith("test") and callable(vars(value)[m])]:
                yield f"{name}.{method}", (lambda cls=value, method=method: getattr(cls(), method)())


def _cases(name: str, function: Callable[..., Any]) -> Iterator[tuple[str, Callable[[], None]]]:
    cases = getattr(function, "codegym_parametrize", None)
    if not cases:
        yield name, function
        return
    for i, kwargs in enumerate(cases):
        yield f"{name}[{i}]", (lambda kwargs=kwargs: function(**kwargs))


def pytest_module() -> types.ModuleType:
    """The parts of pytest tests use most: ``raises``, ``approx``, ``fail`` and
    ``mark.parametrize`` (pytest itself is not in the sandbox)."""
    module = types.ModuleType("pytest")
    module.raises = _raises  # type: ignore[attr-defined]
    module.approx = _Approx  # type: ignore[attr-defined]
    module.fail = _fail  # type: ignore[attr-defined]
    module.mark = types.SimpleNamespace(parametrize=_parametrize)  # type: ignore[attr-defined]
    return module


@contextlib.contextmanager
def _raises(
    expected: type[BaseException] | tuple[type[BaseException], ...], match: str | None = None
) -> Iterator[None]:
    try:
        yield
    except expected as e:
        if match is not None and not re.search(match, str(e)):
            raise AssertionError(f"{type(e).__name__}({e!s}) does not match {match!r}") from None
        return
    raise AssertionError(f"DID NOT RAISE {expected}")


def _fail(reason: str = "") -> None:
    raise AssertionError(reason or "failed")


class _Approx:
    def __init__(self, expected: Any, rel: float = 1e-6, abs: float = 1e-12) -> None:
        self.expected, self.rel, self.abs = expected, rel, abs

    def __eq__(self, other: object) -> bool:
        return _near(other, self.expected, self.rel, self.abs)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"approx({self.expected!r})"


def _near(got: Any, expected: Any, rel: float, tol: float) -> bool:
    if isinstance(expected, list | tuple) and isinstance(got, list | tuple):
        return len(got) == len(expected) and all(_near(g, e, rel, tol) for g, e in zip(got, expected, strict=True))
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return abs(got - expected) <= max(tol, rel * abs(expected))
    return bool(got == expected)


def _parametrize(names: str | list[str] | tuple[str, ...], values: list[Any]) -> Callable[[Any], Any]:
    keys = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)

    def mark(function: Any) -> Any:
        rows = [dict(zip(keys, row if len(keys) > 1 else (row,), strict=True)) for row in values]
        function.codegym_parametrize = [*rows, *getattr(function, "codegym_parametrize", [])]
        return function

    return mark


def main() -> int:
    """Run ``test_solution.py`` against ``solution.py`` in this folder (a workspace's
    ``./run_tests``); exit status 1 when a test fails."""
    sys.path.insert(0, ".")
    entry = sys.argv[1]
    function = getattr(__import__("solution"), entry)
    sys.modules["pytest"] = pytest_module()
    with open("test_solution.py", encoding="utf-8") as handle:
        source = handle.read()
    namespace: dict[str, Any] = {"__name__": "test_solution", entry: function, "candidate": function}
    failed = total = 0
    for name, run in collect(source, namespace, filename="test_solution.py"):
        total += 1
        try:
            run()
            print(f"PASS {name}")
        except BaseException:  # (whatever a test raises fails it)
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc(limit=-3, file=sys.stdout)
    print(f"{total - failed} of {total} tests passed on solution.py")
    return 1 if failed or not total else 0


if __name__ == "__main__":
    raise SystemExit(main())
