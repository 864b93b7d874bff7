"""The submission's side of the proxy: load ``solution.py``, then answer calls (stdlib only).

Runs inside the sandbox as ``python -m codegym.envs.python_function.candidate``. It holds
no test and no expected value: the grader sends calls over fds 3/4 and judges the replies
itself. Nothing here is trusted; a submission may rewrite all of it, and gains nothing.
"""

from __future__ import annotations

import os
import sys
import traceback
import types
from typing import Any

from codegym.envs.python_function import codec

from codegym.executor.channel import READ_SIZE, Channel, ChannelClosed

FILENAME = "solution.py"  # in the step's work dir, its current one (where it is, varies by tier)
MAX_MESSAGE = 2000
MAX_LINE = 500


def main() -> None:
    channel = Channel(3, 4, blocking=True)  # (the step's ends of its pipes block)
    source = _read(FILENAME).decode("utf-8", errors="replace")
    try:
        code = compile(source, FILENAME, "exec", dont_inherit=True)
    except SyntaxError as e:
        channel.send(codec.encode(syntax_error(e)))
        return
    module = types.ModuleType("solution")
    module.__file__ = FILENAME
    sys.modules["solution"] = sys.modules["__main__"] = module
    try:
        exec(code, module.__dict__)
    except MemoryError:
        raise  # the process ends, as any runtime's does when memory runs out (see _serve)
    except Exception as e:
        channel.send(codec.encode({"kind": "load_error", **_describe(e)}))
        return
    channel.send(codec.READY)
    _serve(channel, module)


def syntax_error(error: SyntaxError) -> dict[str, Any]:
    """The message that says ``solution.py`` does not compile: what, where, and the line
    itself (quoted in the feedback, with a caret under the column)."""
    end = error.end_offset if error.end_lineno == error.lineno else None
    text = (error.text or "").rstrip("\r\n")[:MAX_LINE]
    return {"kind": "syntax_error", "message": str(error.msg), "line": error.lineno, "column": error.offset,
            "text": text, "end_column": end}  # fmt: skip


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, READ_SIZE):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _serve(channel: Channel, module: types.ModuleType) -> None:
    while True:
        try:
            name, args, kwargs = codec.decode_call(channel.recv())
        except ChannelClosed:
            return
        try:
            reply = {"kind": "return", "value": _resolve(module, name)(*args, **kwargs)}
            data = codec.encode(reply)
        except codec.NotPlain as e:
            data = codec.encode({"kind": "not_plain", "message": str(e)})
        except MemoryError:
            # Ends the process: where rlimits rather than a cgroup limit memory, a step that
            # fails after holding most of its limit is what the sandbox reports as MLE.
            raise
        except Exception as e:
            data = codec.encode({"kind": "raise", **_describe(e)})
        channel.send(data)


def _resolve(module: types.ModuleType, name: str) -> Any:
    """What a call of ``name`` calls: a function of the module, or for ``Class.method`` the
    method of a fresh instance (a LeetCode ``Solution``; the function ``method`` where the
    submission wrote one instead of the class)."""
    owner, _, method = name.rpartition(".")
    if owner and isinstance(getattr(module, owner, None), type):
        return getattr(getattr(module, owner)(), method)
    function = getattr(module, method, None)
    if not callable(function):
        raise NameError(f"name {name!r} is not defined")
    return function


def _describe(error: BaseException) -> dict[str, object]:
    """The error and the submission's own frames (nothing of the harness)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == FILENAME]
    try:
        message = str(error)[:MAX_MESSAGE]
    except Exception:
        message = "<unprintable>"
    return {
        "type": type(error).__name__,
        "message": message,
        "frames": [[f.lineno or 0, f.name, (f.line or "")[:200]] for f in frames[-10:]],
    }


def warm_up() -> None:
    """Run this module's code once on a made-up solution, in a spare before its request
    (see `codegym.executor.Job.preload`): load, a call, a reply, a channel round trip."""
    code = compile("def f(a, b=2):\n    return [a, {'k': (b, 1.5)}]\n", FILENAME, "exec", dont_inherit=True)
    module = types.ModuleType("solution")
    exec(code, module.__dict__)
    name, args, kwargs = codec.decode_call(codec.encode_call("f", (1,), {}))
    reply = codec.encode({"kind": "return", "value": getattr(module, name)(*args, **kwargs)})
    read_fd, write_fd = os.pipe()
    channel = Channel(read_fd, write_fd)
    try:
        channel.send(codec.READY)
        channel.send(reply)
        channel.recv()
        channel.recv()
    finally:
        channel.close()
