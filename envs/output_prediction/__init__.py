"""Execution prediction, CRUXEval-style: a function's output, or an input that gives an output
(``codegym/OutputPrediction-v1``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/OutputPrediction-v1",
    entry_point="codegym.envs.output_prediction.env:OutputPredictionEnv",
    kwargs={"tasks": "generated", "count": 500, "seed": 0},
)
