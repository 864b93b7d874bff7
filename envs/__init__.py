"""Task families. Adding one is a folder here plus its import line below."""

from __future__ import annotations

from codegym.envs import python_function, repo_repair, stdio_program, triton_kernel, verilog  # noqa: F401
