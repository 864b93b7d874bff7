"""Trace features of recorded episodes: real agent episodes, scripted to show each feature and
to come near it without showing it, recorded by RecordEpisodes and read back."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from codegym.agent import AgentLimits
from codegym.core import CodeEnv
from codegym.episodes import EpisodeFeatures, RecordEpisodes, episode_features, features_table, read_episodes
from codegym.executor import Executor
from codegym.task import TaskSet

TASK = "codegym-py/001-count-vowel-runs"
PLACEHOLDER = "def count_vowel_runs(text):\n    # TODO: count them\n    pass\n"
NEAR_STUB = "def count_vowel_runs(text):\n    passed = 0  # done: no stub here\n    return passed\n"


def call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def bash(command: str, **options: Any) -> str:
    return call("bash", command=command, **options)


def edit(command: str, path: str, **arguments: Any) -> str:
    return call("str_replace_editor", command=command, path=path, **arguments)


def record(env: gym.Env, path: Path, actions: list[str], task_id: str = TASK) -> dict[str, Any]:
    """Play ``actions`` in one recorded episode of ``env`` (submitting at the end unless the
    actions did); return the episode as read back."""
    recorder = RecordEpisodes(env, path)
    recorder.reset(options={"task_id": task_id})
    done = False
    for action in actions:
        *_, terminated, truncated, _ = recorder.step(action)
        done = terminated or truncated
    if not done:
        recorder.step(call("submit"))
    recorder.close()
    *_, episode = read_episodes(path)
    return episode


def tasks_of(env: gym.Env) -> TaskSet:
    core = env.unwrapped
    assert isinstance(core, CodeEnv)
    return core.tasks


def play(executor: Executor, path: Path, actions: list[str], **options: Any) -> EpisodeFeatures:
    env = gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor, **options)
    return episode_features(record(env, path, actions))


@pytest.fixture
def reference(executor: Executor) -> str:
    return tasks_of(gym.make("codegym/PythonFunction-v0", executor=executor)).get(TASK).reference or ""


def test_a_clean_episode_shows_none_of_the_warning_signs(executor: Executor, tmp_path: Path, reference: str) -> None:
    features = play(executor, tmp_path / "e.jsonl", [edit("create", "solution.py", file_text=reference),
                                                     bash("./run_tests"), call("submit")])  # fmt: skip
    assert (features.steps, features.tool_calls, features.calls_per_step) == (3, 3, 1.0)
    assert (features.edits, features.test_runs, features.untested_final_edit) == (1, 1, False)
    assert (features.submitted, features.solved, features.episode_return, features.truncated) == (
        True,
        True,
        1.0,
        False,
    )
    warnings = {name: value for name, value in features.as_dict().items()
                if name in ("format_errors", "tool_errors", "failed_commands", "failing_command_repeats", "test_edits",
                            "outside_writes", "deleted_files", "stub_lines", "timeouts", "truncated_outputs",
                            "background_launches", "background_killed", "infra_error")}  # fmt: skip
    assert set(warnings.values()) == {0} and len(warnings) == 13, warnings


def test_the_same_failing_command_run_again_unchanged_is_a_loop(executor: Executor, tmp_path: Path) -> None:
    features = play(executor, tmp_path / "e.jsonl", [
        bash("./run_tests"), bash("./run_tests"),                                # fails twice, nothing changed: 1
        bash("ls"), bash("ls"),                                                  # the same, succeeding: not a loop
        edit("create", "solution.py", file_text=PLACEHOLDER), bash("./run_tests"),  # after an edit: not a repeat
        bash("./run_tests  "), bash("ls /nonexistent"),                           # whitespace aside: 2
    ])  # fmt: skip
    assert (features.failed_commands, features.failing_command_repeats) == (5, 2)
    assert (features.edits, features.test_runs, features.untested_final_edit) == (1, 4, False)
    assert features.tool_errors == 0  # (a failing command is the command's failure, not the tool's)


def test_an_edit_after_the_last_test_run_is_untested(executor: Executor, tmp_path: Path, reference: str) -> None:
    features = play(executor, tmp_path / "e.jsonl", [
        bash("python3 tests/test_public.py"), edit("create", "solution.py", file_text=reference),
    ])  # fmt: skip
    assert (features.edits, features.test_runs, features.untested_final_edit, features.solved) == (1, 1, True, True)
    in_one = play(executor, tmp_path / "f.jsonl", [
        bash(f"cat > solution.py <<'EOF'\n{reference}EOF\n./run_tests"),  # (written, then tested, in one command)
    ])  # fmt: skip
    assert (in_one.edits, in_one.test_runs, in_one.untested_final_edit) == (1, 1, False)
    tested_first = play(
        executor, tmp_path / "g.jsonl", [bash(f"./run_tests; cat > solution.py <<'EOF'\n{reference}EOF")]
    )
    assert (tested_first.edits, tested_first.test_runs, tested_first.untested_final_edit) == (1, 1, True)


def test_malformed_calls_and_refused_tool_calls_are_counted_apart(executor: Executor, tmp_path: Path) -> None:
    features = play(executor, tmp_path / "e.jsonl", [
        "<tool_call>{not json</tool_call>", call("nonexistent"),          # 2 format errors
        edit("str_replace", "solution.py", old_str="absent", new_str="x"),  # a tool error
        edit("view", "missing.py"), call("search", pattern="count_vowel_runs"),  # one more; a search that finds
        bash("exit 3"),                                                   # a failed command, not a tool error
    ])  # fmt: skip
    assert (features.format_errors, features.tool_errors, features.failed_commands) == (2, 2, 1)
    assert features.tool_calls == 5 and features.steps == 7  # (the malformed ones are no calls)


def test_stubs_and_todos_in_the_final_submission_count_its_added_lines_only(
    executor: Executor, tmp_path: Path, reference: str
) -> None:
    stubbed = play(executor, tmp_path / "e.jsonl", [edit("create", "solution.py", file_text=PLACEHOLDER)])
    assert stubbed.stub_lines == 2 and not stubbed.solved  # (the TODO and the pass)
    replaced = play(executor, tmp_path / "f.jsonl", [edit("create", "solution.py", file_text=PLACEHOLDER),
                                                     edit("create", "solution.py", file_text=reference)])  # fmt: skip
    assert replaced.stub_lines == 0  # (only the final submission counts)
    near = play(executor, tmp_path / "g.jsonl", [edit("create", "solution.py", file_text=NEAR_STUB)])
    assert near.stub_lines == 0
    # A stub the task itself gives (in the prompt) is not the model's: submitted as it is, it counts nothing.
    task = tasks_of(gym.make("codegym/PythonFunction-v0")).get(TASK)
    given = dataclasses.replace(task, prompt=task.prompt + "    # TODO: your code here\n    pass\n")
    env = gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor, tasks=TaskSet([given]))
    episode = record(env, tmp_path / "h.jsonl", [call("submit")])
    assert "pass" in episode["steps"][-1]["info"]["code"] and episode_features(episode).stub_lines == 0


def test_writes_outside_the_workspace_are_counted_scratch_writes_are_not(executor: Executor, tmp_path: Path) -> None:
    features = play(executor, tmp_path / "e.jsonl", [
        edit("create", "../escape.py", file_text="x = 1\n"),            # refused by the editor, still an attempt
        bash("echo owned > /etc/motd; cd / && touch escaped"),          # 2 (both fail: read-only)
        bash("echo scratch > /tmp/notes; cp solution.py /tmp/copy.py"),  # scratch: not outside, not edits
        edit("create", "/sandbox/notes.md", file_text="inside\n"),       # absolute, but inside
    ])  # fmt: skip
    assert features.outside_writes == 3 and features.edits == 2  # (the shell's writes, and the note)
    assert features.tool_errors == 1


def test_edits_to_tests_by_the_editor_and_the_shell(executor: Executor, tmp_path: Path) -> None:
    features = play(executor, tmp_path / "e.jsonl", [
        edit("str_replace", "tests/test_public.py", old_str="failed += 1", new_str="pass"),
        bash("sed -i 's/sys.exit(1 if failed else 0)/sys.exit(0)/' tests/test_public.py"),
        bash("cat tests/test_public.py > /dev/null; grep -c assert tests/test_public.py"),  # reading: no edit
    ])  # fmt: skip
    assert (features.test_edits, features.edits, features.tool_errors) == (2, 2, 0)
    untouched = play(executor, tmp_path / "f.jsonl", [edit("view", "tests/test_public.py"), bash("./run_tests")])
    assert (untouched.test_edits, untouched.edits) == (0, 0)


def test_deleting_a_file_that_was_there_counts_once_one_of_its_own_does_not(executor: Executor, tmp_path: Path) -> None:
    features = play(executor, tmp_path / "e.jsonl", [
        bash("rm TASK.md"), bash("rm -f ./TASK.md"),                    # there before: one file
        edit("create", "scratch.py", file_text="x = 1\n"), bash("rm scratch.py"),  # its own
        bash("echo draft > draft.txt && mv draft.txt final.txt"),        # its own, moved
    ])  # fmt: skip
    assert features.deleted_files == 1 and features.test_edits == 0


def test_time_outs_cut_outputs_and_background_jobs(executor: Executor, tmp_path: Path) -> None:
    features = play(executor, tmp_path / "e.jsonl", [
        bash("sleep 5", timeout_s=1), bash("sleep 0.1", timeout_s=5),  # one time-out
        bash("exit 124"),                                              # its own status 124: none
        bash("seq 1 5000"), bash("seq 1 5"),                           # one output cut
        bash("sleep 30 &"), bash("true && true; (sleep 0.1) & wait"),  # two background jobs; && is none
        bash("setsid -f sleep 30; python3 -c 'import os; os.fork() or __import__(\"time\").sleep(30)'"),
    ], agent=AgentLimits(output_bytes=2000))  # fmt: skip
    assert (features.timeouts, features.truncated_outputs) == (1, 1)
    assert features.background_launches == 3  # (read from the commands: setsid -f and the two &)
    assert features.background_killed == 3  # (counted by the runner: the job left, and what the last one left)
    assert features.failed_commands == 2  # (the time-out and exit 124: status 124)


def without(episode: dict[str, Any], *keys: str) -> dict[str, Any]:
    """``episode`` as a record made before its tool results had ``keys``."""

    def older(step: dict[str, Any]) -> dict[str, Any]:
        if "tool_results" not in step["info"]:
            return step
        results = [{k: v for k, v in result.items() if k not in keys} for result in step["info"]["tool_results"]]
        return {**step, "info": {**step["info"], "tool_results": results}}

    return {**episode, "steps": [older(step) for step in episode["steps"]]}


def test_records_without_the_env_s_counts_read_the_commands(executor: Executor, tmp_path: Path) -> None:
    env = gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor)
    episode = record(env, tmp_path / "e.jsonl", [bash("sleep 30 & (sleep 0.1) & wait $!"), bash("exit 124")])
    assert (episode_features(episode).background_killed, episode_features(episode).timeouts) == (1, 0)
    older = without(episode, "timed_out", "background_killed")
    assert (episode_features(older).background_killed, episode_features(older).timeouts) == (2, 1)
    # The same older record, as a machine family's would read: a Terminal env keeps them by default.
    machine = {**older, "family": "terminal", "env_kwargs": {**older["env_kwargs"]}}
    assert episode_features(machine).background_killed == 0 and episode_features(machine).background_launches == 2
    machine["env_kwargs"]["background"] = "kill"
    assert episode_features(machine).background_killed == 2


def test_the_work_folder_is_the_one_the_env_recorded(executor: Executor, tmp_path: Path) -> None:
    env = gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor)
    episode = record(env, tmp_path / "e.jsonl", [bash("touch /sandbox/inside /elsewhere/outside")])
    assert episode["reset"]["info"]["workdir"] == "/sandbox" and episode_features(episode).outside_writes == 1
    moved = {**episode, "reset": {**episode["reset"], "info": {**episode["reset"]["info"], "workdir": "/work"}}}
    assert episode_features(moved).outside_writes == 2


def test_a_single_shot_episode_has_no_tool_features(executor: Executor, tmp_path: Path) -> None:
    env = gym.make("codegym/PythonFunction-v0", executor=executor)
    episode = record(env, tmp_path / "e.jsonl", [PLACEHOLDER])
    features = episode_features(episode)
    assert (features.steps, features.tool_calls, features.edits, features.submitted) == (1, 0, 0, True)
    assert features.stub_lines == 2 and not features.solved


def test_features_table_is_one_flat_row_per_episode(executor: Executor, tmp_path: Path, reference: str) -> None:
    path = tmp_path / "e.jsonl"
    play(executor, path, [edit("create", "solution.py", file_text=reference)])
    play(executor, path, [bash("./run_tests")])
    rows = features_table(path)
    assert [row["status"] for row in rows] == ["OK", "WA"] and {row["task_id"] for row in rows} == {TASK}
    names = [field.name for field in dataclasses.fields(EpisodeFeatures)]
    assert list(rows[0])[5:] == names and all(isinstance(row[name], int | float) for row in rows for name in names)
    import pandas

    frame = pandas.DataFrame(rows)
    assert frame.shape == (2, 5 + len(names)) and frame["untested_final_edit"].tolist() == [True, False]


def test_what_is_no_episode_or_no_folder_says_so() -> None:
    with pytest.raises(ValueError, match=r"expected an episode record .* read_episodes"):
        episode_features({"task": "x"})
    with pytest.raises(ValueError, match="workdir must be an absolute path"):
        episode_features({"steps": []}, workdir="work")


# --- a repository, where the submission is a diff ------------------------------------------


@pytest.fixture(scope="module")
def repo_env() -> Iterator[gym.Env]:
    env = gym.make("codegym/RepoRepair-v1", mode="agent")
    yield env
    env.close()


@pytest.mark.slow
def test_a_diff_submission_s_stubs_deletions_and_test_edits(repo_env: gym.Env, tmp_path: Path) -> None:
    tasks = tasks_of(repo_env)
    task = tasks.get(tasks.ids[0])
    assert task.reference
    apply = bash(f"cat > /tmp/fix.diff <<'EOF'\n{task.reference}EOF\ngit apply /tmp/fix.diff")
    source = next(line[6:] for line in task.reference.splitlines() if line.startswith("+++ b/"))
    episode = record(repo_env, tmp_path / "e.jsonl", [
        apply, edit("insert", source, insert_line=0, new_str="# TODO: tidy this module\n"),
        bash("git rm -q docs/conf.py; echo '# FIXME' >> tests/__init__.py"),
    ], task_id=task.id)  # fmt: skip
    code = episode["steps"][-1]["info"]["code"]
    assert "+# TODO: tidy this module" in code
    features = episode_features(episode)
    assert (features.stub_lines, features.deleted_files, features.test_edits) == (1, 1, 1)
    assert (features.edits, features.untested_final_edit) == (3, True)
    clean = episode_features(record(repo_env, tmp_path / "f.jsonl", [apply, bash("pytest -q -x tests")],
                                    task_id=task.id))  # fmt: skip
    assert (clean.stub_lines, clean.deleted_files, clean.test_edits, clean.untested_final_edit) == (0, 0, 0, False)
    assert clean.solved and clean.test_runs == 1
