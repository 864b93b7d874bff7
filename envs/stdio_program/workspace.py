"""An agent's workspace for StdioProgram tasks: the stub each language starts from, and
``./run_tests``, which builds and runs the program as the grader does."""

from __future__ import annotations

import inspect
import pprint
from collections.abc import Mapping
from typing import Any

from codegym.envs.stdio_program import grader
from codegym.envs.stdio_program.languages import Language

# What an agent's source file starts as: a program that builds and does nothing. A language
# of languages.yaml without one starts from an empty file.
STUBS = {
    "python": "import sys\n\ndata = sys.stdin.read()\n",
    "c": "#include <stdio.h>\n\nint main(void) {\n    return 0;\n}\n",
    "cpp": "#include <iostream>\n\nint main() {\n    return 0;\n}\n",
    "rust": "fn main() {\n}\n",
    "go": "package main\n\nfunc main() {\n}\n",
    "java": "public class Main {\n    public static void main(String[] args) {\n    }\n}\n",
    "javascript": 'const data = require("fs").readFileSync(0, "utf8");\n',
    "ruby": "data = STDIN.read\n",
    "lua": 'local data = io.read("a")\n',
    "ocaml": "let () = ()\n",
    "fortran": "program main\n    implicit none\nend program main\n",
    "r": 'data <- readLines(file("stdin"))\n',
}

# ./run_tests of an agent's workspace: stdlib only (the workspace has no codegym), with the
# grader's own comparison functions pasted in.
RUNNER = r'''#!/usr/bin/env python3
"""The task's tests: ./run_tests [NAME ...] builds __FILE__ with the grader's commands, runs it on
tests/NAME.in (each of them when no NAME is given) and compares its output with tests/NAME.out
as the grader does. Exits 1 when a test fails."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

CONFIG = __CONFIG__
EXCERPT = 400


__CHECK__


def run(argv, stdin, timeout_s, env):
    """The finished process, or None when it ran out of time."""
    if argv[0] == "python":  # the grader's own interpreter; here, this one
        argv = [sys.executable, *argv[1:]]
    try:
        return subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        return None


def failure(done, timeout_s):
    if done is None:
        return f"timed out after {timeout_s} s"
    if done.returncode >= 0:
        return f"exit status {done.returncode}"
    note = " (SIGSYS: the sandbox denied a system call)" if -done.returncode == signal.SIGSYS else ""
    return f"killed by signal {-done.returncode}{note}"


def show(**texts):
    for label, text in texts.items():
        text = (text if len(text) <= EXCERPT else text[:EXCERPT] + "...").rstrip("\n")
        print(f"--- {label}\n{text or '(nothing)'}")


def build(env):
    if not CONFIG["compile"]:
        return True
    done = run(CONFIG["compile"], b"", CONFIG["compile_timeout_s"], env)
    if done is not None and done.returncode == 0:
        return True
    print(f"COMPILE ERROR: {failure(done, CONFIG['compile_timeout_s'])}")
    if done is not None:
        print((done.stderr + done.stdout).decode(errors="replace")[-4000:])
    return False


def test(name, env):
    """Run one test and print its verdict: PASS, FAIL or RAN (ran, not compared)."""
    if not os.path.isfile(f"tests/{name}.in"):
        print(f"FAIL {name}: no tests/{name}.in")
        return "FAIL"
    with open(f"tests/{name}.in", "rb") as f:
        stdin = f.read()
    expected = None
    if os.path.isfile(f"tests/{name}.out"):
        with open(f"tests/{name}.out", encoding="utf-8", errors="replace") as f:
            expected = f.read()
    done = run(CONFIG["run"], stdin, CONFIG["timeout_s"], env)
    texts = {"input": stdin.decode(errors="replace"), "expected": expected or "",
             "got": done.stdout.decode(errors="replace") if done else ""}
    if done is None or done.returncode != 0:
        print(f"FAIL {name}: {failure(done, CONFIG['timeout_s'])}")
        show(**texts, stderr=done.stderr.decode(errors="replace")[-EXCERPT:] if done else "")
        return "FAIL"
    if expected is None or CONFIG["checker"]["kind"] == "program":
        why = f"no tests/{name}.out" if expected is None else f"any valid answer is accepted; tests/{name}.out is one"
        print(f"RAN {name}: not compared ({why})")
        show(**texts)
        return "RAN"
    if check(expected, texts["got"], CONFIG["checker"]):
        print(f"PASS {name}")
        return "PASS"
    print(f"FAIL {name}: wrong answer")
    show(**texts)
    return "FAIL"


def main(names):
    tmp = os.environ.get("TMPDIR", "/tmp")
    env = dict(os.environ)
    for key, value in CONFIG["env"].items():  # "$TMPDIR/x": x in the temp dir, as in the grader
        env[key] = tmp + value[len("$TMPDIR"):] if value.startswith("$TMPDIR") else value
    if not build(env):
        return 1
    names = names or sorted((f[:-3] for f in os.listdir("tests") if f.endswith(".in")), key=lambda n: (len(n), n))
    verdicts = [test(name, env) for name in names]
    ran = verdicts.count("RAN")
    print(f"{verdicts.count('PASS')} of {len(names)} tests passed" + (f" ({ran} not compared)" if ran else ""))
    return 1 if "FAIL" in verdicts else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''


def runner_script(language: Language, checker: Mapping[str, Any], timeout_s: float, compile_timeout_s: float) -> str:
    """``./run_tests`` of an agent's workspace: builds and runs the program with ``language``'s
    own commands, and compares outputs with the grader's `grader.check`."""
    config = {
        "compile": list(language.compile or ()),
        "run": list(language.run),
        "env": dict(language.env),
        "checker": {key: value for key, value in checker.items() if key != "source"},  # (a program's stays out)
        "timeout_s": timeout_s,
        "compile_timeout_s": compile_timeout_s,
    }
    check = "\n\n\n".join(inspect.getsource(f) for f in (grader.check, grader._lines, grader._close))
    return (
        RUNNER.replace("__FILE__", language.file)
        .replace("__CONFIG__", pprint.pformat(config, width=100, sort_dicts=False))
        .replace("__CHECK__", check)
    )
