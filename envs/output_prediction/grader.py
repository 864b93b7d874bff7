"""Answers to execution-prediction tasks: parsing, comparison and the `Grade` (pure functions).

Nothing of an answer is ever run in this process. A predicted output is Python literals, read
with `ast.literal_eval` only: a literal, or ``assert f(...) == <literal>`` (its right side). A
predicted input is any expression per argument, parsed here only to find the arguments (the
text inside ``f(...)``: ``1, 2`` is two arguments, ``(1, 2)`` one tuple; a call ``f(...)``; or
``assert f(...) == ...``) and evaluated in the sandbox (`codegym.envs.output_prediction.inputs`).
Either may be wrapped in CRUXEval's ``[ANSWER] ... [/ANSWER]`` or a fenced block. Outputs are
compared by value and type (`same`), floats within a tolerance.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from codegym.envs.python_function import codec
from codegym.envs.python_function.harness import same

from codegym.error import InvalidTask, SandboxError
from codegym.executor import RunResult
from codegym.extract import extract_code
from codegym.grade import LIMIT_STATUS, Diagnostic, Grade, Status, TestOutcome, pass_metrics

MAX_ANSWER = 64 << 10  # characters of an answer read at most
MAX_SHOWN = 300
TEST = "prediction"  # the one test of every task
_UNREADABLE = object()
_ANSWER = re.compile(r"\[ANSWER\](.*?)\[/ANSWER\]", re.S)
_NEWLINE = re.compile(rb"\r\n|\r|\n")  # (the line ends the parser counts)
LITERAL_HINT = (
    "a Python literal was expected (a number, string, bytes, list, tuple, dict, set, True, False or None, "
    "e.g. [1, 'a']); expressions, names and calls are never evaluated"
)
NOT_LITERALS = "the answer is not Python literals"
TOO_LONG = "the answer is too long"


@dataclass(frozen=True)
class Answer:
    """A parsed answer: its values (the one predicted output, or the literal arguments of a
    task's own input), the source of each argument (a predicted input, evaluated in the
    sandbox), or why it is not an answer (``error``, with the line and column of a syntax
    error, and ``message``, the grade's one line)."""

    values: tuple[Any, ...] = ()
    error: str | None = None
    line: int | None = None
    column: int | None = None
    sources: tuple[str, ...] = ()
    message: str = NOT_LITERALS
    evaluated: bool = False  # a predicted input whose arguments are not all literals: run in the sandbox

    @property
    def ok(self) -> bool:
        return self.error is None


def answer_text(raw: str) -> str:
    """The answer in ``raw``: the last ``[ANSWER] ... [/ANSWER]`` block if any, then the code
    of a fenced block if any, stripped."""
    blocks = _ANSWER.findall(raw)
    text = blocks[-1] if blocks else raw
    return extract_code(text, "python").strip()


def parse_output(raw: str) -> Answer:
    """A predicted output: a literal, or the right side of ``assert f(...) == <literal>``."""
    text = answer_text(raw)
    tree = _parse(text, LITERAL_HINT)
    if isinstance(tree, Answer):
        return tree
    node = _single(tree)
    if isinstance(node, ast.Assert):
        node = node.test
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
        node = node.comparators[0]
    if not isinstance(node, ast.expr):
        return Answer(error=f"{LITERAL_HINT}; got a statement: {_clip(text)}")
    return _literals([node], text)


def parse_input(raw: str, name: str = "f", *, no_arguments: bool = False) -> Answer:
    """A predicted input: the source of each argument of a call of ``name`` (written out, or
    the left side of ``assert name(...) == ...``), or of the text that goes inside
    ``name(...)``. Any expression is an argument: where all are literals their values are read
    (`ast.literal_eval`), else none is evaluated here (``evaluated``: the sandbox will). An
    empty answer is the call ``name()`` where ``no_arguments`` (the function takes none), else
    refused."""
    text = answer_text(raw)
    if not text and no_arguments:
        return Answer()
    found = _arguments(text, name, f"not the arguments of {name}(...)")
    if isinstance(found, Answer):
        return replace(found, message=found.message if found.message == TOO_LONG else f"the answer is not the "
                       f"arguments of {name}(...)")  # fmt: skip
    nodes, source = found
    sources = _segments(source, nodes)
    try:  # (each argument's text must read back as that argument, alone, in the sandbox)
        back = ast.parse(arguments_source(sources), mode="eval").body
        if not (isinstance(back, ast.Tuple) and len(back.elts) == len(nodes)):
            raise SyntaxError("not a tuple of the arguments")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        sources = tuple(ast.unparse(node) for node in nodes)
    literals = _literals(nodes, source)  # (literals are read here, as ever: nothing of them runs)
    if literals.ok:
        return Answer(literals.values, sources=sources)
    return Answer(sources=sources, evaluated=True)


def parse_arguments(text: str, name: str = "f") -> Answer:
    """The literal arguments ``text`` gives ``name`` (a task's own input, where its output is
    computed): a call of it, or what goes inside ``name(...)``."""
    found = _arguments(text, name, f"{LITERAL_HINT}; not the arguments of {name}(...)")
    if isinstance(found, Answer):
        return found
    return _literals(*found)


def arguments_source(sources: tuple[str, ...]) -> str:
    """The tuple expression of the arguments whose sources are ``sources`` (``()`` for none)."""
    return "(" + "".join(f"({source}), " for source in sources) + ")"


def _arguments(text: str, name: str, hint: str) -> tuple[list[ast.expr], str] | Answer:
    """The argument nodes of the call of ``name`` that ``text`` is, or that it makes when it
    goes inside ``name(...)``, with the source they are nodes of."""
    text = text.strip()
    if not text:
        return Answer(error=f"an empty answer: give the arguments that go inside {name}(...)")
    source = text
    tree = _parse(text, hint)
    if isinstance(tree, Answer) and tree.message == TOO_LONG:
        return tree
    call = None if isinstance(tree, Answer) else _call_in(_single(tree), name)
    if call is None:  # the text inside name(...): parsed as that call (a newline ends a comment)
        source = f"{name}({text}\n)"
        wrapped = _parse(source, hint)
        if isinstance(wrapped, Answer):
            return replace(wrapped, column=None)
        call = _call_in(_single(wrapped), name)
        if call is None:
            return Answer(error=f"the answer must be only the arguments that go inside {name}(...); got {_clip(text)}")
    if call.keywords:
        return Answer(error=f"keyword arguments are not accepted: pass every argument of {name} by position")
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return Answer(error="starred arguments (*args) are not accepted: write each argument out")
    return call.args, source


def _segments(source: str, nodes: list[ast.expr]) -> tuple[str, ...]:
    """Each node's text in ``source`` (what `ast.get_source_segment` gives, which splits all of
    ``source`` again for each node: quadratic in an answer of many arguments), else its unparsing."""
    data = source.encode()
    starts = [0, *(match.end() for match in _NEWLINE.finditer(data))]  # (the byte offset of each line)

    def segment(node: ast.expr) -> str:
        if node.end_lineno is None or node.end_col_offset is None:
            return ast.unparse(node)
        start, end = starts[node.lineno - 1] + node.col_offset, starts[node.end_lineno - 1] + node.end_col_offset
        return data[start:end].decode() or ast.unparse(node)

    return tuple(segment(node) for node in nodes)


def _parse(text: str, hint: str) -> ast.Module | Answer:
    if len(text) > MAX_ANSWER:
        return Answer(error=f"the answer is {len(text)} characters long; at most {MAX_ANSWER} are read (shorten it)",
                      message=TOO_LONG)  # fmt: skip
    try:
        return ast.parse(text)
    except SyntaxError as e:
        return Answer(error=f"{hint}; SyntaxError: {e.msg}", line=e.lineno, column=e.offset)
    except (ValueError, RecursionError, MemoryError) as e:  # (a null byte; nesting too deep for the parser)
        return Answer(error=f"{hint}; the answer cannot be parsed ({type(e).__name__})")


def _single(tree: ast.Module) -> ast.AST | None:
    """The module's one statement, unwrapped when it is an expression."""
    if len(tree.body) != 1:
        return None
    statement = tree.body[0]
    return statement.value if isinstance(statement, ast.Expr) else statement


def _call_in(node: ast.AST | None, name: str) -> ast.Call | None:
    if isinstance(node, ast.Assert):
        node = node.test
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
        node = node.left
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
        return node
    return None


def _literals(nodes: list[ast.expr], text: str) -> Answer:
    values = []
    for node in nodes:
        try:
            values.append(ast.literal_eval(node))
        except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError) as e:
            shown = _clip(ast.get_source_segment(text, node) or ast.dump(node))
            return Answer(error=f"{LITERAL_HINT}; not a literal: {shown} ({type(e).__name__})")
    return Answer(tuple(values))


