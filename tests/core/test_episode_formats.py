"""Exports of recorded episodes (ATIF, OpenAI chat rows, verifiers traces and legacy rollouts) and
imports of other agents' trajectories (mini-swe-agent, SWE-agent, OpenHands, ATIF, verifiers
traces, dataset rows), mapped to codegym's tasks and graded again.

The episodes are recorded with `RecordEpisodes` on real envs. The foreign files are written here
in each tool's own layout (the fields its code writes, with the odd corners real files have:
a terminal's CRLF line ends, ``replay_config`` as a JSON string, demonstrations in the history,
OpenHands evaluation rows of ``[action, observation]`` pairs, a v2 mini-swe-agent ``exit``
message). Each export is checked against its library's own model: a row's messages and tools
against openai's types, a trace against verifiers.v1's ``Trace`` here, ATIF against Harbor's in
tests/envs/terminal/test_harbor_trajectories.py.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from codegym.envs.python_function.env import PythonFunctionEnv
from codegym.envs.repo_repair.patch import apply

import codegym  # noqa: F401
from codegym.episodes import (
    ATIF_SCHEMA_VERSION,
    ImportedRun,
    RecordEpisodes,
    episode_from_atif,
    episode_from_openai_row,
    episode_from_verifiers_trace,
    export_episodes,
    grade_submissions,
    map_to_tasks,
    read_episodes,
    read_trajectories,
    replay_script,
    to_atif,
    to_openai_row,
    to_verifiers,
    to_verifiers_trace,
)
from codegym.executor import Executor
from codegym.grade import STATUSES, Grade, Status

AGENT_TASK = "codegym-py/001-count-vowel-runs"
REFINE_TASK = "HumanEval/2"
WRONG = "def truncate_number(number):\n    return 1 / 0\n"
RIGHT = "def truncate_number(number):\n    return number % 1.0\n"
WRONG_VOWELS = "def count_vowel_runs(text):\n    return 0\n"
REPO = ("codegym/RepoRepair-v1", {"libraries": ["cachetools"]})


def call(name: str, **arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


@pytest.fixture(scope="module")
def recorded(executor: Executor, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Three episodes: an agent one solved through the tools (with a malformed call and the
    trainer's token ids), an agent one whose wrong answer was written with bash, and a refine
    one, wrong then right."""
    path = tmp_path_factory.mktemp("recorded") / "episodes.jsonl"
    env = RecordEpisodes(gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor), path)
    env.reset(seed=1, options={"task_id": AGENT_TASK})
    tools, reference = env.unwrapped.tools, env.unwrapped.task.reference
    env.note(token_ids=np.array([5, 7, 9], dtype=np.int32), logprobs=[-0.5, -0.25, -1.0], temperature=0.7)
    env.step(call("str_replace_editor", command="create", path="solution.py", file_text=reference) + call("nope"))
    env.step(call("bash", command="./run_tests"))
    env.step(call("submit"))
    env.reset(options={"task_id": AGENT_TASK})
    env.step(
        [
            {
                "id": "w1",
                "type": "function",
                "function": {
                    "name": "bash",
                    "arguments": json.dumps({"command": f"cat > solution.py <<'EOF'\n{WRONG_VOWELS}EOF"}),
                },
            },
            {"id": "w2", "type": "function", "function": {"name": "submit", "arguments": "{}"}},
        ]
    )
    env.close()
    env = RecordEpisodes(
        gym.make("codegym/PythonFunction-v0", tasks="humaneval", mode="refine", max_episode_steps=3, executor=executor),
        path,
    )
    env.reset(options={"task_id": REFINE_TASK})
    env.step("```python\n" + WRONG + "```")
    env.step(RIGHT)
    env.close()
    solved, wrong, refine = read_episodes(path)
    return {"path": path, "solved": solved, "wrong": wrong, "refine": refine, "tools": tools, "reference": reference}


def episodes(recorded: dict[str, Any]) -> list[dict[str, Any]]:
    return [recorded["solved"], recorded["wrong"], recorded["refine"]]


# --- exports ----------------------------------------------------------------------------------------


def test_atif_has_harbor_s_layout_with_the_grade_in_extra(recorded: dict[str, Any]) -> None:
    trajectory = json.loads(json.dumps(to_atif(recorded["solved"], model_name="policy-7b")))
    assert (
        trajectory["schema_version"] == ATIF_SCHEMA_VERSION
        and trajectory["session_id"] == recorded["solved"]["episode"]
    )
    assert (
        trajectory["agent"]["model_name"] == "policy-7b"
        and trajectory["agent"]["tool_definitions"] == recorded["tools"]
    )
    steps = trajectory["steps"]
    assert [step["step_id"] for step in steps] == [1, 2, 3, 4]
    assert [step["source"] for step in steps] == ["user", "agent", "agent", "agent"]
    assert steps[0]["message"] == recorded["solved"]["reset"]["observation"]["prompt"] and "tool_calls" not in steps[0]
    edit, run, submit = steps[1:]
    assert edit["tool_calls"] == [
        {
            "tool_call_id": "call_0",
            "function_name": "str_replace_editor",
            "arguments": {"command": "create", "path": "solution.py", "file_text": recorded["reference"]},
        }
    ]
    for step in steps[1:]:  # (every result answers a call of its own step: Harbor checks it)
        ids = {c["tool_call_id"] for c in step.get("tool_calls", [])}
        assert all(r["source_call_id"] in ids for r in step["observation"]["results"] if "source_call_id" in r)
    said = [r["content"] for r in edit["observation"]["results"] if "source_call_id" not in r]
    assert len(said) == 1 and said[0].startswith("[format error]") and "nope" in said[0]
    assert edit["metrics"] == {
        "completion_token_ids": [5, 7, 9],
        "logprobs": [-0.5, -0.25, -1.0],
        "extra": {"temperature": 0.7},
    }
    assert "2 of 2 public tests passed" in run["observation"]["results"][0]["content"]
    assert submit["extra"]["status"] == "OK" and submit["extra"]["reward"] == 1.0 and submit["extra"]["terminated"]
    assert submit["extra"]["code"] == recorded["reference"]
    grade = episode_from_atif(trajectory)["steps"][-1]["info"]["grade"]
    assert isinstance(grade, Grade) and grade == recorded["solved"]["steps"][-1]["info"]["grade"]
    assert trajectory["final_metrics"]["extra"] == {"return": 1.0, "resolved": True, "status": "OK"}
    assert trajectory["extra"]["codegym"]["env_id"] == "codegym/PythonFunction-v0"
    assert trajectory["extra"]["codegym"]["task"]["id"] == AGENT_TASK


