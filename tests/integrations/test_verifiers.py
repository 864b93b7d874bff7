"""codegym through verifiers' own runner: `run_eval` against a canned OpenAI-compatible model.

The model is a loopback chat-completions endpoint that answers each task's prompt with a canned
reply per turn (its reference solution, or a wrong answer); what is under test is verifiers'
rollout (interception, harness, turns) and codegym's taskset, env and scoring inside it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from codegym.batch import Scorer
from codegym.core import CodeEnv
from codegym.error import SandboxError
from codegym.executor.base import Executor
from codegym.grade import STATUSES, Grade, Status

vf = pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed")
web = pytest.importorskip("aiohttp.web")
from verifiers.v1.cli.eval.runner import run_eval  # noqa: E402
from verifiers.v1.configs.cli.eval import EvalConfig  # noqa: E402

from codegym.integrations.verifiers_env import TASKSET_ID, CodegymEnv, load_environment, make_code_env  # noqa: E402

pytestmark = pytest.mark.timeout(60)

WRONG = "```python\ndef nothing_like_it():\n    return None\n```"
WRONG_STDIO = "```python\nprint(0)\n```"


class CannedModel:
    """An OpenAI-compatible ``/v1/chat/completions`` on a loopback port: the reply to a
    conversation is ``replies[first user message][number of assistant turns so far]``."""

    def __init__(self, replies: dict[str, Sequence[str]]) -> None:
        self.replies = replies
        self.requests: list[dict[str, Any]] = []
        self.url = ""
        self._runner: Any = None

    async def __aenter__(self) -> CannedModel:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._complete)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/v1"
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._runner.cleanup()

    async def _complete(self, request: Any) -> Any:
        body = await request.json()
        self.requests.append(body)
        if body.get("stream"):
            return web.json_response({"error": {"message": "this canned model does not stream"}}, status=400)
        messages = body["messages"]
        prompt = text_of(next(m["content"] for m in messages if m["role"] == "user"))
        turn = sum(m["role"] == "assistant" for m in messages)
        replies = self.replies[prompt]
        content = replies[min(turn, len(replies) - 1)]
        return web.json_response({
            "id": f"canned-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        })  # fmt: skip


def text_of(content: str | list[dict[str, Any]]) -> str:
    """A message's text (a visual task's prompt is text and image parts)."""
    return content if isinstance(content, str) else "".join(p["text"] for p in content if p["type"] == "text")


def evaluate(env: CodegymEnv, replies: dict[str, Sequence[str]], out: Path) -> tuple[list[Any], CannedModel]:
    """verifiers' eval runner on ``env`` against the canned model: the episodes, and the model."""

    async def main() -> tuple[list[Any], CannedModel]:
        async with CannedModel(replies) as model:
            config = EvalConfig.model_validate({
                "env": env.config, "model": "canned", "push": False, "rich": None, "output_dir": out,
                "client": {"type": "eval", "base_url": model.url, "api_key_var": "CODEGYM_TEST_NO_KEY"},
            })  # fmt: skip
            episodes = await asyncio.wait_for(run_eval(config), timeout=50)
        return episodes, model

    return asyncio.run(main())


def canned(env: CodegymEnv, answers: Mapping[str, Sequence[str]]) -> dict[str, Sequence[str]]:
    """Replies by prompt text, from replies by task id."""
    return {task.data.prompt: answers[task.data.info["task_id"]] for task in env.taskset}


def fenced(code: str | None) -> str:
    assert code
    return f"Here is my solution.\n\n```python\n{code}\n```\n"


def traces_by_task(episodes: list[Any]) -> dict[str, Any]:
    out = {}
    for episode in episodes:
        (trace,) = episode.traces
        out[trace.task.data.info["task_id"]] = trace
    return out


def in_process(core: CodeEnv, task_id: str, answer: str) -> float:
    """codegym's own reward for ``answer``, graded in this process."""
    (grade,) = Scorer(core, dedupe=False).score([(task_id, answer)])
    return core.reward_of(grade)


def tasks_of(env_id: str, count: int, **kwargs: Any) -> list[Any]:
    return list(make_code_env(env_id, kwargs).tasks)[:count]


