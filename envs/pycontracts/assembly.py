"""What CrossHair checks: the module the harness writes around an answer (pure).

The answer is ``solution.py``, as the agent wrote it; CrossHair never checks the answer's own
function, whose docstring is the agent's. It checks `MODULE`, written here:

- a wrapper with the task's signature (CrossHair makes its symbolic inputs from the
  annotations) and a docstring of the task's hidden ``pre:``/``post:`` lines, which calls the
  answer on a deep copy of its arguments (so a postcondition reads the arguments as they were
  passed, whatever the answer did to its own copy) through `CALL`, which turns the exceptions
  CrossHair would not count (``SystemExit``, ``RecursionError``, ...) into ordinary ones;
- ``codegym_diff_reference`` and ``codegym_diff_candidate``: the reference and the answer,
  each behind the preconditions (an input that breaks one returns None from both, so only
  inputs the contract covers can differ), for CrossHair's behavioural diff;
- ``codegym_canary``: ``post: __return__ != <nonce>`` over ``return n``, refuted by
  ``n = <nonce>`` whenever CrossHair works, and by nothing else. It is checked last.

The module and the reference travel to the runner on its standard input, never as files.
`Budget` is CrossHair's search budget for one kind of check.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from codegym.task import Task

MODULE = "contracts.py"
# What conditions may name besides the arguments, ``__return__`` and builtins (the replay
# harness's namespace imports the same).
CONDITION_MODULES = ("bisect", "collections", "functools", "heapq", "itertools", "math", "operator", "re", "string")
HEADER = (
    "import copy as codegym_copy\n"
    f"import {', '.join(CONDITION_MODULES)}\n"
    "from typing import Any, Dict, List, Optional, Set, Tuple, Union\n\n"
    "from solution import {entry} as codegym_candidate\n"
    "from codegym_reference import {entry} as codegym_reference\n"
)


# Every call of the answer (and of the reference, for the diff) goes through this: on a deep
# copy of the arguments, and with the exceptions CrossHair does not count as a failure (it lets
# KeyboardInterrupt and SystemExit through, and gives up on a path that recursed too deep) made
# an ordinary one, so that an answer cannot hide a wrong input behind them. (CrossHair's own
# control-flow exceptions derive from BaseException directly, and pass.)
CALL = """

def codegym_call(function, arguments):
    try:
        return function(*codegym_copy.deepcopy(arguments))
    except (KeyboardInterrupt, SystemExit, GeneratorExit, RecursionError) as escaped:
        raise RuntimeError(f"the function raised {type(escaped).__name__}") from None
"""


@dataclass(frozen=True)
class Budget:
    """CrossHair's budget for one search (a postcondition, the diff, the canary).

    Attributes:
        max_iterations: Paths explored at most: the budget proper. A search that spends it,
            or runs out of paths, has completed.
        per_condition_timeout: CPU seconds the search may take; one stopped by it before its
            paths were spent did not complete (``TLE``).
        per_path_timeout: Seconds one path may take before it is given up as unknown.
    """

    max_iterations: int
    per_condition_timeout: float
    per_path_timeout: float

    def __post_init__(self) -> None:
        if self.max_iterations < 1 or self.per_condition_timeout <= 0 or self.per_path_timeout <= 0:
            raise ValueError(f"a Budget needs max_iterations >= 1 and positive timeouts, got {self}")


CANARY_BUDGET = Budget(max_iterations=50, per_condition_timeout=20.0, per_path_timeout=5.0)


@dataclass(frozen=True)
class Assembly:
    """The module CrossHair checks for one answer.

    Attributes:
        text: Its source.
        entry_point: The wrapper's (and the answer's) function name.
        nonce: The canary's value, fresh for each assembly.
        tag: What the runner's report must carry, fresh for each assembly.
    """

    text: str
    entry_point: str
    nonce: int
    tag: str


def assemble(task: Task, nonce: int, tag: str) -> Assembly:
    """The module for ``task``'s contracts, with ``nonce`` as the canary's value and ``tag``
    for the runner's report."""
    entry = str(task.metadata["entry_point"])
    params: Sequence[tuple[str, str]] = task.metadata["params"]
    pre: Sequence[str] = task.metadata["pre"]
    post: Sequence[str] = task.metadata["post"]
    signature = ", ".join(f"{name}: {annotation}" for name, annotation in params)
    returns = task.metadata["returns"]
    names = ", ".join(name for name, _ in params) + ("," if len(params) == 1 else "")
    head = HEADER.format(entry=entry) + CALL
    lines = [*head.split("\n")[:-1], "", "", f"def {entry}({signature}) -> {returns}:", '    r"""']
    lines += [f"    pre: {condition}" for condition in pre]
    lines += [f"    post: {condition}" for condition in post]
    lines += ['    """', f"    return codegym_call(codegym_candidate, ({names}))", ""]
    guard = " and ".join(f"({condition})" for condition in pre) or "True"
    for which in ("reference", "candidate"):
        lines += ["", f"def codegym_diff_{which}({signature}) -> {returns}:", f"    if not ({guard}):",
                  "        return None  # (outside the contract: not compared)",
                  f"    return codegym_call(codegym_{which}, ({names}))", ""]  # fmt: skip
    lines += ["", "def codegym_canary(n: int) -> int:", '    """', f"    post: __return__ != {nonce}", '    """',
              "    return n", ""]  # fmt: skip
    return Assembly("\n".join(lines), entry, nonce, tag)


def runner_spec(task: Task, assembly: Assembly, check: Budget, diff: Budget | None) -> bytes:
    """The runner's standard input: the module, the reference, the budgets, the tag its
    report carries."""
    spec: Mapping[str, Any] = {
        "nonce": assembly.tag,
        "entry_point": assembly.entry_point,
        "module": assembly.text,
        "reference": task.reference or "",
        "check": asdict(check),
        "diff": asdict(diff) if diff is not None else None,
        "canary": asdict(CANARY_BUDGET),
    }
    return json.dumps(spec).encode()