def test_atif_and_openai_rows_round_trip_exactly(recorded: dict[str, Any]) -> None:
    for episode in episodes(recorded):
        trajectory = json.loads(json.dumps(to_atif(episode)))
        assert to_atif(episode_from_atif(trajectory)) == trajectory
        row = json.loads(json.dumps(to_openai_row(episode)))
        assert to_openai_row(episode_from_openai_row(row)) == row
        back = episode_from_atif(trajectory)
        assert [s["reward"] for s in back["steps"]] == [s["reward"] for s in episode["steps"]]
        assert [s["info"].get("grade") for s in back["steps"]] == [s["info"].get("grade") for s in episode["steps"]]
        assert [s["action"] for s in back["steps"]] == [s["action"] for s in episode["steps"]]


def test_a_trajectory_codegym_did_not_write_is_no_episode() -> None:
    foreign = {
        "schema_version": "ATIF-v1.4",
        "session_id": "s",
        "agent": {"name": "terminus-2", "version": "2"},
        "steps": [{"step_id": 1, "source": "user", "message": "hi"}],
    }
    with pytest.raises(ValueError, match="codegym did not write it; read another agent's trajectory"):
        episode_from_atif(foreign)


def test_openai_rows_have_the_swe_dataset_columns(recorded: dict[str, Any]) -> None:
    row = to_openai_row(recorded["solved"])
    assert {"instance_id", "messages", "tools", "model_patch", "resolved", "reward"} <= set(row)
    assert (row["instance_id"], row["model_patch"], row["resolved"], row["reward"]) == (
        AGENT_TASK,
        recorded["reference"],
        True,
        1.0,
    )
    assert row["tools"] == recorded["tools"] and row["metadata"]["status"] == "OK"
    messages = row["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "user", "assistant", "tool", "assistant"]
    (edit,) = messages[1]["tool_calls"]
    assert edit["type"] == "function" and edit["function"]["name"] == "str_replace_editor"
    assert json.loads(edit["function"]["arguments"])["file_text"] == recorded["reference"]
    assert messages[2]["tool_call_id"] == edit["id"] and messages[3]["content"].startswith("[format error]")
    assert messages[-1]["tool_calls"][0]["function"]["name"] == "submit"
    wrong = to_openai_row(recorded["wrong"])
    assert (wrong["model_patch"], wrong["resolved"], wrong["reward"]) == (WRONG_VOWELS, False, 0.0)
    assert wrong["messages"][1]["content"] == "" and [c["id"] for c in wrong["messages"][1]["tool_calls"]] == [
        "w1",
        "w2",
    ]
    refine = to_openai_row(recorded["refine"])
    assert [m["role"] for m in refine["messages"]] == ["user", "assistant", "user", "assistant"]
    assert refine["messages"][1]["content"] == "```python\n" + WRONG + "```" and refine["model_patch"] == RIGHT
    assert "ZeroDivisionError" in refine["messages"][2]["content"] and refine["tools"] == []


def plain(value: Any) -> Any:
    """A validated value as plain data: pydantic validates an ``Iterable`` field (an OpenAI
    message's ``tool_calls``) lazily, as it is iterated, so every iterator is run to the end."""
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, Iterator)):
        return [plain(item) for item in value]
    return value


def test_openai_rows_validate_with_openai_s_own_types(recorded: dict[str, Any]) -> None:
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
    from pydantic import TypeAdapter, ValidationError

    messages, tools = TypeAdapter(ChatCompletionMessageParam), TypeAdapter(ChatCompletionToolParam)
    for episode in episodes(recorded):
        row = json.loads(json.dumps(to_openai_row(episode)))
        for message in row["messages"]:  # (a key openai's types do not know would be dropped: the == catches it)
            assert plain(messages.validate_python(message)) == message
        for tool in row["tools"]:
            assert plain(tools.validate_python(tool)) == tool
    assert [tool["function"]["name"] for tool in to_openai_row(recorded["solved"])["tools"]] == [
        "bash",
        "str_replace_editor",
        "search",
        "submit",
    ]
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": {"command": "ls"}}}
    with pytest.raises(ValidationError, match=r"function\.arguments\n  Input should be a valid string"):
        plain(messages.validate_python({"role": "assistant", "content": "", "tool_calls": [call]}))  # (not JSON text)


def test_verifiers_rollouts_have_its_shape(recorded: dict[str, Any]) -> None:
    rollout = json.loads(json.dumps(to_verifiers(recorded["solved"], example_id=4)))
    assert rollout["example_id"] == 4 and [m["role"] for m in rollout["prompt"]] == ["user"]
    assert rollout["completion"][0]["role"] == "assistant"
    assert all(isinstance(c, str) for c in rollout["completion"][0]["tool_calls"])  # (as verifiers saves them)
    assert json.loads(rollout["completion"][0]["tool_calls"][0])["function"]["name"] == "str_replace_editor"
    assert (rollout["reward"], rollout["metrics"]["solved"], rollout["solved"]) == (1.0, 1.0, 1.0)
    assert rollout["is_completed"] and not rollout["is_truncated"] and rollout["stop_condition"] == "terminated"
    assert [t["name"] for t in rollout["tool_defs"]] == ["bash", "str_replace_editor", "search", "submit"]
    assert rollout["grade"]["status"] == "OK" and rollout["submission"] == recorded["reference"]
    assert rollout["info"]["task_id"] == AGENT_TASK and "answer" not in rollout
    env_spans = rollout["timing"]["env"]["spans"]
    assert len(env_spans) == 3 and all(span["end"] >= span["start"] for span in env_spans)


