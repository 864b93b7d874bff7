"""The sandbox's side of a predicted input: evaluate the answer's arguments, then call the
function on them (stdlib only).

Runs inside the sandbox only, imported by the job's ``solution.py`` (the task's program, then
``caller``'s two lines); nothing here runs in the trainer's process. An input answer may be any
Python expression (``dict(a=1)``, a lambda, ``range(3)``, a name the program binds), so
evaluating it is running code, and that code must not reach the function's run nor the
grader's channel. Each call therefore forks from a process that runs none of it:

1. A child evaluates the arguments in its copy of the program's namespace, then packs what
   they made (`pack`: plain builtins, ranges, lambdas, names of the program or of builtins)
   and writes it to a pipe. What it did to its memory (a rebound global, a patched builtin,
   an earlier call of the function) dies with it.
2. Where they are plain data (`codec`'s JSON: numbers, strings, containers, ranges), the
   process the grader talks to reads them and calls the function itself, as it would on
   literal arguments. Where they hold code or names (a lambda, ``str.upper``, a global of the
   program), a second child, forked from the untouched process, unpacks them (`marshal`, read
   there only), calls the function and writes its return value in `codec`'s encoding: a
   lambda the function calls runs there, inside the function's run.

The process the grader talks to thus runs none of the answer's code. Neither child holds the
grader's channel: each closes every descriptor but its pipe before it runs anything, and the
process is made undumpable first, so that no child can reopen the channel through
``/proc/<pid>/fd``, write its memory or trace it.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import signal
import struct
import types
from collections.abc import Callable
from typing import Any, cast

from codegym.envs.python_function import codec

ENTRY = "__codegym_input__"  # the name `caller`'s function has in the program's namespace
MAX_PACKED = 32 << 20  # bytes of packed arguments, or of a reply, read at most
MAX_DEPTH = 100
_LENGTH = struct.Struct("!Q")
_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_PR_SET_DUMPABLE = 4
# What the first child's bytes start with: plain data (`codec`'s JSON, read where the grader's
# channel is), or values with code (marshal, read in the second child only).
DATA, CODE = b"D", b"C"
_DATA_TAGS = ("v", "bytearray", "range")
_CONTAINERS = (list, tuple, set, frozenset, dict, bytearray, range)


def trailer(entry_point: str) -> str:
    """The lines appended to a task's program so that ``ENTRY(source)`` calls
    ``entry_point`` on the arguments ``source`` (a tuple expression) evaluates to."""
    return (
        f"\n\nimport {__name__} as __codegym_inputs\n"
        f"{ENTRY} = __codegym_inputs.caller(globals(), {entry_point!r})\n"
        "del __codegym_inputs\n"
    )


def caller(namespace: dict[str, Any], entry_point: str) -> Callable[[str], Any]:
    """The function the grader calls: ``source`` (a tuple expression) evaluated in a child,
    ``entry_point`` (as the program bound it, before any answer ran) called on the result here
    (plain data) or in a second child (values with code); returns what it returned, or raises
    what either raised."""
    function = namespace.get(entry_point)
    _undumpable()

    def call(source: str) -> Any:
        if not callable(function):
            raise NameError(f"name {entry_point!r} is not defined")
        called: Callable[..., Any] = function
        packed = _in_child(lambda: _evaluate(namespace, source), "the answer's arguments")
        if packed[:1] == DATA:  # plain data only: the function runs here, as on a literal input
            try:
                trees = codec.decode(packed[1:])
            except codec.Malformed as e:
                raise TypeError("the answer's arguments came back malformed") from e
            return called(*_unpacked(trees, namespace, data_only=True))
        reply = _in_child(lambda: _apply(called, namespace, packed[1:]), f"{entry_point}(...)")
        return codec.decode(reply)

    return call


def _undumpable() -> None:
    """Deny every other process of the sandbox this one's ``/proc/<pid>/fd``, memory and ptrace."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed: the answer cannot be run apart")


# --- the children -------------------------------------------------------------------------


