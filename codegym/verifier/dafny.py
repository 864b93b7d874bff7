"""Dafny as a `codegym.verifier.Verifier`: Debian's ``dafny`` (2.3, on Mono, with Z3).

One step runs ``dafny /compile:0 /trace`` on the file: it verifies and compiles nothing.
``/trace`` makes Dafny name each procedure as it verifies it and say its outcome::

    Verifying Impl$$_module.__default.Sum ...
      [0.086 s, 16 proof obligations]  verified

The trace gives Boogie's names, in which Dafny doubles each ``_`` (``add_one`` is
``add__one``); the report names each procedure as the source does (`source_name`).
Errors follow the procedure they belong to, as ``file(line,column): Error ...: text`` (Dafny
counts columns from 0; a `Message` from 1). The run is ``complete`` only when Dafny's last
line (``Dafny program verifier finished with ...``) is there and agrees with the outcomes
read; Z3 4.8's complaints about an option Dafny 2.3 sets (``model_compress``) are noise and
are skipped.

Most of a small file's second is Mono compiling Dafny's own code at start-up. `build_aot`
(run by ``scripts/setup.sh``: ``python -m codegym.verifier.dafny``) compiles a copy of Dafny,
Boogie and the system libraries they load ahead of time, into `AOT`; `command` starts that
copy when it is a copy of the installed Dafny, else Debian's ``dafny``. It is the same Dafny
code, so its verdicts are the same; an image Mono no longer accepts (after a Mono upgrade) is
compiled at start-up instead, which is only slower.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from codegym.executor import Job, Limits, RunResult, Step, StepResult
from codegym.grade import step_failure
from codegym.verifier import Message, Outcome, Procedure, VerifierReport

DAFNY = "dafny"
DAFNY_HOME = Path("/usr/lib/dafny")
BOOGIE_HOME = Path("/usr/lib/boogie")
MONO_LIBRARIES = Path("/usr/lib/mono/4.5")
SYSTEM = ("System", "System.Core", "System.Numerics", "System.Xml", "System.Configuration")  # (what Dafny loads)
AOT = Path("/usr/local/lib/codegym/dafny-aot")  # (under /usr: every isolation tier's view shows it)
LIMITS = Limits(cpu_s=60.0, wall_s=60.0, memory_bytes=2 << 30, processes=64, output_bytes=4 << 20)
_VERSION = re.compile(r"^Dafny (\d[\d.]*)", re.MULTILINE)
_VERIFYING = re.compile(r"^Verifying (\w+)\$\$(\S+) \.\.\.$")
_OUTCOME = re.compile(r"^\s+\[[\d.]+ s, (\d+) proof obligations?\]\s+(.+?)\s*$")
_MESSAGE = re.compile(r"^(?P<file>[^\s()]+)\((?P<line>\d+),(?P<column>\d+)\): (?P<kind>Error|Warning|Related location)"
                      r"(?: (?P<code>[A-Z]+\d+))?:?\s?(?P<text>.*)$")  # fmt: skip
_FINISHED = re.compile(r"^Dafny program verifier finished with (\d+) verified, (\d+) errors?"
                       r"(?:, (\d+) time outs?)?(?:, (\d+) out of resource)?", re.MULTILINE)  # fmt: skip
_SYNTAX = re.compile(r"^(\d+) (parse|resolution/type) errors? detected in (.+?)\s*$", re.MULTILINE)
_ESCAPES: Mapping[str, str] = {"__": "_", "_k": "'", "_q": "?", "_h": "#"}  # (Dafny's CompilerizeName, reversed)
_OUTCOMES: Mapping[str, Outcome] = {
    "verified": "verified", "error": "failed", "errors": "failed",
    "timed out": "timeout", "out of resource": "timeout", "out of memory": "timeout",
}  # fmt: skip


def command(aot: Path = AOT) -> tuple[str, ...]:
    """How a sandbox step starts Dafny: the ahead-of-time compiled copy in ``aot`` where the
    step's view has it and it is a copy of the installed Dafny, else Debian's ``dafny`` (a
    Docker image, or a machine where `build_aot` did not run)."""
    same = " && ".join(f'cmp -s {DAFNY_HOME / name} "$d/{name}"' for name in ("Dafny.exe", "DafnyPipeline.dll"))
    script = (f'd={aot}; if [ -f "$d/Dafny.exe.so" ] && {same}; then '
              f'exec mono --aot-path="$d/system" "$d/Dafny.exe" "$@"; fi; exec {DAFNY} "$@"')  # fmt: skip
    return ("sh", "-c", script, DAFNY)


def build_aot(folder: Path = AOT) -> None:
    """Copy Debian's Dafny and Boogie into ``folder`` and compile them, and the system
    libraries they load (into ``folder/system``), ahead of time. Raises ``RuntimeError`` when
    Mono cannot; ``folder`` is then removed, and `command` starts Debian's ``dafny``."""
    scratch = folder.with_name(folder.name + ".partial")
    shutil.rmtree(scratch, ignore_errors=True)
    (scratch / "system").mkdir(parents=True)
    for source in (*BOOGIE_HOME.glob("*.dll"), *DAFNY_HOME.iterdir()):
        shutil.copy(source.resolve(), scratch / source.name)
    for name in SYSTEM:
        shutil.copy(MONO_LIBRARIES / f"{name}.dll", scratch / "system" / f"{name}.dll")
    assemblies = [*scratch.glob("*.dll"), scratch / "Dafny.exe", *(scratch / "system").glob("*.dll")]
    for assembly in assemblies:
        done = subprocess.run(("mono", "--aot", "-O=all", assembly.name), cwd=assembly.parent, capture_output=True,
                              text=True, check=False)  # fmt: skip
        if done.returncode != 0:
            shutil.rmtree(scratch, ignore_errors=True)
            raise RuntimeError(f"mono --aot {assembly.name} failed: {(done.stdout + done.stderr)[-400:]}")
    for copy in (scratch / "system").glob("*.dll"):
        copy.unlink()  # (the images only: Mono loads the libraries themselves from its own folder)
    shutil.rmtree(folder, ignore_errors=True)
    scratch.rename(folder)