def test_verifiers_traces_validate_with_verifiers_own_model(recorded: dict[str, Any]) -> None:
    pytest.importorskip("verifiers.v1")
    from verifiers.v1.trace import Trace, WireTrace

    from codegym.integrations.verifiers_env import CodegymData

    for episode in episodes(recorded):
        record = json.loads(json.dumps(to_verifiers_trace(episode, model_name="policy-7b"), allow_nan=False))
        trace = Trace[CodegymData].model_validate(record)  # (the task as codegym's verifiers taskset poses it)
        grade: Grade = episode["steps"][-1]["info"]["grade"]
        solved = float(bool(grade.solved))
        assert trace.id == episode["episode"] and trace.reward == episode["return"] == solved
        assert [m.role for m in trace.messages] == [m["role"] for m in to_openai_row(episode)["messages"]]
        assert [n.parent for n in trace.nodes] == [None, *range(len(trace.nodes) - 1)] and trace.num_branches == 1
        assert trace.num_turns == len(episode["steps"]) and [c.node for c in trace.calls] == [
            i for i, n in enumerate(trace.nodes) if n.sampled
        ]
        assert trace.task.data.info == {"env_id": episode["env_id"], "task_id": episode["task"]["id"]}
        assert (
            trace.task.key == f"{episode['env_id']}:{episode['task']['id']}" and trace.agent.config.model == "policy-7b"
        )
        assert (trace.is_completed, trace.ok, trace.stop_condition, trace.is_truncated) == (
            True,
            True,
            "terminated",
            False,
        )
        assert trace.metrics == {
            "pass_rate": grade.pass_rate,
            "correct": solved,
            "tests_passed": float(sum(test.passed for test in grade.tests)),
            "tests_total": float(len(grade.tests)),
            "status": float(STATUSES.index(grade.status)),
            "steps": float(len(episode["steps"])),
        }
        assert trace.info["grade"]["status"] == grade.status.value and trace.info["codegym"]["correct"] == solved
        assert trace.info["submission"] == episode["steps"][-1]["info"]["code"]
        assert WireTrace.model_validate(record).task.data.model_extra == {"info": trace.task.data.info}
    trace = Trace.model_validate(to_verifiers_trace(recorded["solved"]))
    assert [t.name for t in trace.tools] == ["bash", "str_replace_editor", "search", "submit"]
    prompt, edit, result, said = (node.message.model_dump() for node in trace.nodes[:4])
    assert trace.branches[0].tools == trace.tools and prompt["content"].startswith("def count_vowel_runs")
    node = trace.nodes[1]
    assert (node.sampled, node.token_ids, node.mask, node.logprobs) == (
        True,
        [5, 7, 9],
        [True] * 3,
        [-0.5, -0.25, -1.0],
    )
    assert trace.calls[0].sampling is not None and trace.calls[0].sampling.temperature == 0.7
    assert trace.branches[0].logprobs == [-0.5, -0.25, -1.0]  # (the other turns' tokens were not noted)
    (call,) = edit["tool_calls"]
    assert call["name"] == "str_replace_editor" and json.loads(call["arguments"])["file_text"] == recorded["reference"]
    assert (result["tool_call_id"], result["name"]) == (call["id"], "str_replace_editor")
    assert said["role"] == "user" and said["content"].startswith("[format error]")
    assert trace.timing.agent.end >= trace.timing.agent.start >= trace.timing.setup.start > 0


def test_verifiers_traces_round_trip_exactly(recorded: dict[str, Any]) -> None:
    for episode in episodes(recorded):
        trace = json.loads(json.dumps(to_verifiers_trace(episode, model_name="m")))
        back = episode_from_verifiers_trace(trace)
        assert to_verifiers_trace(back, model_name="m") == trace
        assert json.loads(json.dumps(to_atif(back))) == json.loads(json.dumps(to_atif(episode)))  # (all ATIF keeps)
        assert [s["info"].get("grade") for s in back["steps"]] == [s["info"].get("grade") for s in episode["steps"]]
        assert [s["observation"] for s in back["steps"]] == [
            {"feedback": s["observation"]["feedback"]} for s in episode["steps"]
        ]
    assert list(
        episode_from_verifiers_trace(to_verifiers_trace(recorded["solved"]))["steps"][0]["generation"]["token_ids"]
    ) == [5, 7, 9]
    with pytest.raises(ValueError, match="codegym's export did not write it; read a verifiers run's traces with"):
        episode_from_verifiers_trace({"id": "t", "task": {}, "agent": {}, "nodes": [], "info": {}})
    cut = to_verifiers_trace(recorded["refine"])
    cut["nodes"] = cut["nodes"][:2]
    with pytest.raises(ValueError, match=r"has 2 nodes, 1 of them the model's, but info\['record'\] records 2 steps"):
        episode_from_verifiers_trace(cut)


def ended_as(episode: dict[str, Any], ended: str, **last_info: Any) -> dict[str, Any]:
    """``episode`` as if it had ended otherwise."""
    changed = copy.deepcopy(episode)
    changed["ended"] = ended
    changed["steps"][-1]["info"].update(last_info)
    return changed


