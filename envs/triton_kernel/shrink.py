"""Smaller sizes for a KernelBench problem on the CPU: pure functions of its source.

KernelBench sizes its problems for a GPU (a softmax over 4096 x 393216, an 8192-cube
matmul); on a CPU the reference alone would exhaust the sandbox's memory, and Triton's
interpreter would take hours over the candidate. A problem's sizes are, by KernelBench's
convention, module-level constants that ``get_inputs`` and ``get_init_inputs`` read, so
they can be replaced in the module's globals before either runs, alike for the reference
and the candidate (``problem.load``); the candidate's ``ModelNew`` sees them only through
its constructor arguments and its inputs, never as globals.

`analyse` finds those constants with `ast` (nothing runs): the integers (or tuples of
integers) reached from ``get_inputs`` and ``get_init_inputs``, directly or through other
constants (``hidden = 4 * dim``: derived ones are recomputed, never scaled themselves).
`search` then halves the largest of the scalable ones (every constant tied with it too),
keeping each at least `MIN_SIZE` and, where it can, multiples where the originals were
multiples (``in_features % groups == 0``), and asks a measure (run by ``sizing`` in the
sandbox, on PyTorch's meta device) after each step, until the problem fits `Budget`; a
step the model refuses (a group norm whose channels no longer divide) is undone. Left alone:
integers of at most `SCALE_ABOVE` (axes, kernel sizes, channel counts like 3), constants
named like window geometry (kernel, stride, padding, dilation, window), and constants
other code reads (``Model`` itself, a module-level statement): changing them would change
the model the prompt shows, or what ``ModelNew``, which cannot see them, must compute.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

ROOTS = ("get_inputs", "get_init_inputs")
CPU_SHAPES = "cpu_shapes"  # a problem's own dict of module globals to use on the CPU
SCALE_ABOVE = 16  # integers up to this are never scaled (axes, kernel sizes, RGB channels)
MIN_SIZE = 4  # a scaled integer never drops below this
DIVISOR_UP_TO = 64  # a size this small that divides another (groups, heads) keeps dividing it
LARGE_LITERAL = 1024  # an integer written into get_inputs this large is a size no constant sets
MAX_STEPS = 256  # measurements per search
WINDOW = re.compile(r"kernel|stride|pad|dilation|window", re.IGNORECASE)

Slot = tuple[str, int]  # (constant, index in its tuple; -1 for a plain int)


@dataclass(frozen=True)
class Budget:
    """What a problem may use on the CPU. The candidate's kernels run in Triton's
    interpreter, one Python-level program instance at a time, so the budget is small:
    a 256-cube matmul (2^25 flops) or a 256 x 384 softmax fit.

    Attributes:
        elements: Elements of the inputs, the parameters and the outputs together.
        activations: Elements of every tensor the reference's forward creates.
        flops: Flops of its matmuls and convolutions (torch's flop counter).
    """

    elements: int = 1 << 18
    activations: int = 1 << 20
    flops: int = 1 << 26


BUDGET = Budget()


@dataclass(frozen=True)
class Measurement:
    """One problem at one set of sizes, as the sandbox measured it (``error``: it failed)."""

    elements: int = 0
    activations: int = 0
    flops: int = 0
    how: str = "meta"  # "meta" (shapes only), "real" (ran on the CPU) or "inputs" (inputs only)
    error: str | None = None
    note: str | None = None  # why it is not "meta" (the meta device's error)

    def fits(self, budget: Budget = BUDGET) -> bool:
        return (
            self.error is None
            and self.elements <= budget.elements
            and self.activations <= budget.activations
            and self.flops <= budget.flops
        )

    def describe(self) -> str:
        if self.error is not None:
            return self.error
        if self.how == "inputs":
            return f"{self.elements} elements in its inputs alone (its forward fails on the meta device: {self.note})"
        return f"{self.elements} elements, {self.activations} in the forward's tensors, {self.flops} flops"


@dataclass(frozen=True)
class Shapes:
    """The sizes a task runs at.

    Attributes:
        values: Every size constant (int, or tuple of ints) reached from ``get_inputs``
            and ``get_init_inputs``, as used: ``info["shapes"]``.
        overrides: The module globals replaced in the problem (what the plan carries).
        origin: ``"task"`` (its own sizes), ``"cpu_shapes"`` (the problem's own CPU sizes)
            or ``"shrunk"`` (found by `search`).
    """

    values: Mapping[str, Any]
    overrides: Mapping[str, Any]
    origin: Literal["task", "cpu_shapes", "shrunk"]


@dataclass(frozen=True, eq=False)
class Sizes:
    """What `analyse` found in a problem's source.

    Attributes:
        original: Every module-level constant it could evaluate, by name (final values).
        sizes: The int (or int tuple) constants reached from get_inputs / get_init_inputs.
        slots: What `search` may scale: (constant, tuple index or -1).
        derived: Size constants computed from others (recomputed, never scaled).
        pinned: Size constants that other code reads too (``Model``, a module-level
            statement), or that something other than a constant assignment rebinds.
        literals: Large integers written inside get_inputs / get_init_inputs themselves.
        cpu_shapes: The problem's ``cpu_shapes`` dict, if it has one.
        cpu_shapes_error: Why its ``cpu_shapes`` is unusable (not a literal dict).
    """

    original: Mapping[str, Any]
    sizes: tuple[str, ...]
    slots: tuple[Slot, ...]
    derived: tuple[str, ...]
    pinned: tuple[str, ...]
    literals: tuple[int, ...]
    cpu_shapes: Mapping[str, Any] | None
    cpu_shapes_error: str | None
    program: tuple[tuple[str, ast.expr, bool], ...] = field(repr=False)  # (name, value, final?)


# --- analysis -----------------------------------------------------------------------------------


def analyse(source: str) -> Sizes:
    """The size constants of a problem file (a `SyntaxError` if it does not parse)."""
    tree = ast.parse(source)
    constants: dict[str, Any] = {}
    program: list[tuple[str, ast.expr]] = []
    deps: dict[str, set[str]] = {}
    elsewhere: set[str] = set()  # globals read by code other than the input functions
    rebound: set[str] = set()  # names bound by something other than a constant assignment
    functions: dict[str, ast.AST] = {}
    cpu_shapes: Mapping[str, Any] | None = None
    cpu_error: str | None = None
    for statement in tree.body:
        pairs = _assignments(statement)
        if pairs is not None:
            for name, value in pairs:
                if name == CPU_SHAPES:
                    cpu_shapes, cpu_error = _literal_dict(value)
                    continue
                loads = _loads(value)
                try:
                    constants[name] = _evaluate(value, constants)
                except _Opaque:
                    elsewhere.update(loads)
                    rebound.add(name)
                    constants.pop(name, None)
                    continue
                program.append((name, value))
                deps[name] = loads & set(constants)
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[statement.name] = statement
            elsewhere.update(_decorations(statement))  # (defaults are bound once, at definition)
        elif isinstance(statement, ast.ClassDef):
            elsewhere.update(_class_loads(statement))
        else:
            elsewhere.update(_loads(statement))
        rebound.update(n for node in _scope([statement]) for n in _bound_here(node))
    roots = _root_functions(functions)
    for name, function in functions.items():
        if name not in roots:
            elsewhere.update(_free_names(function))
    read = set().union(*(_free_names(functions[name]) for name in roots)) if roots else set()
    reached = _closure(read & set(constants), deps)
    pinned = _closure((elsewhere | rebound) & set(constants), deps)
    last = {name: i for i, (name, _) in enumerate(program)}
    sizes = tuple(n for n in constants if n in reached and _is_size(constants[n]))
    slots = tuple(
        slot
        for name in sizes
        if not deps[name] and name not in pinned and not WINDOW.search(name)
        for slot in _slots(name, constants[name])
    )
    literals = sorted({v for name in roots for v in _int_literals(functions[name]) if v > LARGE_LITERAL})
    return Sizes(
        original=constants,
        sizes=sizes,
        slots=slots,
        derived=tuple(n for n in sizes if deps[n]),
        pinned=tuple(n for n in sizes if n in pinned),
        literals=tuple(literals),
        cpu_shapes=cpu_shapes,
        cpu_shapes_error=cpu_error,
        program=tuple((name, value, last[name] == i) for i, (name, value) in enumerate(program)),
    )


def evaluate(sizes: Sizes, bases: Mapping[str, Any]) -> dict[str, Any]:
    """Every constant of the problem with ``bases`` replacing the final binding of those
    names (lists become tuples where the original was one) and the derived ones recomputed;
    `ValueError` if a derived one cannot be (a division by zero)."""
    env: dict[str, Any] = {}
    for name, value, final in sizes.program:
        if final and name in bases:
            env[name] = _like(bases[name], sizes.original.get(name))
            continue
        try:
            env[name] = _evaluate(value, env)
        except (_Opaque, ArithmeticError, TypeError, ValueError) as e:
            raise ValueError(f"{name} cannot be computed at these sizes: {e}") from e
    return env


def shapes(sizes: Sizes, bases: Mapping[str, Any], origin: Literal["task", "cpu_shapes", "shrunk"]) -> Shapes:
    """The `Shapes` of the problem with ``bases`` applied (extra names, as ``cpu_shapes``
    may set, are overridden as given)."""
    env = evaluate(sizes, bases)
    overrides = {n: v for n, v in env.items() if v != sizes.original.get(n)}
    overrides.update({n: v for n, v in bases.items() if n not in env})
    values = {n: env[n] for n in sizes.sizes}
    values.update({n: v for n, v in bases.items() if n not in env})
    return Shapes(values=values, overrides=overrides, origin=origin)


def accepts(sizes: Sizes, bases: Mapping[str, Any]) -> bool:
    """Whether ``bases`` (a sizing report's) changes only what `search` may: scalable
    constants, each an int (a list of ints for a tuple) from 1 to its original value."""
    scalable = {name for name, _ in sizes.slots}
    for name, value in bases.items():
        original = sizes.original.get(name)
        if name not in scalable or isinstance(value, (list, tuple)) != isinstance(original, (list, tuple)):
            return False
        got, want = _ints(value), _ints(original)
        if len(got) != len(want) or not all(type(g) is int and 1 <= g <= w for g, w in zip(got, want, strict=True)):
            return False
    return True


def why_not_shrinkable(sizes: Sizes) -> str | None:
    """Why `search` would find nothing to scale in a problem that looks GPU-sized (large
    integers written into its input functions, or size constants other code reads); None
    when it has something to scale or looks small already."""
    if sizes.slots or sizes.cpu_shapes is not None:
        return None
    big = [n for n in sizes.pinned if any(v > LARGE_LITERAL for v in _ints(sizes.original[n]))]
    if big:
        return (
            f"its size constants {', '.join(big)} are read by Model or other module code too, "
            "so changing them would change the model; give it a cpu_shapes dict"
        )
    if sizes.literals:
        return (
            f"its sizes are written inside get_inputs/get_init_inputs (e.g. {sizes.literals[-1]}) rather than "
            "as module-level constants; make them constants or give it a cpu_shapes dict"
        )
    return None


# --- search -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    """What `search` found: ``bases`` (None when nothing fits) and why."""

    bases: dict[str, Any] | None
    measurement: Measurement
    steps: int
    reason: str = ""


def search(sizes: Sizes, measure: Callable[[Mapping[str, Any]], Measurement], budget: Budget = BUDGET) -> SearchResult:
    """The least shrink that fits ``budget``: from the problem's own sizes, halve the
    largest scalable integer (and all tied with it) until ``measure`` of the overrides fits.
    A step that fails (a pooling window larger than the shrunk image) is undone; tied
    integers are then tried one at a time, and one that fails alone stays. The overrides
    passed to ``measure`` are `shapes`' (derived constants recomputed)."""
    current = {slot: _get(sizes.original, slot) for slot in sizes.slots}
    divisors = _divisor_map(sizes)
    measurement = measure({})
    if measurement.error is not None:
        return SearchResult(None, measurement, 1, f"its Model fails at the problem's own sizes: {measurement.error}")
    steps, frozen, alone, failed = 1, set[Slot](), set[Slot](), ""
    while not measurement.fits(budget):
        movable = [s for s in current if s not in frozen and current[s] > MIN_SIZE]
        if not movable or steps >= MAX_STEPS:
            reason = _too_big(sizes, current, measurement, budget)
            return SearchResult(None, measurement, steps, reason + (f"; smaller, it fails: {failed}" if failed else ""))
        top = max(current[s] for s in movable)
        group = [s for s in movable if current[s] == top]
        if len(group) > 1 and alone.intersection(group):  # (they failed together: one at a time)
            group = [next(s for s in group if s in alone)]
        halved = {**current, **{s: max(MIN_SIZE, top // 2) for s in group}}
        proposal = _keep_divisors(halved, sizes, divisors)
        if all(proposal[s] >= current[s] for s in group):  # (a relation of powers of two by chance?)
            proposal = halved  # the measure says whether the model needs it
        trial = None
        if any(proposal[s] < current[s] for s in group):
            try:
                candidate = shapes(sizes, _bases(sizes, proposal), "shrunk")
            except ValueError:
                pass
            else:
                steps += 1
                trial = measure(candidate.overrides)
        if trial is None or trial.error is not None:
            failed = trial.error if trial is not None and trial.error else failed
            (alone if len(group) > 1 else frozen).update(group)
            continue
        current, measurement = proposal, trial
    changed = any(current[s] != _get(sizes.original, s) for s in current)
    return SearchResult(_bases(sizes, current) if changed else {}, measurement, steps)


def _too_big(sizes: Sizes, current: Mapping[Slot, int], measurement: Measurement, budget: Budget) -> str:
    limits = f"{budget.elements} elements, {budget.activations} in the forward's tensors, {budget.flops} flops"
    over = f"{measurement.describe()} (budget: {limits})"
    if not sizes.slots:
        reason = why_not_shrinkable(sizes) or "it has no module-level size constant to shrink"
        return f"at its own sizes it needs {over}, and {reason}"
    smallest = ", ".join(f"{_slot_name(s)}={v}" for s, v in current.items())
    return f"even at {smallest} it needs {over}"


def _bases(sizes: Sizes, current: Mapping[Slot, int]) -> dict[str, Any]:
    bases: dict[str, Any] = {}
    for (name, index), value in current.items():
        if index < 0:
            bases[name] = value
        else:
            items = list(bases.get(name, sizes.original[name]))
            items[index] = value
            bases[name] = tuple(items)
    return bases


def _divisor_map(sizes: Sizes) -> dict[Slot, list[Slot]]:
    """For each scalable int, the other integer size slots of at most `DIVISOR_UP_TO` whose
    original value divides its own (and is smaller, or equal and earlier): they must still
    divide it. (Larger ones that divide it are mostly powers of two by chance: 4096 divides
    393216, and keeping it so would round a 384 up to a power of two.)"""
    every = [
        slot
        for name in sizes.sizes
        if name not in sizes.derived
        for slot in _slots(name, sizes.original[name], everything=True)
    ]
    order = {slot: i for i, slot in enumerate(every)}
    found: dict[Slot, list[Slot]] = {}
    for b in sizes.slots:
        vb = _get(sizes.original, b)
        found[b] = [
            a
            for a in every
            if a != b
            and 2 <= (va := _get(sizes.original, a)) <= min(vb, DIVISOR_UP_TO)
            and vb % va == 0
            and (va < vb or order[a] < order[b])
        ]
    return found


def _keep_divisors(proposal: dict[Slot, int], sizes: Sizes, divisors: Mapping[Slot, list[Slot]]) -> dict[Slot, int]:
    """``proposal`` with each scalable int rounded up to a multiple of its divisors' new
    values (never above its original)."""
    result = dict(proposal)
    for b in sorted(result, key=lambda s: _get(sizes.original, s)):
        multiple = math.lcm(*(result.get(a, _get(sizes.original, a)) for a in divisors.get(b, [])), 1)
        if result[b] % multiple:
            result[b] = min(_get(sizes.original, b), -(-result[b] // multiple) * multiple)
    return result


# --- helpers ------------------------------------------------------------------------------------


class _Opaque(Exception):
    """An expression outside what the analysis evaluates."""


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}  # fmt: skip
_CALLS: dict[str, Callable[..., Any]] = {"int": int, "float": float, "min": min, "max": max, "abs": abs}


def _evaluate(node: ast.expr, env: Mapping[str, Any]) -> Any:
    """The value of a constant expression: literals, names of earlier constants, tuples,
    arithmetic, int/float/min/max/abs; `_Opaque` for anything else."""
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, (int, float, str)):
            return node.value
        raise _Opaque("a constant of another type")
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise _Opaque(node.id)
        return env[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_evaluate(e, env) for e in node.elts if not isinstance(e, ast.Starred)]
        if len(items) != len(node.elts):
            raise _Opaque("starred")
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _evaluate(node.operand, env)
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left, env), _evaluate(node.right, env)
        if isinstance(node.op, ast.Pow) and isinstance(right, int) and right > 64:
            raise _Opaque("a huge power")
        return _BINARY[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS
        and node.func.id not in env and not node.keywords
    ):  # fmt: skip
        return _CALLS[node.func.id](*(_evaluate(a, env) for a in node.args))
    raise _Opaque(type(node).__name__)


def _assignments(statement: ast.stmt) -> list[tuple[str, ast.expr]] | None:
    """``[(name, value expression)]`` of a plain module-level assignment (``a = b = 1``,
    ``h, w = 32, 32``, ``n: int = 4``); None for any other statement."""
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
        return [(statement.target.id, statement.value)]
    if not isinstance(statement, ast.Assign):
        return None
    pairs: list[tuple[str, ast.expr]] = []
    for target in statement.targets:
        if isinstance(target, ast.Name):
            pairs.append((target.id, statement.value))
        elif (
            isinstance(target, ast.Tuple) and isinstance(statement.value, ast.Tuple)
            and len(target.elts) == len(statement.value.elts)
            and all(isinstance(t, ast.Name) for t in target.elts)
        ):  # fmt: skip
            pairs.extend((t.id, v) for t, v in zip(target.elts, statement.value.elts, strict=True))  # type: ignore[attr-defined]
        else:
            return None
    return pairs


def _literal_dict(node: ast.expr) -> tuple[Mapping[str, Any] | None, str | None]:
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None, f"{CPU_SHAPES} must be a literal dict of module globals, like {{'batch_size': 4, 'dim': 64}}"
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        return None, f"{CPU_SHAPES} must be a dict from names of module globals to their CPU values"
    return value, None


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _scope(nodes: Iterable[ast.AST]) -> Iterable[ast.AST]:
    """Every node under ``nodes`` in their scope: nested functions, lambdas and classes are
    yielded but not entered."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _decorations(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Globals read when the definition runs: decorators and default values."""
    parts: list[ast.AST] = [*function.args.defaults, *(d for d in function.args.kw_defaults if d is not None)]
    if not isinstance(function, ast.Lambda):
        parts += function.decorator_list
    return set().union(*(_loads(p) for p in parts)) if parts else set()


def _free_names(function: ast.AST, enclosing: frozenset[str] = frozenset()) -> set[str]:
    """The global names a function (or lambda) reads when it runs."""
    assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    args = function.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    body: list[ast.AST] = [function.body] if isinstance(function, ast.Lambda) else list(function.body)
    inner = list(_scope(body))
    declared = {n for node in inner if isinstance(node, ast.Global) for n in node.names}
    bound = (params | {n for node in inner for n in _bound_here(node)}) - declared
    visible = enclosing | bound
    free: set[str] = set()
    for node in inner:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in visible:
            free.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            free |= {n for n in _decorations(node) if n not in visible}
            free |= _free_names(node, frozenset(visible))
        elif isinstance(node, ast.ClassDef):
            free |= {n for n in _class_loads(node) if n not in visible}
    return free


def _bound_here(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return {node.id}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.ExceptHandler) and node.name:
        return {node.name}
    return set()


def _class_loads(cls: ast.ClassDef) -> set[str]:
    """The global names a class definition and its methods read."""
    reads: set[str] = set().union(*(_loads(n) for n in [*cls.bases, *cls.keywords, *cls.decorator_list]))
    body = list(_scope(cls.body))
    local = {n for node in body for n in _bound_here(node)}
    for node in body:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
            reads.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            reads |= _decorations(node) | _free_names(node)  # methods do not see the class's names
        elif isinstance(node, ast.ClassDef):
            reads |= _class_loads(node)
    return reads


def _root_functions(functions: Mapping[str, ast.AST]) -> set[str]:
    """get_inputs, get_init_inputs and the module-level functions they call."""
    roots = {name for name in ROOTS if name in functions}
    todo = list(roots)
    while todo:
        for name in _free_names(functions[todo.pop()]):
            if name in functions and name not in roots:
                roots.add(name)
                todo.append(name)
    return roots


def _closure(names: set[str], deps: Mapping[str, set[str]]) -> set[str]:
    seen, todo = set(names), list(names)
    while todo:
        for dep in deps.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def _is_size(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return bool(value) and all(type(v) is int for v in value)
    return type(value) is int


def _ints(value: Any) -> list[int]:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _slots(name: str, value: Any, *, everything: bool = False) -> list[Slot]:
    """The scalable integers of a constant (all its integers when ``everything``)."""
    if isinstance(value, (tuple, list)):
        return [(name, i) for i, v in enumerate(value) if everything or v > SCALE_ABOVE]
    return [(name, -1)] if everything or value > SCALE_ABOVE else []


def _get(values: Mapping[str, Any], slot: Slot) -> int:
    name, index = slot
    return values[name] if index < 0 else values[name][index]


def _slot_name(slot: Slot) -> str:
    return slot[0] if slot[1] < 0 else f"{slot[0]}[{slot[1]}]"


def _int_literals(node: ast.AST) -> list[int]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and type(n.value) is int]


def _like(value: Any, original: Any) -> Any:
    """``value`` as a tuple where the original was one (JSON turns tuples into lists)."""
    return tuple(value) if isinstance(original, tuple) and isinstance(value, list) else value