@pytest.mark.parametrize(
    ("env_id", "wrong"), [("codegym/PythonFunction-v0", WRONG), ("codegym/StdioProgram-v0", WRONG_STDIO)]
)
def test_single_turn_rewards_are_codegyms_grades(env_id: str, wrong: str, executor: Executor, tmp_path: Path) -> None:
    env = load_environment(env_id, num_tasks=4, executor=executor)
    assert isinstance(env, CodegymEnv) and env.config.taskset.id == TASKSET_ID
    tasks = tasks_of(env_id, 4)
    answers = {t.id: [fenced(t.reference) if i % 2 == 0 else wrong] for i, t in enumerate(tasks)}
    episodes, model = evaluate(env, canned(env, answers), tmp_path)

    traces = traces_by_task(episodes)
    assert sorted(traces) == sorted(answers) and len(model.requests) == 4
    core = env.grading.env
    for i, task in enumerate(tasks):
        trace, reference = traces[task.id], i % 2 == 0
        assert trace.ok, trace.errors
        reward = trace.rewards["codegym_reward"].score
        assert reward == in_process(core, task.id, answers[task.id][0]) == (1.0 if reference else 0.0)
        assert trace.metrics["correct"] == reward and (trace.metrics["pass_rate"] == 1.0) == reference
        assert (trace.info["codegym"]["status"] == "OK") == reference
        assert (trace.metrics["status"] == STATUSES.index(Status.OK)) == reference
        assert trace.task.data.info == {"env_id": env_id, "task_id": task.id}
    assert len(list(tmp_path.rglob("traces.jsonl"))) == 1  # (the runner's own record of the run)


@pytest.mark.parametrize(
    ("env_id", "wrong"), [("codegym/PythonFunction-v0", WRONG), ("codegym/StdioProgram-v0", WRONG_STDIO)]
)
def test_refine_feeds_the_grade_back_until_solved(env_id: str, wrong: str, executor: Executor, tmp_path: Path) -> None:
    env = load_environment(env_id, mode="refine", max_attempts=3, num_tasks=2, executor=executor)
    fixed, hopeless = tasks_of(env_id, 2)
    answers = {fixed.id: [wrong, fenced(fixed.reference)], hopeless.id: [wrong]}
    episodes, model = evaluate(env, canned(env, answers), tmp_path)

    traces = traces_by_task(episodes)
    core = env.grading.env
    solved, failed = traces[fixed.id], traces[hopeless.id]
    assert solved.ok and failed.ok, (solved.errors, failed.errors)
    assert solved.rewards["codegym_reward"].score == in_process(core, fixed.id, answers[fixed.id][1]) == 1.0
    assert solved.metrics["attempts"] == 2 and solved.num_turns == 2
    assert failed.rewards["codegym_reward"].score == in_process(core, hopeless.id, wrong) == 0.0
    assert failed.metrics["attempts"] == 3 and failed.num_turns == 3
    # the solved task's second request carried the first grade's feedback as the next user message
    asked = [r["messages"] for r in model.requests if r["messages"][0]["content"] == fixed_prompt(env, fixed.id)]
    (first_grade,) = Scorer(core, dedupe=False).score([(fixed.id, wrong)])
    assert len(asked) == 2 and first_grade.feedback().startswith("Status: ")
    assert asked[1][1:] == [
        {"role": "assistant", "content": wrong},
        {"role": "user", "content": first_grade.feedback()},
    ]


def test_a_visual_task_reaches_the_model_with_its_picture(tmp_path: Path) -> None:
    env = load_environment("codegym/SVGFromImage-v1", num_tasks=1)
    ((task, prompt),) = [(t.data.info["task_id"], t.data.prompt) for t in env.taskset]
    reference = env.grading.env.tasks.get(task).reference or ""
    answer = f"```svg\n{reference}\n```"
    episodes, model = evaluate(env, {text_of(prompt[0].model_dump()["content"]): [answer]}, tmp_path)
    (trace,) = traces_by_task(episodes).values()
    assert trace.rewards["codegym_reward"].score == in_process(env.grading.env, task, answer) == 1.0
    (request,) = model.requests
    parts = request["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url"]
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")


def fixed_prompt(env: CodegymEnv, task_id: str) -> str:
    return next(t.data.prompt for t in env.taskset if t.data.info["task_id"] == task_id)


