"""Curricula: wrappers that choose the next task (and its test tiers, and its prompt's
demonstrations) through ``reset(options=...)``, from what ``info`` reported.

Every knob is an attribute, settable with ``env.set_wrapper_attr`` or
``VectorEnv.set_attr`` and taking effect at the next reset; ``state_dict`` /
``load_state_dict`` read and restore the learned statistics, so a trainer running
``make_vec`` workers can gather them (``envs.call("state_dict")``), merge, and broadcast
(``envs.call("load_state_dict", merged)``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from codegym.core import CodeEnv
from codegym.task import TIERS, Task, TaskSet

ORDERS = ("easy_to_hard", "hard_first", "mixed")
DIFFICULTIES = ("easy", "medium", "hard")


class Curriculum(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Base: subclasses pick the next task in `choose` and learn from episodes in `record`.
    An explicit ``reset(options={"task_id": ...})`` always wins."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        if not isinstance(env.unwrapped, CodeEnv):
            raise TypeError(f"a curriculum needs a codegym env, got {type(env.unwrapped).__name__}")
        self.episodes = 0
        self._rng: np.random.Generator | None = None
        self._task_id: str | None = None

    @property
    def tasks(self) -> TaskSet:
        return self.env.unwrapped.tasks  # type: ignore[attr-defined]

    @property
    def rng(self) -> np.random.Generator:
        if self._rng is None:
            self._rng = np.random.default_rng(int(self.env.unwrapped.np_random.integers(1 << 63)))
        return self._rng

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})
        if "task_id" not in options:
            options.update(self.choose())
        observation, info = self.env.reset(seed=seed, options=options)
        self._task_id = info["task_id"]
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if (terminated or truncated) and "grade" in info and "infra_error" not in info:
            self.episodes += 1
            self.record(info["task_id"], bool(info["grade"].solved), info)  # (the family's "solved", not just OK)
        return observation, reward, terminated, truncated, info

    def choose(self) -> dict[str, Any]:
        """Reset options for the next episode (``{}`` lets the env draw a task)."""
        return {}

    def record(self, task_id: str, solved: bool, info: dict[str, Any]) -> None:
        """Learn from a finished episode."""

    def state_dict(self) -> dict[str, Any]:
        return {"episodes": self.episodes}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.episodes = int(state["episodes"])


class DifficultyCurriculum(Curriculum):
    """Tasks by difficulty on a schedule of episodes.

    ``order="easy_to_hard"``: easy tasks for ``episodes_per_stage`` episodes, then medium, then
    hard (and hard from then on); ``"hard_first"``: the reverse; ``"mixed"``: every task,
    uniformly (the control condition).
    """

    def __init__(self, env: gym.Env, order: str = "easy_to_hard", episodes_per_stage: int = 100) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, order=order, episodes_per_stage=episodes_per_stage)
        super().__init__(env)
        if order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
        if episodes_per_stage < 1:
            raise ValueError(f"episodes_per_stage must be at least 1, got {episodes_per_stage}")
        self.pools = {d: [t.id for t in self.tasks if t.difficulty == d] for d in DIFFICULTIES}
        if not any(self.pools.values()):
            raise ValueError(
                f"task set {self.tasks.name!r} has no difficulty labels; use one that has (tasks='codegym-py')"
            )
        self.order = order
        self.episodes_per_stage = episodes_per_stage

    @property
    def stage(self) -> str | None:
        """The difficulty served now (None for ``mixed``)."""
        if self.order == "mixed":
            return None
        stages = [d for d in (DIFFICULTIES if self.order == "easy_to_hard" else DIFFICULTIES[::-1]) if self.pools[d]]
        return stages[min(self.episodes // self.episodes_per_stage, len(stages) - 1)]

    def choose(self) -> dict[str, Any]:
        stage = self.stage
        pool = self.pools[stage] if stage else [t.id for t in self.tasks]
        return {"task_id": pool[int(self.rng.integers(len(pool)))]}


class AdaptiveCurriculum(Curriculum):
    """Serve tasks whose success rate is near ``target`` (0.5: where group-relative
    advantages carry the most signal).

    Per task it keeps a decayed success rate (``rate = decay * rate + (1 - decay) * solved``,
    starting at ``target``) and samples with weight ``exp(-((rate - target) / width) ** 2)``.
    A task tried at least ``min_attempts`` times whose rate is below ``park_low`` or above
    ``park_high`` is parked: it is only drawn, uniformly among the parked, with probability
    ``revisit_prob``, so a change in skill is still noticed.
    """

    def __init__(
        self,
        env: gym.Env,
        target: float = 0.5,
        decay: float = 0.8,
        width: float = 0.25,
        park_low: float = 0.05,
        park_high: float = 0.95,
        min_attempts: int = 4,
        revisit_prob: float = 0.05,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, target=target, decay=decay, width=width, park_low=park_low, park_high=park_high,
            min_attempts=min_attempts, revisit_prob=revisit_prob,
        )  # fmt: skip
        super().__init__(env)
        if not (0 < target < 1 and 0 <= decay < 1 and width > 0 and 0 <= revisit_prob <= 1):
            raise ValueError("need 0 < target < 1, 0 <= decay < 1, width > 0 and 0 <= revisit_prob <= 1")
        if not park_low < target < park_high:
            raise ValueError(f"need park_low < target < park_high, got {park_low}, {target}, {park_high}")
        self.target, self.decay, self.width = target, decay, width
        self.park_low, self.park_high, self.min_attempts = park_low, park_high, min_attempts
        self.revisit_prob = revisit_prob
        self.rates: dict[str, float] = {}
        self.attempts: dict[str, int] = {}

    def parked(self, task_id: str) -> bool:
        rate = self.rates.get(task_id, self.target)
        return self.attempts.get(task_id, 0) >= self.min_attempts and not self.park_low <= rate <= self.park_high

    def weights(self) -> tuple[list[str], np.ndarray]:
        """The active (not parked) tasks and their sampling probabilities."""
        active = [t.id for t in self.tasks if not self.parked(t.id)]
        rates = np.array([self.rates.get(i, self.target) for i in active])
        weights = np.exp(-(((rates - self.target) / self.width) ** 2))
        return active, weights / weights.sum() if active else weights

    def choose(self) -> dict[str, Any]:
        parked = [t.id for t in self.tasks if self.parked(t.id)]
        active, probabilities = self.weights()
        if parked and (not active or self.rng.random() < self.revisit_prob):
            return {"task_id": parked[int(self.rng.integers(len(parked)))]}
        return {"task_id": active[int(self.rng.choice(len(active), p=probabilities))]}

    def record(self, task_id: str, solved: bool, info: dict[str, Any]) -> None:
        rate = self.rates.get(task_id, self.target)
        self.rates[task_id] = self.decay * rate + (1 - self.decay) * float(solved)
        self.attempts[task_id] = self.attempts.get(task_id, 0) + 1

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "rates": dict(self.rates), "attempts": dict(self.attempts)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.rates = {k: float(v) for k, v in state["rates"].items()}
        self.attempts = {k: int(v) for k, v in state["attempts"].items()}


class TierCurriculum(Curriculum):
    """Unlock harder test tiers as the agent masters easier ones.

    Episodes count only the unlocked tiers' tests (``reset(options={"tiers": ...})``); once the
    mean pass rate of the last ``window`` episodes reaches ``threshold``, the next tier of
    ``order`` unlocks and the window starts afresh.
    """

    def __init__(self, env: gym.Env, threshold: float = 0.8, window: int = 20, order: Sequence[str] = TIERS) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, threshold=threshold, window=window, order=tuple(order))
        super().__init__(env)
        if not 0 < threshold <= 1 or window < 1:
            raise ValueError(f"need 0 < threshold <= 1 and window >= 1, got {threshold}, {window}")
        if not order or set(order) - set(TIERS):
            raise ValueError(f"order must be tiers from {TIERS}, got {order}")
        self.threshold, self.window, self.order = threshold, window, tuple(order)
        self.unlocked = 1
        self.recent: deque[float] = deque(maxlen=window)

    @property
    def tiers(self) -> tuple[str, ...]:
        return self.order[: self.unlocked]

    def choose(self) -> dict[str, Any]:
        pool = [t for t in self.tasks if any(test.tier in self.tiers for test in t.tests)]
        if not pool:
            raise ValueError(f"no task has tests in tiers {self.tiers}")
        return {"task_id": pool[int(self.rng.integers(len(pool)))].id, "tiers": self.tiers}

    def record(self, task_id: str, solved: bool, info: dict[str, Any]) -> None:
        self.recent.append(info["grade"].pass_rate)
        full = len(self.recent) == self.window
        if full and self.unlocked < len(self.order) and sum(self.recent) / self.window >= self.threshold:
            self.unlocked += 1
            self.recent.clear()

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "unlocked": self.unlocked, "recent": list(self.recent)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.unlocked = int(state["unlocked"])
        self.recent = deque(state["recent"], maxlen=self.window)


class MistakeReplay(Curriculum):
    """With probability ``replay_prob``, serve again a task recently failed (a "mistake
    book" of at most ``capacity`` tasks); a replayed task leaves the book once solved."""

    def __init__(self, env: gym.Env, replay_prob: float = 0.3, capacity: int = 256) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, replay_prob=replay_prob, capacity=capacity)
        super().__init__(env)
        if not 0 <= replay_prob <= 1 or capacity < 1:
            raise ValueError(f"need 0 <= replay_prob <= 1 and capacity >= 1, got {replay_prob}, {capacity}")
        self.replay_prob, self.capacity = replay_prob, capacity
        self.book: list[str] = []
        self.replayed = 0

    def choose(self) -> dict[str, Any]:
        if self.book and self.rng.random() < self.replay_prob:
            self.replayed += 1
            return {"task_id": self.book[int(self.rng.integers(len(self.book)))]}
        return {}

    def record(self, task_id: str, solved: bool, info: dict[str, Any]) -> None:
        if task_id in self.book:
            self.book.remove(task_id)
        if not solved:
            self.book.append(task_id)
            del self.book[: max(0, len(self.book) - self.capacity)]

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "book": list(self.book), "replayed": self.replayed}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.book, self.replayed = list(state["book"]), int(state["replayed"])