def test_a_trace_says_how_the_episode_ended(recorded: dict[str, Any]) -> None:
    pytest.importorskip("verifiers.v1")
    from verifiers.v1.trace import Trace

    refine = recorded["refine"]
    cases = {
        "max_turns": ended_as(refine, "truncated"),
        "calls_budget": ended_as(refine, "truncated", truncated_by="calls"),
        "sandbox_error": ended_as(refine, "truncated", infra_error="the worker died"),
        "abandoned": ended_as(refine, "abandoned"),
    }
    traces = {stop: Trace.model_validate(to_verifiers_trace(episode)) for stop, episode in cases.items()}
    assert {stop: t.stop_condition for stop, t in traces.items()} == {stop: stop for stop in cases}
    assert [(t.is_completed, t.ok, t.is_truncated) for t in traces.values()] == [
        (True, True, True),
        (True, True, False),
        (True, False, False),
        (False, False, False),
    ]
    assert traces["sandbox_error"].errors[0].message == "the worker died" and not traces["max_turns"].errors
    for stop, episode in cases.items():
        assert episode_from_verifiers_trace(to_verifiers_trace(episode))["ended"] == episode["ended"], stop
    ungraded = copy.deepcopy(refine)
    ungraded["steps"] = []
    ungraded["return"] = float("nan")
    trace = Trace.model_validate(to_verifiers_trace(ungraded))
    assert trace.rewards == {"codegym_reward": None} and trace.metrics["status"] is None and trace.info["grade"] is None


def test_a_verifiers_run_s_traces_import_and_grade(executor: Executor, tmp_path: Path) -> None:
    """A trace as codegym's verifiers taskset leaves one (refine mode: a reply, its feedback,
    the reply graded), written as verifiers' ``Trace.to_record`` writes it."""
    reply = "Fixed:\n```python\n" + RIGHT + "```"
    nodes = [
        {"parent": None, "message": {"role": "user", "content": [{"type": "text", "text": "Write it."}]}},
        {"parent": 0, "message": {"role": "assistant", "content": "```python\n" + WRONG + "```"}, "sampled": True},
        {"parent": 1, "message": {"role": "user", "content": "Status: WA"}},
        {"parent": 2, "message": {"role": "assistant", "content": reply}, "sampled": True},
    ]
    trace = {
        "version": 1,
        "id": "0f3a",
        "task": {
            "type": "CodegymTask",
            "data": {
                "id": REFINE_TASK,
                "prompt": "Write it.",
                "info": {"env_id": "codegym/PythonFunction-v0", "task_id": REFINE_TASK},
            },
            "key": f"codegym/PythonFunction-v0:{REFINE_TASK}",
        },
        "agent": {"config": {"model": "qwen3-8b"}, "name": "agent"},
        "nodes": nodes,
        "rewards": {"codegym_reward": {"score": 1.0, "weight": 1.0}},
        "info": {"codegym": {"status": "OK", "correct": 1.0}},
        "is_completed": True,
        "ok": True,
        "stop_condition": "agent_completed",
    }
    (tmp_path / "traces.jsonl").write_text(json.dumps(trace) + "\n")
    (run,) = read_trajectories(tmp_path)
    assert (run.format, run.instance_id, run.env_id, run.model, run.resolved, run.exit_status) == (
        "verifiers",
        REFINE_TASK,
        "codegym/PythonFunction-v0",
        "qwen3-8b",
        True,
        "agent_completed",
    )
    assert run.submission == reply and [m["role"] for m in run.messages] == ["user", "assistant", "user", "assistant"]
    assert run.messages[0]["content"] == "Write it."  # (content given as parts)
    mapped = map_to_tasks([run], [("codegym/PythonFunction-v0", {"tasks": "humaneval", "executor": executor})])
    assert [g.status for g in grade_submissions(mapped.submissions)] == [Status.OK]


def test_export_episodes_writes_each_format(recorded: dict[str, Any], tmp_path: Path) -> None:
    written = export_episodes(recorded["path"], tmp_path / "atif", format="atif")
    assert sorted(p.name for p in written) == sorted(f"{e['episode']}.json" for e in episodes(recorded))
    (rows,) = export_episodes(recorded["path"], tmp_path / "rows.jsonl", format="openai")
    assert [json.loads(line)["instance_id"] for line in rows.read_text().splitlines()] == [
        AGENT_TASK,
        AGENT_TASK,
        REFINE_TASK,
    ]
    (rollouts,) = export_episodes(recorded["path"], tmp_path / "rollouts.jsonl", format="verifiers")
    assert [json.loads(line)["example_id"] for line in rollouts.read_text().splitlines()] == [0, 1, 2]
    (traces,) = export_episodes(recorded["path"], tmp_path / "traces.jsonl", format="verifiers-trace", model_name="m")
    assert [json.loads(line)["id"] for line in traces.read_text().splitlines()] == [
        e["episode"] for e in episodes(recorded)
    ]
    assert json.loads(traces.read_text().splitlines()[0])["agent"] == {"config": {"model": "m"}}
    with pytest.raises(
        ValueError, match="unknown export format 'sharegpt'; expected 'atif', 'openai', 'verifiers-trace'"
    ):
        export_episodes(recorded["path"], tmp_path / "x.jsonl", format="sharegpt")  # type: ignore[arg-type]


def test_codegym_s_own_exports_import_and_grade_as_recorded(
    recorded: dict[str, Any], executor: Executor, tmp_path: Path
) -> None:
    export_episodes(recorded["path"], tmp_path / "atif", format="atif")
    export_episodes(recorded["path"], tmp_path / "rows.jsonl", format="openai")
    export_episodes(recorded["path"], tmp_path / "rollouts.jsonl", format="verifiers")
    export_episodes(recorded["path"], tmp_path / "traces.jsonl", format="verifiers-trace")
    shutil.copy(recorded["path"], tmp_path / "episodes.jsonl")
    runs = read_trajectories(tmp_path)
    assert sorted(run.format for run in runs) == ["atif"] * 3 + ["codegym"] * 3 + ["openai"] * 6 + ["verifiers"] * 3
    envs = [
        ("codegym/PythonFunction-v0", {"executor": executor}),
        ("codegym/PythonFunction-v0", {"tasks": "humaneval", "executor": executor}),
    ]
    mapped = map_to_tasks(runs, envs)
    assert mapped.unmapped == () and len(mapped.submissions) == 15
    grades = grade_submissions(mapped.submissions)
    expected = {
        AGENT_TASK: {WRONG_VOWELS: Status.WA, recorded["reference"]: Status.OK},
        REFINE_TASK: {RIGHT: Status.OK},
    }
    assert [g.status for g in grades] == [expected[s.task_id][s.code] for s in mapped.submissions]
    assert all(s.run.resolved == (g.status is Status.OK) for s, g in zip(mapped.submissions, grades, strict=True))