def _clip(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def show(value: Any, limit: int = MAX_SHOWN) -> str:
    """``value``'s repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_literal(value: Any) -> str:
    """``value`` written as a literal that reads back as itself (`same`, exactly). Raises
    `InvalidTask` for a value that has none (``inf``, ``nan``, an object) or is too long."""
    text = repr(value)
    try:
        back = ast.literal_eval(text) if len(text) <= MAX_ANSWER else _UNREADABLE
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        back = _UNREADABLE
    if back is _UNREADABLE or not same(back, value):
        raise InvalidTask(f"its output {show(value, 80)} cannot be written as a Python literal of at most "
                          f"{MAX_ANSWER} characters")  # fmt: skip
    return text


# --- grades ---------------------------------------------------------------------------------


def grade_output(answer: Answer, expected: Any, call: str, tolerance: float) -> Grade:
    """Judge a predicted output; the feedback never shows ``expected``."""
    if not answer.ok:
        return _unparsed(answer, call)
    (got,) = answer.values
    passed = same(got, expected, tolerance)
    message = "the predicted output is correct" if passed else "the predicted output is wrong"
    test = TestOutcome(TEST, passed, hidden=False, call=call, got=show(got))
    return Grade(Status.OK if passed else Status.WA, (test,), metrics=pass_metrics((test,)), message=message)


def grade_input(answer: Answer, expected: Any, result: RunResult | None, name: str) -> Grade:
    """Judge a predicted input by what running ``name`` on it returned (``result``: the
    Python-function harness's report of its one call test); None when it did not parse."""
    shown = (
        [_clip(source, 100) for source in answer.sources] if answer.evaluated else [show(v, 100) for v in answer.values]
    )
    call = f"{name}({', '.join(shown)})"
    if not answer.ok or result is None:
        return _unparsed(answer, None)
    if result.harness_error is not None:
        raise InvalidTask(f"the harness failed running its program: {result.harness_error.strip().splitlines()[-1]}")
    if result.harness_output is None:
        raise SandboxError("the output-prediction harness did not report")
    step = result.steps[0]
    report = json.loads(result.harness_output)
    resources = {"cpu_s": step.cpu_s, "wall_s": step.wall_s, "peak_memory_bytes": float(step.peak_memory_bytes)}
    if report["phase"] != "tests":  # (the task's own program did not load: not the answer's fault)
        raise InvalidTask(f"its program does not load ({report['phase']}): {report.get('error')}")
    (outcome,) = report["results"]
    status, message = _run_status(step, outcome, call)
    trace = outcome.get("trace") if status is not Status.OK else None
    test = TestOutcome(TEST, status is Status.OK, hidden=False, call=call, expected=show(expected),
                       got=outcome.get("got"), trace=trace, status=status.value)  # fmt: skip
    return Grade(status, (test,), metrics=pass_metrics((test,)), message=message, resources=resources)


def _run_status(step: Any, outcome: dict[str, Any], call: str) -> tuple[Status, str]:
    if step.limit is not None:
        status, message = LIMIT_STATUS[step.limit]
        return status, f"{call}: {message}"
    if outcome.get("passed"):
        return Status.OK, f"{call} returns the expected output"
    if "got" in outcome:
        return Status.WA, f"{call} returned {outcome['got']}, not the expected output"
    trace = str(outcome.get("trace", ""))
    if "deadline" in trace or trace.startswith("TimeoutError"):
        return Status.TLE, f"{call} did not return in time"
    return Status.RE, f"{call} raised: {trace.splitlines()[0] if trace else 'it crashed'}"


def _unparsed(answer: Answer, call: str | None) -> Grade:
    test = TestOutcome(TEST, False, hidden=False, call=call)
    diagnostic = Diagnostic(str(answer.error), file="answer", line=answer.line, column=answer.column)
    return Grade(Status.CE, (test,), (diagnostic,), pass_metrics((test,)), message=answer.message)


# --- outputs computed in the sandbox ---------------------------------------------------------


@dataclass(frozen=True)
class Failed:
    """Why a program gave no output on its input (its task is then ungradable)."""

    reason: str


def recorded(count: int, result: RunResult) -> tuple[list[Any | Failed], str | None]:
    """What the batch program returned for each of its first ``count`` calls, as far as the
    harness got (a `Failed` where a call raised), and why it stopped early (else None): the
    call after the last one reported then killed the process or ran it out of time."""
    if result.harness_error is not None:
        raise SandboxError(f"the harness that runs the programs failed: {result.harness_error.strip()[-300:]}")
    if result.harness_output is None:
        raise SandboxError("the harness that runs the programs did not report")
    report = json.loads(result.harness_output)
    if report["phase"] != "record":
        raise SandboxError(f"the batch program did not load ({report['phase']}): {report.get('error')}")
    values: list[Any | Failed] = []
    for output in report["outputs"][:count]:
        if "error" in output:
            values.append(Failed(f"its program raised on its input: {output['error']}"))
        else:
            values.append(codec.decode(output["value"].encode()))
    step = result.steps[0]
    stopped = report.get("error") or (step.limit and LIMIT_STATUS[step.limit][1])
    if len(values) < count and not stopped:
        stopped = "the program's process ended"
    return values, str(stopped) if stopped else None