def _in_child(work: Callable[[], bytes], what: str) -> bytes:
    """``work()``'s bytes, computed in a forked child that holds nothing but its pipe."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child; its coverage is not collected)
        _child(work, write_fd)
    os.close(write_fd)
    try:
        data = _read_frame(read_fd)
    finally:
        os.close(read_fd)
        for kill in (os.killpg, os.kill):  # its group: what it started, where that stayed in it
            with contextlib.suppress(OSError):
                kill(pid, signal.SIGKILL)
    if data is None:
        _, status = os.waitpid(pid, 0)
        raise _ended(what, status)
    with contextlib.suppress(ChildProcessError):  # (not waiting for its exit: it is killed, and
        os.waitpid(pid, os.WNOHANG)  # the step's end reaps what is left)
    kind, body = data[:1], data[1:]
    if kind == b"R":
        return body
    raise _error(codec.decode(body), what)


def _child(work: Callable[[], bytes], write_fd: int) -> None:  # pragma: no cover
    try:
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        os.closerange(3, write_fd)
        os.closerange(write_fd + 1, 1 << 16)
        data = b"R" + work()
    except BaseException as e:  # (SystemExit and KeyboardInterrupt too: the answer's, reported)
        data = b"E" + _described(e)
    try:
        view = memoryview(_LENGTH.pack(len(data)) + data)
        while view:
            view = view[os.write(write_fd, view) :]
    finally:
        os._exit(0)


def _described(error: BaseException) -> bytes:
    try:
        message = str(error)[:2000]
    except Exception:
        message = "<unprintable>"
    return codec.encode({"type": type(error).__name__, "message": message})


def _read_frame(fd: int) -> bytes | None:
    """One length-prefixed frame from ``fd``; None when the writer ended before it (a
    descendant of the writer still holding the pipe does not keep this waiting)."""
    header = _read_exactly(fd, _LENGTH.size)
    if header is None:
        return None
    (size,) = _LENGTH.unpack(header)
    if size > MAX_PACKED + 1:
        raise MemoryError(f"the answer's run sent {size} bytes; at most {MAX_PACKED} are read")
    return _read_exactly(fd, size)


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _ended(what: str, status: int) -> BaseException:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.valid_signals() else str(number)
        if number == signal.SIGXCPU:
            return TimeoutError(f"{what} ran past the CPU time limit (killed by {name})")
        return RuntimeError(f"{what} ended its process (killed by {name})")
    return RuntimeError(f"{what} ended its process (exit status {os.waitstatus_to_exitcode(status)})")


def _error(described: Any, what: str) -> BaseException:
    """The exception a child reported, as the builtin type of its name where there is one."""
    name = str(described.get("type", "Exception")) if type(described) is dict else "Exception"
    message = str(described.get("message", "")) if type(described) is dict else ""
    if name == "MemoryError":
        return MemoryError(message)
    if name == "NotPlain":
        return codec.NotPlain(message)
    base = getattr(builtins, name, None)
    if not (isinstance(base, type) and issubclass(base, Exception)):
        base = Exception
    prefix = "" if what.endswith("(...)") else f"in {what}: "
    try:
        return cast("type[Exception]", type(name, (base,), {}))(f"{prefix}{message}")
    except Exception:  # (a type whose constructor takes other arguments: UnicodeDecodeError)
        return cast("type[Exception]", type(name, (Exception,), {}))(f"{prefix}{message}")


def _evaluate(namespace: dict[str, Any], source: str) -> bytes:  # pragma: no cover (a child)
    """Evaluate ``source`` in ``namespace`` and pack the tuple of arguments it makes."""
    known = _known(namespace)  # (before the answer can rebind anything)
    saved = dict(builtins.__dict__)
    values = eval(compile(source, "answer", "eval", dont_inherit=True), namespace)
    _restore(builtins.__dict__, saved)  # (packing needs them as they were; the values are made)
    if type(values) is not tuple:
        raise TypeError("the answer's arguments did not make a tuple")
    trees = tuple(pack(value, known, namespace) for value in values)
    if all(_data(tree) for tree in trees):
        return DATA + codec.encode(trees)
    return CODE + marshal.dumps(trees)


def _restore(names: dict[str, Any], saved: dict[str, Any]) -> None:  # pragma: no cover (a child)
    for name in [name for name in names if name not in saved]:
        del names[name]
    names.update(saved)


def _apply(function: Callable[..., Any], namespace: dict[str, Any], packed: bytes) -> bytes:  # pragma: no cover
    """Call ``function`` on the packed arguments; its return value in `codec`'s encoding."""
    return codec.encode(function(*_unpacked(marshal.loads(packed), namespace)))


def _unpacked(trees: Any, namespace: dict[str, Any], *, data_only: bool = False) -> list[Any]:
    if type(trees) is not tuple:
        raise TypeError("the answer's arguments came back malformed")
    return [unpack(tree, namespace, data_only=data_only) for tree in trees]


def _data(tree: Any) -> bool:
    """Whether a packed value is plain data (no function, builtin or name of the program)."""
    tag = tree[0]
    if tag in ("list", "tuple", "set", "frozenset"):
        return all(_data(item) for item in tree[1])
    if tag == "dict":
        return all(_data(k) and _data(v) for k, v in tree[1])
    return tag in _DATA_TAGS


# --- values across the two children ---------------------------------------------------------


def _known(namespace: dict[str, Any]) -> dict[int, tuple[Any, tuple[str, ...]]]:
    """Objects both children have by name: the program's globals, builtins and their
    attributes (``str.upper``). Keyed by id, holding the objects (so no id is reused)."""
    known: dict[int, tuple[Any, tuple[str, ...]]] = {}
    for name, value in vars(builtins).items():
        known.setdefault(id(value), (value, ("b", name)))
        if isinstance(value, type):
            for attribute, member in vars(value).items():
                known.setdefault(id(member), (member, ("a", name, attribute)))
    for name, value in namespace.items():
        known[id(value)] = (value, ("g", name))
    return known


