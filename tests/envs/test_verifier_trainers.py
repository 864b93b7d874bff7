"""The verifier envs through the trainer adapters: TRL's and verl's rewards are the envs'
verdicts (1.0 only for a proof, or a contract CrossHair finds no counterexample to; 0.0 for
a cheat), and TRL's agent environment offers ``verify``."""

from __future__ import annotations

import gymnasium as gym
import pytest

from codegym.integrations import trl, verl

CASES = {
    "codegym/Dafny-v1": "codegym-dafny/sum-array",
    "codegym/WhyML-v0": "codegym-whyml/sum-to",
    "codegym/PyContracts-v1": "codegym-contracts/power_of_two",
}
CHEATS = {
    "codegym/Dafny-v1": "lemma Bogus()\n  ensures false\n",
    "codegym/WhyML-v0": "module Impl\n  axiom bad: false\nend\n",
    "codegym/PyContracts-v1": "# crosshair: off\ndef is_power_of_two(n: int) -> bool:\n    return bin(n).count('1') == 1\n",
}


@pytest.mark.parametrize("env_id", CASES)
def test_trl_verl_and_the_agent_environment_reward_proofs_only(env_id: str) -> None:
    task_id = CASES[env_id]
    env = gym.make(env_id)
    task = env.unwrapped.tasks.get(task_id)  # type: ignore[attr-defined]
    env.close()
    completions = [f"```\n{task.reference}\n```", task.metadata["given"], CHEATS[env_id]]
    assert trl.reward_function(env_id)(completions=completions, task_id=[task_id] * 3) == [1.0, 0.0, 0.0]
    extra = {"env_kwargs": "{}"}
    assert verl.compute_score_batch([env_id] * 3, completions, [task_id] * 3, [extra] * 3) == [1.0, 0.0, 0.0]
    assert any(row["task_id"] == task_id for row in trl.prompt_dataset(env_id))

    rollout = trl.environment_factory(env_id)()
    try:
        rollout.reset(task_id=task_id)
        submission = env.unwrapped.submission  # type: ignore[attr-defined]
        rollout.str_replace_editor(command="create", path=submission, file_text=task.reference)
        assert "Status: OK" in rollout.verify()  # type: ignore[attr-defined]
        assert "Status: OK" in rollout.submit() and rollout.get_reward() == 1.0
    finally:
        rollout.env.close()