# --- foreign trajectories -----------------------------------------------------------------------------


def diff(path: str, before: str, after: str) -> str:
    """A ``git diff`` of one file."""
    lines = difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}")
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)


def mini_v2(instance_id: str, submission: str, exit_status: str = "Submitted") -> dict[str, Any]:
    """A mini-swe-agent 2.x ``.traj.json`` of a tool-calling model (as `DefaultAgent.serialize`
    and the SWE-bench runner's extra ``info`` and ``instance_id`` write it)."""
    command = "cat solution.py"
    assistant = {
        "role": "assistant",
        "content": "THOUGHT: look first.",
        "tool_calls": [
            {
                "id": "toolu_01",
                "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": command})},
            }
        ],
        "extra": {
            "actions": [{"command": command, "tool_call_id": "toolu_01"}],
            "cost": 0.001,
            "timestamp": 1.7e9,
            "response": {"id": "r1"},
        },
    }
    observation = {
        "role": "tool",
        "tool_call_id": "toolu_01",
        "content": "<returncode>0</returncode>\n<output>\n...",
        "extra": {"raw_output": "...", "returncode": 0, "timestamp": 1.7e9, "exception_info": None},
    }
    end = {"role": "exit", "content": submission, "extra": {"exit_status": exit_status, "submission": submission}}
    return {
        "info": {
            "model_stats": {"instance_cost": 0.002, "api_calls": 2},
            "config": {
                "agent": {"step_limit": 250},
                "agent_type": "minisweagent.agents.default.DefaultAgent",
                "model": {"model_name": "anthropic/claude-sonnet-4-5"},
            },
            "mini_version": "2.1.0",
            "exit_status": exit_status,
            "submission": submission,
        },
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Please solve this issue."},
            assistant,
            observation,
            end,
        ],
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": instance_id,
    }


def mini_v1(instance_id: str, submission: str) -> dict[str, Any]:
    """A mini-swe-agent 1.x ``.traj.json`` (text-based actions; `save_traj`)."""
    return {
        "info": {
            "exit_status": "Submitted",
            "submission": submission,
            "model_stats": {"instance_cost": 0.0, "api_calls": 3},
            "mini_version": "1.17.0",
            "config": {"agent": {}, "model": {"model_name": "gpt-4.1"}},
        },
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "<pr_description>...</pr_description>"},
            {"role": "assistant", "content": "THOUGHT: fix it.\n\n```bash\nsed -i 's/a/b/' src/x.py\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\n</output>"},
            {"role": "assistant", "content": "```bash\necho MINI_SWE_AGENT_FINAL_OUTPUT && git diff\n```"},
            {"role": "user", "content": submission},
        ],
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": instance_id,
    }


def swe_agent(submission: str | None, replay: Any, exit_status: str = "submitted") -> dict[str, Any]:
    """A SWE-agent ``.traj`` (`DefaultAgent.get_trajectory_data`): function calling, a
    demonstration in the history, ``replay_config`` as given."""
    call_id = "call_cyI71DYnRdoLHWwtZgIaW2wr"
    return {
        "trajectory": [
            {
                "action": "create reproduce.py",
                "observation": "[File: reproduce.py (1 lines total)]",
                "response": "Let's reproduce it.",
                "thought": "Let's reproduce it.",
                "execution_time": 0.43,
                "state": {"open_file": "/testbed/reproduce.py", "working_dir": "/testbed"},
                "query": [{"role": "system", "content": "SETTING: ..."}],
                "extra_info": {},
            }
        ],
        "history": [
            {"message_type": "system_prompt", "role": "system", "content": "SETTING: ...", "agent": "main"},
            {
                "message_type": "observation",
                "role": "user",
                "content": "Here is a demonstration",
                "agent": "main",
                "is_demo": True,
            },
            {
                "message_type": "observation",
                "role": "user",
                "content": [{"type": "text", "text": "ISSUE: ..."}],
                "agent": "main",
            },
            {
                "message_type": "action",
                "role": "assistant",
                "content": "Let's reproduce it.",
                "agent": "main",
                "thought": "Let's reproduce it.",
                "action": "create reproduce.py",
                "tool_calls": [
                    {
                        "function": {"arguments": '{"filename":"reproduce.py"}', "name": "create"},
                        "id": call_id,
                        "type": "function",
                    }
                ],
            },
            {
                "message_type": "observation",
                "role": "tool",
                "content": "[File: reproduce.py (1 lines total)]",
                "agent": "main",
                "tool_call_ids": [call_id],
            },
        ],
        "info": {
            "submission": submission,
            "exit_status": exit_status,
            "edited_files30": "",
            "model_stats": {"instance_cost": 0.3, "tokens_sent": 9000, "tokens_received": 300, "api_calls": 11},
            "swe_agent_version": "1.1.0",
        },
        "replay_config": replay,
        "environment": "main",
    }


