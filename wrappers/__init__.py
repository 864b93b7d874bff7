"""Wrappers that reshape rewards, drive curricula and control feedback. They read ``info``,
never re-run code, and record their constructor arguments, so ``gym.make(env.spec)``
rebuilds a whole stack."""

from __future__ import annotations

from codegym.wrappers.credit import DivergenceCredit
from codegym.wrappers.curriculum import (
    AdaptiveCurriculum,
    ContextBootstrap,
    Curriculum,
    DifficultyCurriculum,
    MistakeReplay,
    TierCurriculum,
)
from codegym.wrappers.efficiency import EfficiencyReward
from codegym.wrappers.refinement import FeedbackDetail
from codegym.wrappers.reward import (
    BinaryReward,
    CompileReward,
    LengthPenalty,
    PassRateReward,
    RefinementDiscount,
    RewardTerm,
    SpeedupReward,
    TierWeightedReward,
)

from codegym.episodes import RecordEpisodes, read_episodes

__all__ = [
    "AdaptiveCurriculum",
    "BinaryReward",
    "CompileReward",
    "ContextBootstrap",
    "Curriculum",
    "DifficultyCurriculum",
    "DivergenceCredit",
    "EfficiencyReward",
    "FeedbackDetail",
    "LengthPenalty",
    "MistakeReplay",
    "PassRateReward",
    "RecordEpisodes",
    "RefinementDiscount",
    "RewardTerm",
    "SpeedupReward",
    "TierCurriculum",
    "TierWeightedReward",
    "read_episodes",
]