def main() -> int:
    """``python -m codegym.verifier.dafny``: `build_aot` (as root: it writes under /usr/local)."""
    if shutil.which("mono") is None or not (DAFNY_HOME / "Dafny.exe").is_file():
        print("Dafny on Mono is not installed: nothing to compile ahead of time")
        return 0
    try:
        build_aot()
    except RuntimeError as e:  # (not fatal: Debian's dafny gives the same verdicts, only slower)
        print(f"Dafny was not compiled ahead of time ({e}); each verification starts it afresh")
        return 0
    print(f"Dafny compiled ahead of time in {AOT}")
    return 0


@dataclass(frozen=True)
class Dafny:
    """Dafny 2.3 from Debian.

    Args:
        time_limit_s: Z3's time per procedure (``/timeLimit``); a procedure past it is a
            ``timeout``, never verified.
        aot: Where `build_aot` put the ahead-of-time compiled copy (`command`).
    """

    time_limit_s: int = 20
    name: str = "Dafny"
    aot: Path = AOT

    def job(self, files: Mapping[str, str], limits: Limits = LIMITS, only: tuple[str, str] | None = None) -> Job:
        """Verify the first of ``files``; with ``only`` (a file of ``files`` and a lemma's
        name), a second step then verifies that lemma alone in that file (``/proc``), each
        step under ``limits``; `read` adds its outcome to the first step's."""
        first = next(iter(files))
        argv = (*command(self.aot), "/compile:0", "/trace", f"/timeLimit:{self.time_limit_s}", "/vcsCores:1")
        steps = [Step(argv=(*argv, first), env=(("HOME", "$TMPDIR"),), sockets="errno", stop_on_failure=False)]
        if only is not None:
            steps.append(replace(steps[0], argv=(*argv, f"/proc:*.{only[1]}", only[0])))
        return Job(steps=tuple(steps), files={k: v.encode() for k, v in files.items()}, limits=limits)

    def read(self, result: RunResult) -> VerifierReport:
        report = self.read_step(result.steps[0])
        if len(result.steps) < 2:
            return report
        alone = self.read_step(result.steps[1])
        if alone.ended != "complete" or not alone.procedures:
            if report.ended != "complete":
                return report
            why = alone.detail or "it verified nothing"
            return VerifierReport(report.verifier, "crashed", report.procedures, report.messages,
                                  f"the second step (one lemma alone) did not complete: {why}")  # fmt: skip
        named = {p.name for p in alone.procedures}
        return replace(report, procedures=(*report.procedures, *alone.procedures),
                       messages=(*report.messages, *(m for m in alone.messages if m.procedure in named)))  # fmt: skip

    def read_step(self, step: StepResult) -> VerifierReport:
        """The report of one step of `job`."""
        text = (step.stdout + step.stderr).decode("utf-8", "replace")
        version = _VERSION.search(text)
        verifier = f"Dafny {version.group(1)}" if version else "Dafny"
        procedures, messages = _procedures(text)
        failure = step_failure(step)
        if step.limit is not None:
            return VerifierReport(verifier, "timeout", procedures, messages, failure[1] if failure else "stopped")
        if syntax := _SYNTAX.search(text):
            count, what, file = int(syntax.group(1)), syntax.group(2), syntax.group(3)
            detail = f"{count} {what} error{'s' if count != 1 else ''} detected in {file}"
            return VerifierReport(verifier, "syntax", (), messages, detail)
        finished = _FINISHED.search(text)
        if finished is None or step.exit_code not in (0, 4):
            why = failure[1] if failure else "Dafny ended without its summary line"
            return VerifierReport(verifier, "crashed", procedures, messages, why)
        verified = sum(p.outcome == "verified" for p in procedures)
        if int(finished.group(1)) != verified or (int(finished.group(2)) > 0) != any(
            p.outcome == "failed" for p in procedures
        ):  # (its summary and its trace disagree: read nothing into it)
            return VerifierReport(verifier, "crashed", procedures, messages,
                                  f"Dafny's summary ({finished.group(0)}) disagrees with its trace")  # fmt: skip
        return VerifierReport(verifier, "complete", procedures, messages)