def openhands_events(path: str, new_content: str, old_content: str, *, task: str = "Fix it.") -> list[dict[str, Any]]:
    """OpenHands events (`event_to_dict`): a system prompt with the tools, the task, an editor
    call and its edit observation, a command and its output, the finish."""

    def meta(name: str, call_id: str, arguments: dict[str, Any], response: str) -> dict[str, Any]:
        return {
            "function_name": name,
            "tool_call_id": call_id,
            "total_calls_in_response": 1,
            "model_response": {
                "id": response,
                "model": "litellm_proxy/qwen3-coder",
                "choices": [
                    {
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": call_id,
                                    "type": "function",
                                    "function": {"name": name, "arguments": json.dumps(arguments)},
                                }
                            ],
                        }
                    }
                ],
            },
        }

    edit = {"command": "create", "path": path, "file_text": new_content}
    return [
        {
            "id": 0,
            "timestamp": "2025-06-01T10:00:00",
            "source": "agent",
            "message": "",
            "action": "system",
            "args": {
                "content": "You are OpenHands agent.",
                "tools": [{"type": "function", "function": {"name": "execute_bash"}}],
                "openhands_version": "0.40.0",
                "agent_class": "CodeActAgent",
            },
        },
        {
            "id": 1,
            "timestamp": "2025-06-01T10:00:01",
            "source": "user",
            "message": task,
            "action": "message",
            "args": {"content": task, "image_urls": None, "wait_for_response": False},
        },
        {
            "id": 2,
            "timestamp": "2025-06-01T10:00:05",
            "source": "agent",
            "message": f"Running edit {path}",
            "action": "edit",
            "tool_call_metadata": meta("str_replace_editor", "toolu_1", edit, "resp-1"),
            "args": {
                **edit,
                "old_str": None,
                "new_str": None,
                "insert_line": None,
                "content": "",
                "start": 1,
                "end": -1,
                "thought": "Write the fix.",
                "security_risk": 0,
                "impl_source": "oh_aci",
            },
        },
        {
            "id": 3,
            "timestamp": "2025-06-01T10:00:06",
            "source": "agent",
            "message": "I edited the file.",
            "cause": 2,
            "observation": "edit",
            "content": f"The file {path} has been edited.",
            "tool_call_metadata": meta("str_replace_editor", "toolu_1", edit, "resp-1"),
            "extras": {
                "path": path,
                "prev_exist": True,
                "old_content": old_content,
                "new_content": new_content,
                "impl_source": "oh_aci",
                "diff": "...",
            },
            "success": True,
        },
        {
            "id": 4,
            "timestamp": "2025-06-01T10:00:08",
            "source": "agent",
            "message": "Running command: ls",
            "action": "run",
            "tool_call_metadata": meta("execute_bash", "toolu_2", {"command": "ls"}, "resp-2"),
            "args": {
                "command": "ls",
                "is_input": False,
                "thought": "",
                "blocking": False,
                "hidden": False,
                "confirmation_state": "confirmed",
                "security_risk": 0,
            },
        },
        {
            "id": 5,
            "timestamp": "2025-06-01T10:00:09",
            "source": "agent",
            "message": "Command `ls` executed with exit code 0.",
            "cause": 4,
            "observation": "run",
            "content": "main.py",
            "tool_call_metadata": meta("execute_bash", "toolu_2", {"command": "ls"}, "resp-2"),
            "extras": {
                "command": "ls",
                "metadata": {"exit_code": 0, "pid": -1, "working_dir": "/workspace"},
                "hidden": False,
            },
            "success": True,
        },
        {
            "id": 6,
            "timestamp": "2025-06-01T10:00:10",
            "source": "agent",
            "message": "Done.",
            "action": "finish",
            "args": {"final_thought": "Done.", "outputs": {}, "thought": "", "task_completed": "true"},
        },
    ]


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))
    return path


