"""`ProgramRun`: one agent program running in a box, its model calls held for the policy.

The program is one command of the box (`RootBox.run`, ``background="kill"``: whatever it
starts dies with it), started in a thread. Its only network is the box's loopback, where one
port is a socket this process holds (`RootBox.listen`): a `ModelProxy` serves it. Each model
request the program makes is handed to the caller (`ProgramRun.next`) and waits there until
the caller answers it (`ProgramRun.reply`)::

    run = ProgramRun(box, recipe, instruction="...", workdir="/app", limits=HarnessLimits())
    event = run.next()
    while isinstance(event, ModelRequest):
        run.reply(policy(event))
        event = run.next()
    event  # a ProgramEnd: how and why the program stopped

The time the program spends between two of its requests is its own; the time a request waits
for its reply is the policy's and counts against nothing but ``limits.max_s``. A program that
runs longer than ``turn_s`` without a request (or an end) is killed as ``"hung"``; one past its
``program_s`` in all as ``"time"``; one past ``max_turns`` requests as ``"turns"``.
"""

from __future__ import annotations

import contextlib
import queue
import shlex
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Literal

from codegym.error import SandboxError
from codegym.executor.rootbox import DEFAULT_PATH, CommandResult, RootBox
from codegym.harness.install import MOUNT
from codegym.harness.proxy import Exchange, ModelProxy, Withdrawn
from codegym.harness.recipe import Recipe
from codegym.harness.wire import ModelReply, ModelRequest

API_KEY = "codegym-local-key"  # the dummy credential programs are given (the proxy takes any)
HOME = "/tmp/codegym-home"  # the program's home in the box, fresh each episode
Ending = Literal["exited", "crashed", "no_model_call", "hung", "time", "turns", "tokens", "stopped", "lost"]


@dataclass(frozen=True)
class HarnessLimits:
    """The budgets of a program's run.

    Attributes:
        turn_s: Seconds the program may run between two model requests (or from its start to
            its first) before it is killed as hung.
        program_s: Seconds it may run in all, its waits for replies aside.
        max_turns: Model requests it may make; the next one ends it.
        max_s: Wall-clock seconds of the whole run, waits for replies included.
        max_tokens: Tokens the replies may hold in all (a reply's ``completion_tokens``, else
            its token ids, else its text's characters / 4); a reply past it is not delivered
            and the program is stopped. None: no budget.
        output_bytes: Its output kept (head and tail) for the end's report.
    """

    turn_s: float = 300.0
    program_s: float = 1800.0
    max_turns: int = 100
    max_s: float = 4 * 3600.0
    max_tokens: int | None = None
    output_bytes: int = 64_000

    def __post_init__(self) -> None:
        for name in ("turn_s", "program_s", "max_turns", "max_s", "output_bytes"):
            if getattr(self, name) <= 0:
                raise ValueError(f"HarnessLimits.{name} must be positive, got {getattr(self, name)!r}")
        if self.max_tokens is not None and self.max_tokens <= 0:
            raise ValueError(f"HarnessLimits.max_tokens must be positive or None, got {self.max_tokens!r}")


@dataclass(frozen=True)
class ProgramEnd:
    """How the program's run ended.

    Attributes:
        status: ``"exited"`` (it exited 0 after at least one model call), ``"crashed"``
            (another exit status, or a signal it did not get from us), ``"no_model_call"``
            (it ended without one), ``"hung"``/``"time"``/``"turns"``/``"tokens"`` (a budget of
            `HarnessLimits` ran out and it was killed), ``"stopped"`` (the caller stopped
            it), ``"lost"`` (the box failed: an infrastructure failure, never the program's).
        exit_code: Its exit status, when it exited.
        signal: The signal that killed it, if one did.
        output: Its output, capped: head and tail around an elision line.
        elided_bytes: Bytes of its output left out of ``output`` (a flood's).
        turns: Model requests it made.
        program_s: Seconds it ran, its waits for replies aside.
        elapsed_s: Seconds from its start to its end.
        detail: Why, in words (the budget, the box's error).
    """

    status: Ending
    exit_code: int | None = None
    signal: int | None = None
    output: str = ""
    elided_bytes: int = 0
    turns: int = 0
    program_s: float = 0.0
    elapsed_s: float = 0.0
    detail: str = ""


@dataclass
class _Pending:
    request: ModelRequest
    answer: Future[ModelReply] = field(default_factory=Future)