class ContextBootstrap(Curriculum):
    """Prepend ``k`` solved demonstrations from *other* tasks to the prompt, with a
    probability annealed linearly from ``start_prob`` to zero over ``anneal_episodes``.

    Demonstrations are the agent's own accepted solutions when it has them, else the tasks'
    reference solutions.
    """

    def __init__(self, env: gym.Env, k: int = 2, start_prob: float = 1.0, anneal_episodes: int = 1000) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, k=k, start_prob=start_prob, anneal_episodes=anneal_episodes)
        super().__init__(env)
        if k < 1 or not 0 <= start_prob <= 1 or anneal_episodes < 1:
            raise ValueError(
                f"need k >= 1, 0 <= start_prob <= 1, anneal_episodes >= 1; got {k}, {start_prob}, {anneal_episodes}"
            )
        self.k, self.start_prob, self.anneal_episodes = k, start_prob, anneal_episodes
        self.solved: dict[str, str] = {}
        self.prefix = ""

    @property
    def probability(self) -> float:
        return self.start_prob * max(0.0, 1.0 - self.episodes / self.anneal_episodes)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = super().reset(seed=seed, options=options)
        self.prefix = ""
        if self.rng.random() < self.probability:
            self.prefix = self._demonstrations(info["task_id"])
        info = {**info, "demonstrations": self.prefix.count("### Example")}
        return self._with_prefix(observation), info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = super().step(action)
        return self._with_prefix(observation), reward, terminated, truncated, info

    def record(self, task_id: str, solved: bool, info: dict[str, Any]) -> None:
        if solved:
            self.solved[task_id] = info["code"]

    def _demonstrations(self, current: str) -> str:
        candidates = [t for t in self.tasks if t.id != current and (t.id in self.solved or t.reference)]
        if not candidates:
            return ""
        picks = self.rng.choice(len(candidates), size=min(self.k, len(candidates)), replace=False)
        blocks = [self._example(n + 1, candidates[int(i)]) for n, i in enumerate(picks)]
        return "\n\n".join(blocks) + "\n\n### Your task\n"

    def _example(self, number: int, task: Task) -> str:
        solution = self.solved.get(task.id) or task.reference or ""
        return (
            f"### Example {number}\n{task.prompt.rstrip()}\n\nSolution:\n```{task.language}\n{solution.rstrip()}\n```"
        )

    def _with_prefix(self, observation: dict[str, Any]) -> dict[str, Any]:
        if not self.prefix:
            return observation
        return {**observation, "prompt": self.prefix + observation["prompt"]}

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "solved": dict(self.solved)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.solved = dict(state["solved"])
