"""Ahead-of-time front-end compilation of a kernel for a GPU target, without a GPU.

Under ``TRITON_INTERPRET=1`` a kernel runs as Python, which accepts much that the Triton
compiler rejects (non-power-of-two ranges, calls to plain Python functions, unsupported
syntax). Before each new specialisation runs in the interpreter, its source goes through
Triton's real front end (AST -> Triton IR) for an NVIDIA target, so such errors surface as
the compiler would report them, with the offending line. It reaches into Triton internals:
if they move, the check reports itself unavailable instead of failing the submission.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Callable, Iterator
from typing import Any

import torch

TARGET = ("cuda", 90, 32)
_TYPES = {
    torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64",
    torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
    torch.bool: "i1",
}  # fmt: skip


class Unavailable(Exception):
    """This triton's internals do not support the check; the kernel runs unchecked."""


class KernelCompileError(Exception):
    """The Triton compiler rejected the kernel.

    Attributes:
        line: The offending line of the submission's file, when known.
    """

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def _arg_type(value: Any) -> str | None:
    if isinstance(value, torch.Tensor):
        return "*" + _TYPES.get(value.dtype, "fp32")
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i32" if -(2**31) <= value < 2**31 else "i64"
    if isinstance(value, float):
        return "fp32"
    return None


def bind(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The kernel's parameters as a launch binds them (defaults filled in)."""
    signature = inspect.signature(fn)
    names = list(signature.parameters)
    known = {k: v for k, v in kwargs.items() if k in names}
    bound = signature.bind_partial(*args, **known)
    bound.apply_defaults()
    return dict(bound.arguments)


def front_end(fn: Callable[..., Any], arguments: dict[str, Any]) -> None:
    """Compile ``fn`` specialised on ``arguments`` to Triton IR; raises `KernelCompileError`
    when the compiler rejects it, `Unavailable` when it cannot try."""
    try:
        from triton._C.libtriton import ir
        from triton.backends.compiler import GPUTarget
        from triton.compiler.compiler import ASTSource, make_backend
        from triton.compiler.errors import CompilationError
        from triton.runtime.jit import JITFunction
    except ImportError as e:
        raise Unavailable(f"triton internals moved: {e}") from e
    try:
        jit = JITFunction(fn)
    except Exception as e:
        raise Unavailable(f"triton cannot read the kernel: {type(e).__name__}: {e}") from e
    signature, constexprs = {}, {}
    for index, name in enumerate(jit.arg_names):
        value = arguments.get(name)
        kind = None if index in jit.constexprs else _arg_type(value)
        if kind is None:
            signature[name] = "constexpr"
            constexprs[(index,)] = (
                value.value if hasattr(value, "value") and not isinstance(value, torch.Tensor) else value
            )
        else:
            signature[name] = kind
    try:
        target = GPUTarget(*TARGET)
        backend = make_backend(target)
        source = ASTSource(jit, signature, constexprs=constexprs)
        options = backend.parse_options(source.parse_options())
        context = ir.context()
        ir.load_dialects(context)
        backend.load_dialects(context)
        codegen = backend.get_codegen_implementation(options)
    except Exception as e:
        raise Unavailable(f"cannot set up the {TARGET[0]} front end: {type(e).__name__}: {e}") from e
    try:
        with _compiled_library(fn):
            source.make_ir(target, options, codegen, backend.get_module_map(), context)
    except CompilationError as e:
        raise KernelCompileError(str(e), compile_error_line(e, jit)) from None
    except Exception as e:
        raise Unavailable(f"the front end failed on its own: {type(e).__name__}: {e}") from e


_JIT_TWINS: dict[int, Any] = {}


@contextlib.contextmanager
def _compiled_library(fn: Callable[..., Any]) -> Iterator[None]:
    """While the front end runs, the interpreted functions it may call (triton's library,
    the submission's own helpers) are swapped for compilable twins, then put back."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    namespaces = [vars(m) for name, m in list(sys.modules.items()) if name.startswith("triton.language") and m]
    namespaces.append(fn.__globals__)
    swapped = []
    try:
        for namespace in namespaces:
            for key, value in list(namespace.items()):
                if isinstance(value, InterpretedFunction):
                    if id(value) not in _JIT_TWINS:
                        _JIT_TWINS[id(value)] = (value, JITFunction(value.fn, **value.kwargs))
                    namespace[key] = _JIT_TWINS[id(value)][1]
                    swapped.append((namespace, key, value))
        yield
    finally:
        for namespace, key, value in reversed(swapped):
            namespace[key] = value


def compile_error_line(error: Exception, jit: Any) -> int | None:
    """The file line of a ``CompilationError`` (triton counts from the kernel's ``def``)."""
    node = getattr(error, "node", None)
    first = getattr(jit, "def_file_line_number", None)
    relative = getattr(node, "lineno", None)
    if not isinstance(first, int) or not isinstance(relative, int):
        return None
    return first + relative - 1
