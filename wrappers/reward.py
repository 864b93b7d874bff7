"""Reward shaping. Each wrapper sets or adds one named term in ``info["reward_components"]``
and the reward is the sum of the terms, so wrappers stack. They read ``info["grade"]`` and
never run code. A step flagged as an infrastructure failure passes through untouched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym

from codegym.grade import Grade, Status
from codegym.task import TIERS

PRIMARY = ("correct", "pass_rate", "tier_weighted")  # the correctness term; one at a time
UNTRUSTED = (Status.HACK, Status.SEC)  # tests a submission passed before cheating earn nothing
DEFAULT_TIER_WEIGHTS = {"basic": 0.1, "intermediate": 0.3, "complex": 0.4, "edge": 0.2}


class RewardTerm(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Base of the shaping wrappers: subclasses return their terms from `terms`."""

    primary: ClassVar[bool] = False

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if "infra_error" in info or "grade" not in info:
            return observation, reward, terminated, truncated, info
        components = dict(info.get("reward_components") or {"correct": float(reward)})
        if self.primary:
            for key in PRIMARY:
                components.pop(key, None)
        components.update(self.terms(info["grade"], info, components))
        info = {**info, "reward_components": components}
        return observation, float(sum(components.values())), terminated, truncated, info

    def terms(self, grade: Grade, info: Mapping[str, Any], components: Mapping[str, float]) -> dict[str, float]:
        raise NotImplementedError


class BinaryReward(RewardTerm):
    """``value`` when every test passes, else 0 (the envs' default, made explicit)."""

    primary = True

    def __init__(self, env: gym.Env, value: float = 1.0) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, value=value)
        super().__init__(env)
        self.value = value

    def terms(self, grade: Grade, info: Mapping[str, Any], components: Mapping[str, float]) -> dict[str, float]:
        return {"correct": self.value if grade.status is Status.OK else 0.0}


class PassRateReward(RewardTerm):
    """The fraction of hidden tests passed (of all tests when a task has no hidden ones);
    0 for ``HACK`` and ``SEC``."""

    primary = True

    def __init__(self, env: gym.Env, hidden_only: bool = True) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, hidden_only=hidden_only)
        super().__init__(env)
        self.hidden_only = hidden_only

    def terms(self, grade: Grade, info: Mapping[str, Any], components: Mapping[str, float]) -> dict[str, float]:
        tests = [t for t in grade.tests if t.hidden] if self.hidden_only else list(grade.tests)
        tests = tests or list(grade.tests)
        if grade.status in UNTRUSTED or not tests:
            return {"pass_rate": 0.0}
        return {"pass_rate": sum(t.passed for t in tests) / len(tests)}


class TierWeightedReward(RewardTerm):
    """``sum(w[t] * pass_rate[t]) / sum(w[t])`` over the tiers the task's tests have.

    ``weights`` maps each of basic/intermediate/complex/edge to a weight; they must sum to 1.
    A task without tier labels falls back to its overall pass rate; ``HACK``/``SEC`` get 0.
    """

    primary = True

    def __init__(self, env: gym.Env, weights: Mapping[str, float] | None = None) -> None:
        weights = dict(DEFAULT_TIER_WEIGHTS if weights is None else weights)
        gym.utils.RecordConstructorArgs.__init__(self, weights=weights)
        super().__init__(env)
        if set(weights) != set(TIERS) or any(w < 0 for w in weights.values()):
            raise ValueError(f"weights need exactly the tiers {TIERS} with non-negative values, got {weights}")
        if not math.isclose(sum(weights.values()), 1.0, abs_tol=1e-9):
            raise ValueError(f"tier weights must sum to 1, got {sum(weights.values())}")
        self.weights = weights

    def terms(self, grade: Grade, info: Mapping[str, Any], components: Mapping[str, float]) -> dict[str, float]:
        if grade.status in UNTRUSTED or not grade.tests:
            return {"tier_weighted": 0.0}
        by_tier: dict[str, list[bool]] = {}
        for test in grade.tests:
            if test.tier in self.weights:
                by_tier.setdefault(test.tier, []).append(test.passed)
        if not by_tier:
            return {"tier_weighted": sum(t.passed for t in grade.tests) / len(grade.tests)}
        total = sum(self.weights[tier] for tier in by_tier)
        if total == 0:
            return {"tier_weighted": 0.0}
        value = sum(self.weights[tier] * sum(passed) / len(passed) for tier, passed in by_tier.items())
        return {"tier_weighted": value / total}


