"""The one sandboxed step of a Verilog job: compile, empty the folder, simulate.

Run as ``python -m codegym.envs.verilog.runner <compile timeout s> +codegym_nonce=<hex>`` in
a warm worker (the module is preloaded, so the step costs a fork, not an interpreter start):

1. ``iverilog`` compiles ``tb.sv`` (testbench and reference) and ``solution.sv`` (the design,
   last) into ``sim.vvp``, under the compile time-out. Its output is written to stderr,
   followed by the line ``@@codegym-compiled@@ <exit status> <seconds>``; nothing of the
   design has run yet, so the design cannot forge that line (the grader reads the first one).
   The status is ``missing`` when ``iverilog`` or ``vvp`` cannot be found: an infrastructure
   fault, which the grader raises as such.
2. The image is opened as stdin and every file of the work dir is deleted.
3. This process becomes ``vvp``, reading the image from stdin: the simulation runs with an
   empty folder, with the nonce as a plusarg only the testbench reads.

One step instead of a compile step, a shell and an ``rm`` saves about a third of the
sandbox's per-step cost on a small problem.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

IVERILOG = ("iverilog", "-g2012", "-Wimplicit", "-Winfloop", "-Wportbind", "-o", "sim.vvp", "-s", "tb",
            "tb.sv", "solution.sv")  # fmt: skip
COMPILED = "@@codegym-compiled@@"
COMPILE_FAILED = 97
MISSING = "missing"
FILES = ("tb.sv", "solution.sv", "sim.vvp")
MAX_COMPILER_OUTPUT = 64 << 10


def main() -> None:
    timeout, nonce = float(sys.argv[1]), sys.argv[2]
    started = time.monotonic()
    try:
        done = subprocess.run(IVERILOG, capture_output=True, timeout=timeout, check=False)
        status, output = str(done.returncode), done.stderr + done.stdout
    except subprocess.TimeoutExpired as e:
        status, output = "timeout", (e.stderr or b"") + (e.stdout or b"")
    except OSError as e:  # the toolchain is missing: an infrastructure fault, never the design's
        status, output = MISSING, str(e).encode()
    if status == "0" and shutil.which("vvp") is None:
        status, output = MISSING, b"vvp is not on the sandbox's PATH"
    seconds = time.monotonic() - started
    os.write(2, output[:MAX_COMPILER_OUTPUT] + f"\n{COMPILED} {status} {seconds:.6f}\n".encode())
    if status != "0":
        raise SystemExit(COMPILE_FAILED)
    image = os.open("sim.vvp", os.O_RDONLY)
    os.dup2(image, 0)
    os.close(image)
    for name in FILES:
        os.unlink(name)
    os.execvp("vvp", ["vvp", "-n", "/dev/stdin", nonce])
