"""An agent's workspace for Optimize tasks: the slow program to start from, ``./run_tests``
(the StdioProgram family's), and ``./profile``, which counts what the grader counts on the
shown inputs and prints where the count goes."""

from __future__ import annotations

import inspect

from codegym.envs.stdio_program.languages import Language

from codegym import meter
from codegym.meter import native

# ./profile of an agent's workspace: stdlib only (the workspace has no codegym). Python is
# counted in bytecode instructions by a trace function (the grader counts the same in C);
# C and C++ in weighted machine instructions under cachegrind, built and weighed as the grader
# builds and weighs them (`codegym.meter.native`'s source travels in the script).
PROFILER = r'''#!/usr/bin/env python3
"""./profile [NAME ...]: run __FILE__ on tests/NAME.in (each of them when no NAME is given),
count what the grader counts (__UNIT__), and print the total and the costliest lines and
functions."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import types

FILE, LANGUAGE, TOP = __FILE_REPR__, __LANGUAGE__, 8
ASSEMBLE, LINK = __BUILD__  # (the grader's build steps, run in a folder of their own)
DRIVER = __DRIVER__
NATIVE = __NATIVE__  # (codegym.meter.native's source: the grader's annotation and weights)


def count_python(source, stdin_path):
    """Run the program in a child interpreter that counts every bytecode instruction."""
    counter = (
        "import collections, json, sys\n"
        "lines, functions, total = collections.Counter(), collections.Counter(), [0]\n"
        "def local(frame, event, arg):\n"
        "    if event == 'opcode':\n"
        "        total[0] += 1\n"
        "        if frame.f_code.co_filename == 'main.py' and frame.f_lineno is not None:\n"
        "            lines[frame.f_lineno] += 1\n"
        "            functions[frame.f_code.co_name] += 1\n"
        "    return local\n"
        "def call(frame, event, arg):\n"
        "    frame.f_trace_opcodes = True\n"
        "    return local\n"
        "code = compile(open(sys.argv[1]).read(), 'main.py', 'exec')\n"
        "out = sys.stdout\n"
        "sys.stdout = open('/dev/null', 'w')\n"
        "sys.settrace(call)\n"
        "try:\n"
        "    exec(code, {'__name__': '__main__'})\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.settrace(None)\n"
        "out.write(json.dumps([total[0], sorted(lines.items()), sorted(functions.items())]))\n"
    )
    with tempfile.TemporaryDirectory() as folder:
        program = os.path.join(folder, "main.py")
        with open(program, "w") as handle:
            handle.write(source + DRIVER)
        with open(stdin_path, "rb") as stdin:
            done = subprocess.run([sys.executable, "-c", counter, program], stdin=stdin, capture_output=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr.decode(errors="replace")[-2000:])
    import json

    total, lines, functions = json.loads(done.stdout)
    return total, dict((int(k), v) for k, v in lines), dict(functions)


def count_native(stdin_path):
    """Build the program as the grader does (the grader's own build steps: its assembly
    annotated, one line per instruction), count it under cachegrind, and weigh the count as
    the grader does."""
    native = types.ModuleType("codegym_native")
    sys.modules[native.__name__] = native
    exec(compile(NATIVE, "native.py", "exec"), native.__dict__)
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(FILE, os.path.join(folder, FILE))
        build = subprocess.run(ASSEMBLE, cwd=folder, capture_output=True)
        if build.returncode != 0:
            raise SystemExit(build.stderr.decode(errors="replace")[-2000:])
        with open(os.path.join(folder, "main.s")) as handle:
            try:
                annotated, table = native.annotate(handle.read(), FILE)
            except native.InlineAssembly as e:
                raise SystemExit(f"./profile: {e}")
        with open(os.path.join(folder, native.ANNOTATED), "w") as handle:
            handle.write(annotated)
        build = subprocess.run(LINK, cwd=folder, capture_output=True)
        if build.returncode != 0:
            raise SystemExit(build.stderr.decode(errors="replace")[-2000:])
        binary, out = os.path.join(folder, "main"), os.path.join(folder, "cachegrind.out")
        log = os.path.join(folder, "valgrind.log")
        with open(stdin_path, "rb") as stdin:
            done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
                                   f"--cachegrind-out-file={out}", f"--log-file={log}", binary], stdin=stdin,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not os.path.exists(out):
            text = done.stderr.decode(errors="replace")
            if os.path.exists(log):
                with open(log, errors="replace") as handle:
                    text += handle.read()
            said = [line.strip() for line in text.splitlines() if "FATAL" in line or "error" in line.lower()]
            raise SystemExit("./profile: valgrind could not count here" + (f": {said[0]}" if said else "") + (
                " (in this sandbox a process a tool call starts cannot read its own /proc, which valgrind needs; "
                "submit to see the grader's count and profile)" if any("/proc" in line for line in said) else ""))
        with open(out) as handle:
            counted = native.read_profile(handle.read(), FILE)
    if counted is None:
        raise SystemExit("./profile: cachegrind's per-line file could not be read")
    summary, rows = counted
    weighed = native.weigh(rows, table)
    total = native.cost(summary[0], weighed.divisions, summary[2] + summary[4])
    return total, weighed.lines, weighed.functions


def main():
    names = sys.argv[1:] or sorted(n[:-3] for n in os.listdir("tests") if n.endswith(".in"))
    with open(FILE) as handle:
        source = handle.read()
    text = source.splitlines()
    for name in names:
        path = os.path.join("tests", f"{name}.in")
        total, lines, functions = count_python(source, path) if LANGUAGE == "python" else count_native(path)
        print(f"== tests/{name}.in: {total:,} __UNIT__")
        for number, count in sorted(lines.items(), key=lambda item: -item[1])[:TOP]:
            shown = text[number - 1].strip() if 0 < number <= len(text) else ""
            print(f"  {FILE}:{number:<5} {100 * count / max(total, 1):5.1f}%  {shown[:100]}")
        for function, count in sorted(functions.items(), key=lambda item: -item[1])[:TOP]:
            print(f"  function {function}: {100 * count / max(total, 1):.1f}%")


if __name__ == "__main__":
    main()
'''


def profile_script(language: Language, driver: str = "") -> str:
    """``./profile`` for a task in ``language`` (``driver``: a function task's `DRIVER`)."""
    unit = "bytecode instructions" if language.name == "python" else meter.UNITS["native"]
    build = []
    if language.name != "python":  # (the annotator's step between them runs inside the script)
        assemble, _, link = meter.build_steps(language.compile, language.file)
        build = [list(assemble.argv), list(link.argv)]
    return (
        PROFILER.replace("__FILE_REPR__", repr(language.file))
        .replace("__FILE__", language.file)
        .replace("__LANGUAGE__", repr(language.name))
        .replace("__BUILD__", repr(build or [[], []]))
        .replace("__DRIVER__", repr(driver))
        .replace("__NATIVE__", repr(inspect.getsource(native)))
        .replace("__UNIT__", unit)
    )