@pytest.fixture(scope="module")
def foreign(tmp_path_factory: pytest.TempPathFactory, executor: Executor) -> Iterator[dict[str, Any]]:
    """Other agents' files for PythonFunction, StdioProgram and RepoRepair tasks, and the
    verdict each final submission should get (True: solved)."""
    root = tmp_path_factory.mktemp("foreign")
    python = gym.make("codegym/PythonFunction-v0", executor=executor).unwrapped
    stdio = gym.make("codegym/StdioProgram-v0", executor=executor).unwrapped
    repo = gym.make(REPO[0], **REPO[1]).unwrapped
    root_ids = [task.id for task in repo.tasks if task.reference][:6]
    references = {task_id: repo.tasks.get(task_id).reference for task_id in root_ids}
    expected: dict[str, bool] = {}

    digital, rle = python.tasks.get("codegym-py/004-digital-root"), python.tasks.get("codegym-py/002-rle-encode")
    write(root / "mini" / "digital-root.traj.json", mini_v2(digital.id, digital.reference))
    expected["digital-root.traj.json"] = True
    write(root / "mini" / "rle.traj.json", mini_v2(rle.id, "def rle_encode(text):\n    return text\n"))
    expected["rle.traj.json"] = False
    write(root / "mini" / "limits.traj.json", mini_v2("codegym-py/005-snake-to-camel", "", "LimitsExceeded"))
    vowels = python.tasks.get(AGENT_TASK)
    stub = python.agent_setup(vowels).files["solution.py"].decode()
    write(root / "mini" / "as-a-diff.traj.json", mini_v2(AGENT_TASK, diff("solution.py", stub, vowels.reference)))
    expected["as-a-diff.traj.json"] = True
    write(root / "mini-v1" / f"{root_ids[0]}.traj.json", mini_v1(root_ids[0], references[root_ids[0]]))
    expected[f"{root_ids[0]}.traj.json"] = True

    crlf = "\r\n" + references[root_ids[1]].replace("\n", "\r\n")  # (a terminal's line ends)
    replay = json.dumps(
        {
            "problem_statement": {"id": root_ids[1], "type": "text", "text": "..."},
            "agent": {"model": {"name": "gpt-4o"}},
            "env": {"deployment": {"type": "docker"}},
        }
    )
    write(root / "swe-agent" / "run-1" / "anything.traj", swe_agent(crlf, replay))
    expected["anything.traj"] = True
    write(root / "swe-agent" / "run-2" / f"{root_ids[2]}.traj", swe_agent(None, None, "exit_cost"))

    temperature = stdio.tasks.get("stdio/001-temperature-swings")
    session = root / "openhands" / "sessions" / "stdio__001-temperature-swings" / "events"
    for event in openhands_events("/workspace/main.py", temperature.reference, "# write your program here\n"):
        write(session / f"{event['id']}.json", event)
    expected["stdio__001-temperature-swings"] = True

    events = openhands_events("/workspace/x.py", "", "")
    pairs = [[events[i], events[i + 1]] for i in range(0, len(events) - 1, 2)]  # (older rows: action, observation)
    row = {
        "instance_id": root_ids[3],
        "instruction": "Fix it.",
        "history": pairs,
        "metrics": {"accumulated_cost": 0.1},
        "test_result": {"git_patch": references[root_ids[3]]},
        "error": None,
    }
    (root / "openhands-eval").mkdir()
    (root / "openhands-eval" / "output.jsonl").write_text(json.dumps(row) + "\n")
    expected["output.jsonl#0"] = True

    task = repo.tasks.get(root_ids[4])
    tree = {path: content.decode(errors="replace") for path, content in repo.agent_setup(task).files.items()}
    ((edited, after),) = apply(references[root_ids[4]], tree).items()
    write(
        root / "openhands-list" / f"{root_ids[4]}.traj.json",
        openhands_events(f"/workspace/cachetools/{edited}", after, tree[edited]),
    )
    expected[f"{root_ids[4]}.traj.json"] = True

    rows = [
        {
            "trajectory_id": "chatcmpl-1",
            "instance_id": root_ids[5],
            "repo": "tkem/cachetools",
            "trajectory": [
                {"role": "system", "content": "You are OpenHands agent."},
                {"role": "user", "content": "Fix."},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "execute_bash", "arguments": '{"command": "pytest -q"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "1 failed"},
            ],
            "model_patch": references[root_ids[5]],
            "exit_status": "submit",
            "resolved": 1,
        }
    ]
    (root / "dataset").mkdir()
    (root / "dataset" / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    expected["rows.jsonl#0"] = True

    harmless = diff(
        "src/cachetools/keys.py", tree["src/cachetools/keys.py"], tree["src/cachetools/keys.py"] + "# noted\n"
    )
    preds = root / "preds.json"  # (read only when named)
    write(preds, {root_ids[0]: {"model_name_or_path": "m", "instance_id": root_ids[0], "model_patch": harmless}})
    expected[f"preds.json#{root_ids[0]}"] = False

    trial = root / "harbor" / "codegym-py-001-count-vowel-r__AbCdEfG"  # (a Harbor export's task, run in Harbor)
    write(trial / "result.json", {"task_name": "codegym-py-001-count-vowel-runs", "trial_name": trial.name})
    write(
        trial / "agent" / "trajectory.json",
        {
            "schema_version": "ATIF-v1.5",
            "session_id": "s-1",
            "agent": {"name": "terminus-2", "version": "2.0.0"},
            "steps": [
                {"step_id": 1, "source": "user", "message": "Solve it."},
                {
                    "step_id": 2,
                    "source": "agent",
                    "message": "",
                    "tool_calls": [
                        {"tool_call_id": "c1", "function_name": "bash_command", "arguments": {"keystrokes": "ls\n"}}
                    ],
                    "observation": {"results": [{"source_call_id": "c1", "content": "app"}]},
                },
            ],
        },
    )
    write(root / "mini" / "gone.traj.json", mini_v2("codegym-py/999-no-such-task", "x = 1\n"))
    for env in (python, stdio, repo):
        env.close()
    yield {"root": root, "preds": preds, "expected": expected, "repo_ids": root_ids}


def test_foreign_files_read_in_their_own_layout(foreign: dict[str, Any]) -> None:
    runs = {Path(run.source.split("#")[0]).name: run for run in read_trajectories(foreign["root"])}
    mini = runs["digital-root.traj.json"]
    assert (mini.format, mini.instance_id, mini.exit_status, mini.model) == (
        "mini-swe-agent",
        "codegym-py/004-digital-root",
        "Submitted",
        "anthropic/claude-sonnet-4-5",
    )
    assert [m["role"] for m in mini.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
    ]  # (the exit message is no message)
    assert mini.commands == ("cat solution.py",) and mini.messages[2]["tool_calls"][0]["id"] == "toolu_01"
    repo_ids = foreign["repo_ids"]
    v1 = runs[f"{repo_ids[0]}.traj.json"]
    assert v1.instance_id == repo_ids[0] and v1.commands == (
        "sed -i 's/a/b/' src/x.py",
        "echo MINI_SWE_AGENT_FINAL_OUTPUT && git diff",
    )
    swe = runs["anything.traj"]
    assert (swe.format, swe.instance_id, swe.model) == ("swe-agent", repo_ids[1], "gpt-4o")
    assert "\r" not in (swe.submission or "") and swe.submission.startswith("diff --git")  # type: ignore[union-attr]
    assert any("CRLF" in note for note in swe.notes) and any("is_demo" in note for note in swe.notes)
    assert swe.messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_cyI71DYnRdoLHWwtZgIaW2wr",
        "content": "[File: reproduce.py (1 lines total)]",
    }
    assert swe.messages[2]["content"] == "ISSUE: ..."  # (content given as parts)
    assert runs[f"{repo_ids[2]}.traj"].instance_id == repo_ids[2]  # (no replay config: the file's name)
    events = runs["stdio__001-temperature-swings"]
    assert (events.format, events.instance_id, events.exit_status) == (
        "openhands",
        "stdio__001-temperature-swings",
        "finish",
    )
    assert set(events.edits) == {"/workspace/main.py"} and events.commands == ("ls",)
    assert [m["role"] for m in events.messages] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert events.model == "litellm_proxy/qwen3-coder"
    assert json.loads(events.messages[2]["tool_calls"][0]["function"]["arguments"])["command"] == "create"
    evaluation = runs["output.jsonl"]
    assert evaluation.instance_id == repo_ids[3] and evaluation.submission and evaluation.commands == ("ls",)
    assert runs["rows.jsonl"].format == "openai" and runs["rows.jsonl"].resolved is True
    assert runs["rows.jsonl"].commands == ("pytest -q",)
    harbor = runs["trajectory.json"]
    assert (harbor.format, harbor.instance_id, harbor.submission) == ("atif", "codegym-py-001-count-vowel-runs", None)
    assert "preds.json" not in runs and "result.json" not in runs  # (passed over in a folder)
    (prediction,) = read_trajectories(foreign["preds"])
    assert (prediction.format, prediction.instance_id, prediction.model) == ("predictions", repo_ids[0], "m")