class ProgramRun:
    """One run of ``recipe``'s program in ``box`` (which mounts its tool folder at `MOUNT`).

    Args:
        box: The episode's machine.
        recipe: The program.
        instruction: The task, as the program is told it.
        workdir: The folder it starts in (the task's files).
        user: The box's user it runs as.
        env: Variables of the task's (a terminal task's), under the recipe's own.
        limits: Its budgets.
        answer: Where requests go instead of the caller (pass-through: a `Forwarder`); then
            `next` only ever returns the end.
    """

    def __init__(
        self,
        box: RootBox,
        recipe: Recipe,
        *,
        instruction: str,
        workdir: str,
        user: str = "root",
        env: Mapping[str, str] | None = None,
        limits: HarnessLimits | None = None,
        answer: Callable[[ModelRequest], ModelReply] | None = None,
    ) -> None:
        self.box, self.recipe, self.limits = box, recipe, limits or HarnessLimits()
        self.turns = 0
        self.tokens = 0  # in the replies delivered
        self.program_s = 0.0
        self._events: queue.Queue[_Pending | CommandResult | BaseException] = queue.Queue()
        self._pending: _Pending | None = None
        self._answer = answer
        self._end: ProgramEnd | None = None
        self._stopping: Ending | None = None
        self._detail = ""
        self._lock = threading.Lock()
        listener = box.listen()
        self.proxy = ModelProxy(self._serve, sock=listener)
        launch = launch_of(recipe, instruction=instruction, port=listener.getsockname()[1], workdir=workdir, env=env)
        self.argv, self.env = launch.argv, launch.env
        self._prepare(launch.files, user)
        self.proxy.start()
        self.started = time.monotonic()
        self._turn_started = self.started
        self._thread = threading.Thread(
            target=self._program, args=(user, workdir), name=f"codegym-harness-{recipe.name}", daemon=True
        )
        self._thread.start()

    @property
    def calls(self) -> list[Exchange]:
        """The model calls so far, as the proxy recorded them (requests, replies, timings)."""
        return list(self.proxy.calls)

    def _prepare(self, files: Mapping[str, str], user: str) -> None:
        """The program's home, fresh and its user's, holding its config files."""
        self.box.write_files({path: content.encode() for path, content in files.items()})
        owner = shlex.quote(user)
        self.box.run(("/bin/sh", "-c", f"chown -R {owner}: {HOME} 2>/dev/null || chown -R {owner} {HOME}"),
                     timeout_s=30.0)  # fmt: skip

    def _program(self, user: str, workdir: str) -> None:
        try:
            result = self.box.run(self.argv, user=user, cwd=workdir, env=self.env, timeout_s=self.limits.max_s,
                                  output_bytes=self.limits.output_bytes, background="kill")  # fmt: skip
        except BaseException as e:  # (the box failed: the end says so)
            self._events.put(e)
        else:
            self._events.put(result)

    def _serve(self, request: ModelRequest) -> ModelReply:
        """The proxy's answer to one request (in the proxy's thread): the caller's, or the
        pass-through's; a request past the turn budget ends the run."""
        with self._lock:
            self._clock_turn()
            self.turns += 1
            if self.turns > self.limits.max_turns:
                self._stop_soon("turns", f"it made more than {self.limits.max_turns} model requests")
                raise Withdrawn("the episode's model-request budget is spent")
        if self._answer is not None:
            try:
                reply = self._answer(request)
            finally:
                with self._lock:
                    self._turn_started = time.monotonic()
            if not self._within_tokens(reply):
                raise Withdrawn("the episode's token budget is spent")
            return reply
        pending = _Pending(request)
        self._events.put(pending)
        return pending.answer.result()

    def next(self) -> ModelRequest | ProgramEnd:
        """Wait for the program's next model request, or its end (then it is over)."""
        if self._end is not None:
            return self._end
        while True:
            timeout = self._time_left()
            try:
                event = self._events.get(timeout=max(0.0, timeout))
            except queue.Empty:
                self._stop_soon(*self._budget_spent())
                continue
            if isinstance(event, _Pending):
                self._pending = event
                return event.request
            return self._finish(event)

    def reply(self, reply: ModelReply) -> None:
        """Answer the request `next` returned; the program goes on."""
        pending, self._pending = self._pending, None
        if pending is None:
            raise RuntimeError("no model request is waiting for a reply: call next() first")
        with self._lock:
            self._turn_started = time.monotonic()
        if not self._within_tokens(reply):
            self._refuse(pending)
            return
        pending.answer.set_result(reply)

    def _within_tokens(self, reply: ModelReply) -> bool:
        """Count ``reply``'s tokens; past ``max_tokens``, stop the program (False)."""
        self.tokens += _tokens_of(reply)
        budget = self.limits.max_tokens
        if budget is None or self.tokens <= budget:
            return True
        self._stop_soon("tokens", f"the replies held more than {budget} tokens")
        return False

    def stop(self) -> ProgramEnd:
        """End the run now (killed where it still runs) and say how it ended."""
        if self._end is None:
            self._stop_soon("stopped", "the episode was stopped")
            while (event := self.next()) and isinstance(event, ModelRequest):
                self._refuse(self._pending)
        assert self._end is not None
        return self._end

    def _time_left(self) -> float:
        """Seconds until a budget runs out, the clock running while the program does."""
        with self._lock:
            if self._stopping is not None:
                return 1.0  # (killed: its end comes as soon as the box says so)
            running = time.monotonic() - self._turn_started
            left = min(self.limits.turn_s - running, self.limits.program_s - self.program_s - running)
            return min(left, self.limits.max_s - (time.monotonic() - self.started))

    def _budget_spent(self) -> tuple[Ending, str]:
        with self._lock:
            running = time.monotonic() - self._turn_started
            if time.monotonic() - self.started >= self.limits.max_s:
                return "time", f"the run took more than {self.limits.max_s:g} s"
            if self.program_s + running >= self.limits.program_s:
                return "time", f"the program ran for more than {self.limits.program_s:g} s"
            return "hung", f"the program ran {self.limits.turn_s:g} s without a model request or an end"

    def _clock_turn(self) -> None:
        self.program_s += time.monotonic() - self._turn_started

    def _stop_soon(self, status: Ending, detail: str) -> None:
        """Kill the program (once): its end then comes through `next` with ``status``."""
        if self._stopping is None:
            self._stopping, self._detail = status, detail
        with contextlib.suppress(SandboxError, OSError):
            self.box.interrupt()

    def _refuse(self, pending: _Pending | None) -> None:
        if pending is not None and not pending.answer.done():
            pending.answer.set_exception(Withdrawn("the episode is over"))
        self._pending = None

    def _finish(self, event: CommandResult | BaseException) -> ProgramEnd:
        """The end, from the command's result (or the box's failure)."""
        self._refuse(self._pending)
        while not self._events.empty():  # (requests still queued: refused)
            left = self._events.get_nowait()
            if isinstance(left, _Pending):
                self._refuse(left)
        self.proxy.close()
        elapsed = time.monotonic() - self.started
        with self._lock:
            if self._pending is None and self._stopping is None:
                self._clock_turn()
        if isinstance(event, BaseException):
            self._end = ProgramEnd("lost", turns=self.turns, program_s=self.program_s, elapsed_s=elapsed,
                                   detail=f"the box failed: {event}")  # fmt: skip
            return self._end
        status: Ending
        if self._stopping is not None:
            status = self._stopping
        elif self.turns == 0:
            status = "no_model_call"
        elif event.exit_code == 0:
            status = "exited"
        else:
            status = "crashed"
        self._end = ProgramEnd(status, event.exit_code, event.signal, event.output, event.elided_bytes, self.turns,
                               self.program_s, elapsed, self._detail or _why(event))  # fmt: skip
        return self._end


