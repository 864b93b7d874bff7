"""Episodes as data: one JSON line per episode, with everything the env and the trainer saw
(`codegym.wrappers` offers the recorder beside the other wrappers).

`RecordEpisodes` wraps any codegym env (any family, any mode) and appends one line per episode
to a file: what made the env, the task (its id and a digest of its content), the reset, and
for each step the action as given (and, in agent mode, the tool calls found in it), the
observation, the reward, the flags, the info with the whole `Grade` (every test's outcome and
diagnostics, the reward's components) and the step's wall time; with them the token ids and
log-probs a trainer hands in (`RecordEpisodes.note`). Values are written in the wire's JSON
(`codegym.serve.wire.encode`), so `read_episodes` gives them back equal: a `Grade` is a
`Grade` again, an image an array of its dtype and shape::

    env = RecordEpisodes(gym.make("codegym/PythonFunction-v0", mode="refine"), "episodes.jsonl")
    observation, info = env.reset(seed=0)
    env.note(token_ids=[...], logprobs=[...])   # (optional: what generated the next action)
    env.step(answer)
    ...
    env.close()                                 # (an episode still open is written, "open")
    [episode] = read_episodes("episodes.jsonl")
    episode["steps"][0]["info"]["grade"].status
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import hashlib
import json
import os
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym

import codegym
from codegym.serve.wire import decode, encode
from codegym.task import Task

RECORD_VERSION = 1


class RecordEpisodes(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Append one JSON line per episode to ``path`` (made, with its folder, where missing).

    An episode is written when it terminates or is truncated, when the next `reset` abandons
    it (``"ended": "abandoned"``), or at `close` (``"open"``). The file is appended to, one
    whole line per write, so several recorders (a vector env's) may share one.

    Args:
        env: A codegym env, wrapped or not.
        path: The JSON-lines file.
    """

    def __init__(self, env: gym.Env, path: str | os.PathLike[str]) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, path=str(path))
        super().__init__(env)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._episode: dict[str, Any] | None = None
        self._noted: dict[str, Any] = {}

    def note(self, **generation: Any) -> None:
        """Attach what generated the next action to its step (``token_ids``, ``logprobs``, a
        sampler's settings: values the wire carries, numpy arrays among them)."""
        self._noted.update(generation)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        self._write("abandoned")
        started = time.perf_counter()
        observation, info = self.env.reset(seed=seed, options=options)
        core = self.env.unwrapped
        task: Task | None = getattr(core, "task", None)
        self._episode = {
            "version": RECORD_VERSION,
            "episode": uuid.uuid4().hex,
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
            "codegym": codegym.__version__,
            "env_id": self.env.spec.id if self.env.spec is not None else None,
            **_kwargs(self.env),
            "family": getattr(core, "family", None),
            "mode": getattr(core, "mode", None),
            "task": {"id": task.id, "family": task.family, "digest": task_digest(task)} if task else None,
            "reset": {
                "seed": seed,
                "options": encoded(options or {}),
                "observation": encoded(observation),
                "info": encoded(info),
                "seconds": time.perf_counter() - started,
            },
            "steps": [],
        }
        self._noted = {}
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        started = time.perf_counter()
        observation, reward, terminated, truncated, info = self.env.step(action)
        seconds = time.perf_counter() - started
        if self._episode is not None:
            step: dict[str, Any] = {"action": encoded(action)}
            if "tool_calls" in info:  # (agent mode: the calls as the env parsed them, and its malformed ones)
                errors = [{"error": error} for error in info.get("format_error_messages", ())]
                step["tool_calls"] = encoded(info["tool_calls"]) + errors
            if self._noted:
                step["generation"] = encoded(self._noted)
            step.update(
                observation=encoded(observation),
                reward=encode(float(reward)),
                terminated=bool(terminated),
                truncated=bool(truncated),
                info=encoded(info),
                seconds=seconds,
            )
            self._episode["steps"].append(step)
        self._noted = {}
        if terminated or truncated:
            self._write("terminated" if terminated else "truncated")
        return observation, reward, terminated, truncated, info

    def close(self) -> None:
        self._write("open")
        super().close()

    def snapshot_state(self) -> Any:
        """The episode recorded so far (`codegym.episodes.branch`)."""
        return copy.deepcopy((self._episode, self._noted))

    def restore_state(self, state: Any, *, fork: bool) -> None:
        """Go on recording from ``state``; a fork records an episode of its own, whose
        ``forked_from`` names the episode and the step it branched after."""
        episode, noted = copy.deepcopy(state)
        if fork and episode is not None:
            origin = {"episode": episode["episode"], "step": len(episode["steps"])}
            episode.update(episode=uuid.uuid4().hex, forked_from=origin)
        self._episode, self._noted = episode, noted

    def _write(self, ended: str) -> None:
        """Append the episode in progress (if any) as one line, and forget it."""
        episode, self._episode = self._episode, None
        if episode is None:
            return
        episode["ended"] = ended
        episode["return"] = encode(sum(float(decode(step["reward"])) for step in episode["steps"]))
        line = (json.dumps(episode, separators=(",", ":"), allow_nan=False) + "\n").encode()
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:  # (one write of the whole line, at the end: lines of several recorders never interleave)
            written = os.write(descriptor, line)
            while written < len(line):
                written += os.write(descriptor, line[written:])
        finally:
            os.close(descriptor)


def read_episodes(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The episodes `RecordEpisodes` wrote to ``path``, their values decoded (a `Grade` is one
    again).

    Raises:
        ValueError: A line that is no episode record of a version this codegym reads (its
            number says which).
    """
    for record in read_records(path):
        yield decode(record)


def read_records(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The episodes of ``path`` as written: their values still in the wire's JSON (decode
    what you need with `codegym.serve.wire.decode`: faster than `read_episodes` for a big
    file read for a few fields). Raises as `read_episodes` does."""
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{number}: not JSON ({e}); expected one episode a line") from e
            if not isinstance(record, dict) or record.get("version") != RECORD_VERSION:
                version = record.get("version") if isinstance(record, dict) else None
                raise ValueError(f"{path}:{number}: an episode record of version {version!r}; "
                                 f"this codegym reads version {RECORD_VERSION}")  # fmt: skip
            yield record


def task_digest(task: Task) -> str:
    """The sha256 of what a task poses and judges: its id, family, prompt, language, reference
    and tests (every field); a family's ``metadata``, which may hold objects, is left out."""
    content = [task.id, task.family, task.prompt, task.language, task.reference,
               [dataclasses.asdict(test) for test in task.tests]]  # fmt: skip
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def _kwargs(env: gym.Env) -> dict[str, Any]:
    """The keyword arguments that made ``env`` (from its spec): those the wire carries, and
    the names and types of the others (a `TaskSet`, an executor)."""
    given: Mapping[str, Any] = env.spec.kwargs if env.spec is not None else {}
    kept, left = {}, {}
    for name, value in given.items():
        try:
            kept[name] = encode(value)
        except TypeError:
            left[name] = type(value).__name__
    return {"env_kwargs": kept, "env_kwargs_not_recorded": left}


def encoded(value: Any) -> Any:
    """``value`` in the wire's JSON; a part the wire does not carry (an object of a family's
    own) is written as ``{"__unrecorded__": <its type's name>}``, never failing the step."""
    try:
        return encode(value)
    except TypeError:
        if isinstance(value, Mapping):
            return {str(key): encoded(item) for key, item in value.items()}
        if isinstance(value, list):
            return [encoded(item) for item in value]
        if isinstance(value, tuple):
            return {"__tuple__": [encoded(item) for item in value]}
        return {"__unrecorded__": type(value).__name__}