def test_foreign_runs_map_to_tasks_and_regrade_with_the_verdicts_expected(
    foreign: dict[str, Any], executor: Executor
) -> None:
    runs = read_trajectories(foreign["root"]) + read_trajectories(foreign["preds"])
    envs = [
        ("codegym/PythonFunction-v0", {"executor": executor}),
        ("codegym/StdioProgram-v0", {"executor": executor}),
        REPO,  # (on its own executor: its sandbox preloads pytest)
    ]
    mapped = map_to_tasks(runs, envs)
    reasons = sorted(u.reason for u in mapped.unmapped)
    assert reasons == [
        "no final patch (exit status 'exit_cost')",
        "no final submission (exit status 'LimitsExceeded')",
        "no final submission (exit status None)",  # (Harbor's terminus trajectory: keystrokes, no file)
        "no task 'codegym-py/999-no-such-task' in codegym/PythonFunction-v0, codegym/StdioProgram-v0, "
        "codegym/RepoRepair-v1 (nor one whose id differs only in separators)",
    ], reasons
    by_source = {_key(s.run): s for s in mapped.submissions}
    assert set(by_source) == set(foreign["expected"])
    assert by_source["stdio__001-temperature-swings"].task_id == "stdio/001-temperature-swings"
    assert by_source["stdio__001-temperature-swings"].env_id == "codegym/StdioProgram-v0"
    assert (
        by_source["as-a-diff.traj.json"].code
        == gym.make("codegym/PythonFunction-v0").unwrapped.tasks.get(AGENT_TASK).reference
    )
    from_edits = by_source[f"{foreign['repo_ids'][4]}.traj.json"].code
    assert from_edits.startswith("diff --git a/src/cachetools/") and "/workspace" not in from_edits
    grades = grade_submissions(mapped.submissions)
    verdicts = {_key(s.run): (g.solved, g.status.value) for s, g in zip(mapped.submissions, grades, strict=True)}
    agree = [key for key, (solved, _) in verdicts.items() if solved == foreign["expected"][key]]
    assert len(agree) / len(verdicts) >= 0.95, verdicts
    assert all(verdicts[key][0] for key, solved in foreign["expected"].items() if solved), verdicts  # references: OK
    assert {verdicts[key][1] for key, solved in foreign["expected"].items() if not solved} == {"WA"}, verdicts


def _key(run: ImportedRun) -> str:
    """A run's file name (``name#n`` for a row), or its conversation's folder."""
    return Path(run.source).name


# --- terminal tasks: the commands replayed ---------------------------------------------------------


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("debootstrap") is None,
    reason="terminal tasks run in boxes: needs root and debootstrap",
)
@pytest.mark.timeout(1800)
def test_a_terminal_run_s_commands_replay_as_its_submission(tmp_path: Path) -> None:
    env = gym.make("codegym/Terminal-v0", mode="single")
    reference = env.unwrapped.tasks.get("awk-busiest-hour").reference
    env.close()
    run = mini_v2("awk-busiest-hour", "")
    commands = ["ls /app/logs", reference, "cat /app/report.txt", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]
    run["messages"][2]["extra"]["actions"] = [{"command": c, "tool_call_id": f"c{i}"} for i, c in enumerate(commands)]
    write(tmp_path / "awk-busiest-hour.traj.json", run)
    lazy = mini_v2("awk-busiest-hour", "")
    lazy["messages"][2]["extra"]["actions"] = [{"command": "cd /app && ls", "tool_call_id": "c0"}]
    write(tmp_path / "lazy" / "awk-busiest-hour.traj.json", lazy)
    runs = read_trajectories(tmp_path)
    mapped = map_to_tasks(runs, ["codegym/Terminal-v0"])
    assert mapped.unmapped == ()
    script = mapped.submissions[0].code
    assert script == replay_script(commands[:3]) and "COMPLETE_TASK" not in script
    assert script.startswith("#!/bin/bash\n(\nls /app/logs\n)\n")
    grades = grade_submissions(mapped.submissions)
    assert [(g.solved, g.status.value) for g in grades] == [(True, "OK"), (False, "WA")]


def test_what_cannot_be_read_or_mapped_says_why(executor: Executor, tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"agent": {"name": "x"}, "seed": 3}))
    with pytest.raises(ValueError, match=r"config\.json: keys \['agent', 'seed'\]; expected a mini-swe-agent"):
        read_trajectories(tmp_path / "config.json")
    assert read_trajectories(tmp_path) == []  # (in a folder, a JSON file that holds no trajectory is passed over)
    (tmp_path / "runs.jsonl").write_text('{"instance_id": "a", "model_patch": "p"}\nnot json\n')
    with pytest.raises(ValueError, match=r"runs\.jsonl:2: not JSON .*; expected one trajectory a line"):
        read_trajectories(tmp_path / "runs.jsonl")
    humaneval = ("codegym/PythonFunction-v0", {"tasks": "humaneval", "executor": executor})
    runs = [ImportedRun("a", "predictions", "HumanEval__2", RIGHT), ImportedRun("b", "predictions", None, RIGHT)]
    mapped = map_to_tasks(runs, [humaneval])
    assert [(s.task_id, s.code) for s in mapped.submissions] == [(REFINE_TASK, RIGHT)]
    assert [u.reason for u in mapped.unmapped] == [
        "the file names no task; pass read_trajectories(..., instance_id=...)"
    ]
    (twice,) = map_to_tasks(runs[:1], [humaneval, ("codegym/PythonFunction-v0", {"tasks": "humaneval"})]).unmapped
    assert twice.reason.startswith("task 'HumanEval__2' is ambiguous: codegym/PythonFunction-v0 HumanEval/2, ")
    made = PythonFunctionEnv(tasks="humaneval", executor=executor)
    with pytest.raises(ValueError, match=r"PythonFunctionEnv was not made with gym\.make: pass its registered id"):
        map_to_tasks(runs, [made])
