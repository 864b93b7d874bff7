"""Task families. Adding one is a folder here plus its import line below."""

from __future__ import annotations

from codegym.envs import (  # noqa: F401
    dafny,
    optimize,
    output_prediction,
    pycontracts,
    python_function,
    repo_repair,
    stdio_program,
    terminal,
    test_generation,
    triton_kernel,
    verilog,
    visual,
    whyml,
)