def source_name(boogie: str) -> str:
    """The Dafny name of a member whose Boogie name is ``boogie``: Dafny writes ``_`` as
    ``__``, ``'`` as ``_k``, ``?`` as ``_q`` and ``#`` as ``_h`` (``add_one`` is traced as
    ``add__one``)."""
    parts, at = [], 0
    while at < len(boogie):
        pair = boogie[at : at + 2]
        if pair in _ESCAPES:
            parts.append(_ESCAPES[pair])
            at += 2
        else:
            parts.append(boogie[at])
            at += 1
    return "".join(parts)


def _procedures(text: str) -> tuple[tuple[Procedure, ...], tuple[Message, ...]]:
    procedures: list[Procedure] = []
    messages: list[Message] = []
    current: tuple[str, str] | None = None
    for line in text.splitlines():
        if found := _VERIFYING.match(line):
            current = (found.group(1), source_name(found.group(2).rsplit(".", 1)[-1]))
        elif (found := _OUTCOME.match(line)) and current is not None:
            outcome = _OUTCOMES.get(found.group(2), "inconclusive")
            procedures.append(Procedure(current[1], current[0], outcome, int(found.group(1))))
        elif found := _MESSAGE.match(line):
            kind = found.group("kind")
            severity = {"Error": "error", "Warning": "warning"}.get(kind, "note")
            words = found.group("text") or ("related location" if severity == "note" else "")
            messages.append(Message(found.group("file"), int(found.group("line")), int(found.group("column")) + 1,
                                    severity, words, current[1] if current else ""))  # fmt: skip
    return tuple(procedures), tuple(messages)


if __name__ == "__main__":
    sys.exit(main())