class Down(Executor):
    """An executor whose sandbox is gone."""

    def submit(self, job):  # type: ignore[override]
        raise SandboxError("no workers")


@pytest.mark.parametrize("mode", ["single", "refine"])
def test_an_infrastructure_failure_is_an_error_not_a_score(mode: str, tmp_path: Path) -> None:
    env = load_environment(num_tasks=1, executor=Down(), mode=mode)
    (task,) = tasks_of("codegym/PythonFunction-v0", 1)
    episodes, _ = evaluate(env, canned(env, {task.id: [fenced(task.reference)]}), tmp_path)
    (trace,) = traces_by_task(episodes).values()
    assert not trace.ok and not episodes[0].ok
    assert trace.last_error.type == "SandboxError" and "no workers" in trace.last_error.message
    assert trace.rewards.get("codegym_reward") is None  # unscored, never 0


@pytest.mark.parametrize("mode", ["single", "refine"])
def test_an_ungradable_task_is_a_task_error(mode: str, tmp_path: Path, executor: Executor) -> None:
    async def ie(task_id: str, answer: str) -> Grade:
        return Grade(Status.IE, message="its checker is broken")

    env = load_environment(num_tasks=1, scorer=ie, executor=executor, mode=mode)
    (task,) = tasks_of("codegym/PythonFunction-v0", 1)
    episodes, _ = evaluate(env, canned(env, {task.id: [fenced(task.reference)]}), tmp_path)
    (trace,) = traces_by_task(episodes).values()
    assert not trace.ok and trace.last_error.type == "TaskError" and "checker is broken" in trace.last_error.message
    assert trace.rewards.get("codegym_reward") is None


def test_an_injected_scorer_grades(tmp_path: Path, executor: Executor) -> None:
    seen: list[tuple[str, str]] = []
    with Scorer("codegym/PythonFunction-v0", executor=executor) as local:

        def remote(task_id: str, answer: str) -> Any:  # (a sync grader runs in a thread)
            seen.append((task_id, answer))
            return local.submit(task_id, answer).result()

        env = load_environment(num_tasks=1, scorer=remote, executor=executor)
        (task,) = tasks_of("codegym/PythonFunction-v0", 1)
        episodes, _ = evaluate(env, canned(env, {task.id: [fenced(task.reference)]}), tmp_path)
    (trace,) = traces_by_task(episodes).values()
    assert trace.rewards["codegym_reward"].score == 1.0 and seen == [(task.id, fenced(task.reference).strip())]


def test_server_grades_through_codegym_score(tmp_path: Path, executor: Executor, monkeypatch: Any) -> None:
    from codegym import batch

    calls: list[dict[str, Any]] = []
    with Scorer("codegym/PythonFunction-v0", executor=executor) as local:

        def served(env_id: str, submissions: Any, *, server: Any = None, **env_kwargs: Any) -> list[Grade]:
            calls.append({"env_id": env_id, "server": server, "env_kwargs": env_kwargs})
            return local.score(submissions)

        monkeypatch.setattr(batch, "score", served)
        env = load_environment(num_tasks=1, server="http://grader:8000", tasks="codegym-py", executor=executor)
        (task,) = tasks_of("codegym/PythonFunction-v0", 1)
        episodes, _ = evaluate(env, canned(env, {task.id: [fenced(task.reference)]}), tmp_path)
    (trace,) = traces_by_task(episodes).values()
    assert trace.rewards["codegym_reward"].score == 1.0
    assert calls == [
        {"env_id": "codegym/PythonFunction-v0", "server": "http://grader:8000", "env_kwargs": {"tasks": "codegym-py"}}
    ]


def test_modes_and_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="mode='agent' is not offered"):
        load_environment(mode="agent")
    with pytest.raises(ValueError, match="mode must be 'single' or 'refine'"):
        load_environment(mode="loop")
    with pytest.raises(ValueError, match="pass scorer or server, not both"):
        load_environment(scorer=lambda task_id, answer: Grade(Status.OK), server="http://grader:8000")
    with pytest.raises(ValueError, match="pass mode to load_environment"):
        make_code_env("codegym/PythonFunction-v0", {"mode": "refine"})
    with pytest.raises(TypeError, match="not a codegym env"):
        make_code_env("CartPole-v1", {})
