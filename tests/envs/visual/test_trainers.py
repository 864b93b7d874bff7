"""The visual envs through the trainer adapters: the reward a trainer gets is the env's
similarity (never 1.0 for any picture that renders), and the datasets carry the target."""

from __future__ import annotations

import inspect
import io
import json

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from codegym.integrations import trl, verl

from .test_svg import HOUSE, OPEN

ENV = "codegym/SVGFromImage-v1"
ROOF_ONLY = OPEN + '<polygon points="40,120 128,40 216,120" fill="#b5651d"/></svg>'


@pytest.fixture(scope="module")
def reference() -> str:
    env = gym.make(ENV)
    try:
        return env.unwrapped.tasks.get(HOUSE).reference  # type: ignore[attr-defined]
    finally:
        env.close()


def test_trl_and_verl_rewards_are_the_envs_similarity(reference: str) -> None:
    env = gym.make(ENV)
    stepped = []
    try:
        for code in (reference, ROOF_ONLY):
            env.reset(options={"task_id": HOUSE})
            stepped.append(float(env.step(code)[1]))
    finally:
        env.close()
    assert stepped[0] >= 0.99 and 0.0 < stepped[1] < 0.9  # (a partial picture: OK, but far from 1)

    completions = [f"```svg\n{reference}```", ROOF_ONLY, "<svg"]
    rewards = trl.reward_function(ENV)(completions=completions, task_id=[HOUSE] * 3)
    assert rewards == pytest.approx([*stepped, 0.0])
    # `correct` counts solved answers: the partial picture is OK but under the similarity threshold
    assert trl.reward_function(ENV, "correct")(completions=completions, task_id=[HOUSE] * 3) == [1.0, 0.0, 0.0]

    extra = {"env_kwargs": "{}"}
    assert verl.compute_score(ENV, ROOF_ONLY, HOUSE, extra) == pytest.approx(stepped[1])
    batch = verl.compute_score_batch([ENV] * 3, completions, [HOUSE] * 3, [extra] * 3)
    assert batch == pytest.approx([*stepped, 0.0])


def test_the_datasets_carry_the_target_picture() -> None:
    env = gym.make(ENV)
    target = env.reset(options={"task_id": HOUSE})[0]["target"]
    env.close()
    dataset = trl.prompt_dataset(ENV, chat=True)
    row = next(row for row in dataset if row["task_id"] == HOUSE)
    assert len(row["images"]) == 1 and np.array_equal(np.asarray(row["images"][0].convert("RGB")), target)

    found = next(row for row in verl.rows(ENV) if row["reward_model"]["ground_truth"] == HOUSE)
    assert found["prompt"][0]["content"].startswith("<image>\nWrite an SVG document")
    picture = np.asarray(Image.open(io.BytesIO(found["images"][0]["bytes"])).convert("RGB"))
    assert np.array_equal(picture, target)
    assert "images" not in verl.rows("codegym/PythonFunction-v0", tasks="codegym-py")[0]


def test_trls_agent_environment_offers_the_render_tool(reference: str) -> None:
    from transformers.utils import get_json_schema

    rollout = trl.environment_factory(ENV)()
    try:
        methods = [name for name, _ in inspect.getmembers(type(rollout), inspect.isfunction)]
        assert "render" in methods and "submit" in methods
        schema = get_json_schema(type(rollout).render)["function"]  # type: ignore[attr-defined]
        assert schema["name"] == "render" and "similarity" in schema["description"]
        assert schema["parameters"].get("properties", {}) == {}
        rollout.reset(task_id=HOUSE)
        rollout.str_replace_editor(command="create", path="drawing.svg", file_text=reference)
        assert "similarity 1.000" in rollout.render()  # type: ignore[attr-defined]
        assert "Status: OK" in rollout.submit() and rollout.get_reward() == pytest.approx(1.0, abs=0.01)
    finally:
        rollout.env.close()
    assert json.dumps(get_json_schema(trl.CodegymAgentEnvironment.bash))  # (the plain class is unchanged)
    assert not hasattr(trl.CodegymAgentEnvironment, "render")
