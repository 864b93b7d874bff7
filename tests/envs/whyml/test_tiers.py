"""WhyML in every isolation tier: ``why3 prove`` talks to the ``why3server`` it starts over a
unix socket in its temp dir, which a trusted tool's step keeps in the `container` tier
(``Step.sockets="tool"``), where a submission's steps reach no unix socket."""

from __future__ import annotations

import pytest
from codegym.envs.whyml.env import WhyMLEnv

from codegym.batch import Scorer
from codegym.executor import Executor, Step
from codegym.grade import Status

pytestmark = pytest.mark.timeout(300)


def test_a_module_verifies_in_every_tier(tiered_executor: Executor) -> None:
    env = WhyMLEnv(executor=tiered_executor)
    task = env.tasks.get("codegym-whyml/sum-to")
    with Scorer(env, dedupe=False) as scorer:
        right, given = scorer.score([(task.id, task.reference or ""), (task.id, str(task.metadata["given"]))])
    assert right.status is Status.OK, right.message
    assert given.status is not Status.OK and "server" not in given.message, given.message


def test_a_sockets_policy_is_one_of_three() -> None:
    assert Step(argv=("why3",), sockets="tool").sockets == "tool"
    with pytest.raises(ValueError, match="'kill', 'errno' or 'tool'"):
        Step(argv=("why3",), sockets="unix")  # type: ignore[arg-type]