class CompileReward(RewardTerm):
    """``penalty`` when the submission does not compile or parse (``CE``), ``bonus`` when it
    does: a format signal for early training."""

    def __init__(self, env: gym.Env, penalty: float = -0.5, bonus: float = 0.0) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, penalty=penalty, bonus=bonus)
        super().__init__(env)
        self.penalty, self.bonus = penalty, bonus

    def terms(self, grade: Grade, info: Mapping[str, Any], components: Mapping[str, float]) -> dict[str, float]:
        return {"compile": self.penalty if grade.status is Status.CE else self.bonus}


class LengthPenalty(RewardTerm):
    """``-per_char`` for each character of code beyond ``free_chars``, at most ``cap``."""

    def __init__(self, env: gym.Env, per_char: float = 1e-4, free_chars: int = 1000, cap: float = 0.5) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, per_char=per_char, free_chars=free_chars, cap=cap)
        super().__init__(env)
        if per_char < 0 or free_chars < 0 or cap < 0:
            raise ValueError("per_char, free_chars and cap must be non-negative")
        self.per_char, self.free_chars, self.cap = per_char, free_chars, cap

    def terms(self, grade: Grade, info: Mapping[str, Any], components: Mapping[str, float]) -> dict[str, float]:
        excess = max(0, len(info.get("code", "")) - self.free_chars)
        return {"length": -min(self.cap, self.per_char * excess)}


class SpeedupReward(RewardTerm):
    """A speed term gated by correctness, for families whose grades report ``speedup``.

    ``mode="log"``: ``weight * log(speedup)``; ``mode="fast_p"``: ``weight`` when the speedup
    exceeds ``p``. Without a measured speedup (no GPU, a family without timings) the term is 0
    and ``info["reward_notes"]["speedup"]`` says why: never a made-up number.
    """

    def __init__(self, env: gym.Env, weight: float = 1.0, mode: str = "log", p: float = 1.0) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, weight=weight, mode=mode, p=p)
        super().__init__(env)
        if mode not in ("log", "fast_p"):
            raise ValueError(f"mode must be 'log' or 'fast_p', got {mode!r}")
        self.weight, self.mode, self.p = weight, mode, p

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = super().step(action)
        grade = info.get("grade")
        if grade is not None and "speedup" not in grade.metrics:
            info["reward_notes"] = {**info.get("reward_notes", {}), "speedup": "no speedup was measured for this run"}
        return observation, reward, terminated, truncated, info

    def terms(self, grade: Grade, info: Mapping[str, Any], components: Mapping[str, float]) -> dict[str, float]:
        return {"speedup": speedup_term(grade, self.weight, self.mode, self.p)}


def speedup_term(grade: Grade, weight: float, mode: str, p: float) -> float:
    """The speed term of `SpeedupReward` for one grade."""
    speedup = grade.metrics.get("speedup")
    if grade.status is not Status.OK or speedup is None or speedup <= 0:
        return 0.0
    if mode == "log":
        return weight * math.log(speedup)
    return weight if speedup > p else 0.0


class RefinementDiscount(RewardTerm):
    """Scale the correctness term by ``gamma ** (attempt - 1)``: a fix found on the third
    try is worth less than one found on the first."""

    def __init__(self, env: gym.Env, gamma: float = 0.8) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, gamma=gamma)
        super().__init__(env)
        if not 0.0 < gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        self.gamma = gamma

    def terms(self, grade: Grade, info: Mapping[str, Any], components: Mapping[str, float]) -> dict[str, float]:
        primary = sum(v for k, v in components.items() if k in PRIMARY)
        factor = self.gamma ** (int(info.get("attempt", 1)) - 1)
        return {"refinement_discount": primary * (factor - 1.0)}