def _tokens_of(reply: ModelReply) -> int:
    if reply.completion_tokens is not None:
        return reply.completion_tokens
    if reply.token_ids is not None:
        return len(reply.token_ids)
    text = reply.content + reply.reasoning + "".join(call.name + call.arguments for call in reply.tool_calls)
    return max(1, len(text) // 4)


def _why(result: CommandResult) -> str:
    if result.timed_out:
        return "the run took longer than its wall-clock cap"
    if result.signal is not None:
        return f"killed by signal {result.signal}"
    return f"exit status {result.exit_code}"


@dataclass(frozen=True)
class Launch:
    """A program's start in a box, its recipe's templates filled in (`launch_of`).

    Attributes:
        argv: Its command line.
        env: Its variables (the task's, then ``HOME``, then the recipe's).
        files: The files to write first, by absolute path in the box (its config, the instruction).
    """

    argv: tuple[str, ...]
    env: dict[str, str]
    files: dict[str, str]


def launch_of(
    recipe: Recipe, *, instruction: str, port: int, workdir: str, env: Mapping[str, str] | None = None
) -> Launch:
    """How ``recipe``'s program starts for ``instruction``, its proxy on the box's loopback
    ``port``, in ``workdir``, under the task's variables ``env``."""
    values = {"instruction": instruction, "instruction_file": f"{HOME}/instruction.md",
              "base_url": f"http://127.0.0.1:{port}", "api_key": API_KEY, "model": recipe.model,
              "tools": MOUNT, "home": HOME, "workdir": workdir,
              "path": (env or {}).get("PATH") or DEFAULT_PATH}  # fmt: skip
    variables = {**(env or {}), "HOME": HOME, **{name: _fill(value, values) for name, value in recipe.env}}
    files = {_home_path(path): _fill(content, values) for path, content in recipe.files}
    files[f"{HOME}/instruction.md"] = instruction
    return Launch(tuple(_fill(part, values) for part in recipe.argv), variables, files)


def _fill(template: str, values: Mapping[str, str]) -> str:
    """``template`` with ``{name}`` fields filled in (other braces, a JSON config's, kept)."""
    out = template
    for name, value in values.items():
        out = out.replace("{" + name + "}", value)
    return out


def _home_path(path: str) -> str:
    return path if path.startswith("/") else f"{HOME}/{path}"