def pack(value: Any, known: dict[int, tuple[Any, tuple[str, ...]]], namespace: dict[str, Any], depth: int = 0) -> Any:
    """``value`` as a tree of tagged tuples that `marshal` writes (see `unpack`).

    Raises:
        TypeError: A value that cannot be carried to the function's run (an object of a
            class, a generator, a function with a closure), naming its type.
    """
    if depth > MAX_DEPTH:
        raise TypeError(f"the answer's arguments are nested deeper than {MAX_DEPTH}")
    kind = type(value)
    if kind in _SCALARS:
        return ("v", value)
    entry = known.get(id(value))
    # A container that is a global of the program goes by name (the function may change it);
    # one that merely is a builtin type's attribute (``()``) goes as data.
    if entry is not None and entry[0] is value and (entry[1][0] == "g" or kind not in _CONTAINERS):
        return entry[1]
    deeper = depth + 1
    if kind in (list, tuple, set, frozenset):
        return (kind.__name__, tuple(pack(item, known, namespace, deeper) for item in value))
    if kind is dict:
        return ("dict", tuple((pack(k, known, namespace, deeper), pack(v, known, namespace, deeper))
                              for k, v in value.items()))  # fmt: skip
    if kind is bytearray:
        return ("bytearray", bytes(value))
    if kind is range:
        return ("range", value.start, value.stop, value.step)
    if kind is types.FunctionType and value.__globals__ is namespace and value.__closure__ is None:
        defaults = pack(value.__defaults__ or (), known, namespace, deeper)
        kwdefaults = pack(value.__kwdefaults__ or {}, known, namespace, deeper)
        return ("function", value.__code__, value.__name__, defaults, kwdefaults)
    if kind is types.BuiltinMethodType and not isinstance(value.__self__, types.ModuleType):
        return ("method", pack(value.__self__, known, namespace, deeper), value.__name__)
    raise TypeError(
        f"an argument of type {kind.__qualname__} cannot be carried to the function's run: give plain values "
        "(numbers, strings, lists, tuples, dicts, sets), ranges, lambdas, or names the program defines"
    )


def unpack(tree: Any, namespace: dict[str, Any], depth: int = 0, *, data_only: bool = False) -> Any:
    """`pack` undone, checking each node (the bytes come from a process the answer ran in);
    ``data_only``: refusing every node but plain data's (no function, builtin or name)."""
    if type(tree) is not tuple or not tree or type(tree[0]) is not str or depth > MAX_DEPTH + 1:
        raise TypeError("the answer's arguments came back malformed")
    tag, body = tree[0], tree[1:]
    if data_only and tag not in _DATA_TAGS and tag not in ("list", "tuple", "set", "frozenset", "dict"):
        raise TypeError("the answer's arguments came back malformed")
    deeper = depth + 1

    def inner(node: Any) -> Any:
        return unpack(node, namespace, deeper, data_only=data_only)

    if tag == "v" and len(body) == 1 and type(body[0]) in _SCALARS:
        return body[0]
    if tag in ("list", "tuple", "set", "frozenset") and len(body) == 1 and type(body[0]) is tuple:
        kind = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[tag]
        return kind(inner(item) for item in body[0])
    if tag == "dict" and len(body) == 1 and type(body[0]) is tuple:
        return {inner(k): inner(v) for k, v in map(_pair, body[0])}
    if tag == "bytearray" and len(body) == 1 and type(body[0]) is bytes:
        return bytearray(body[0])
    if tag == "range" and len(body) == 3 and all(type(b) is int for b in body):
        return range(*body)
    if tag == "g" and len(body) == 1 and body[0] in namespace:
        return namespace[body[0]]
    if tag == "b" and len(body) == 1 and type(body[0]) is str and hasattr(builtins, body[0]):
        return getattr(builtins, body[0])
    if tag == "a" and len(body) == 2 and all(type(b) is str for b in body):
        owner = getattr(builtins, body[0], None)
        if isinstance(owner, type) and body[1] in vars(owner):
            return vars(owner)[body[1]]
    if tag == "method" and len(body) == 2 and type(body[1]) is str:
        return getattr(inner(body[0]), body[1])
    if tag == "function" and len(body) == 4 and type(body[0]) is types.CodeType and type(body[1]) is str:
        defaults = inner(body[2])
        kwdefaults = inner(body[3])
        if type(defaults) is tuple and type(kwdefaults) is dict and not body[0].co_freevars:
            function = types.FunctionType(body[0], namespace, body[1], defaults or None)
            function.__kwdefaults__ = kwdefaults or None
            return function
    raise TypeError("the answer's arguments came back malformed")


def _pair(item: Any) -> tuple[Any, Any]:
    if type(item) is not tuple or len(item) != 2:
        raise TypeError("the answer's arguments came back malformed")
    return item[0], item[1]
