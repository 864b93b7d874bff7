"""How much of the feedback the agent sees between attempts."""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

from codegym.grade import FEEDBACK_LEVELS, FeedbackLevel


class FeedbackDetail(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Re-render ``obs["feedback"]`` at ``level``: ``"status"`` (the verdict only),
    ``"public"`` (plus failing public tests: call, expected, got) or ``"full"`` (plus
    diagnostics and traces). Hidden tests are only ever counted. To resume a partial
    trajectory, pass ``reset(options={"history": [{"code": ..., "feedback": ...}, ...]})``.
    """

    def __init__(self, env: gym.Env, level: FeedbackLevel = "public") -> None:
        gym.utils.RecordConstructorArgs.__init__(self, level=level)
        super().__init__(env)
        if level not in FEEDBACK_LEVELS:
            raise ValueError(f"level must be one of {FEEDBACK_LEVELS}, got {level!r}")
        self.level: FeedbackLevel = level

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if "grade" in info:
            observation = {**observation, "feedback": info["grade"].feedback(self.level)}
        return observation, reward, terminated, truncated, info
