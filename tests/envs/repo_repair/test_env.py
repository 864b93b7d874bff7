"""RepoRepair-v1 as a researcher uses it: patch mode, agent mode, SWE-bench JSONL, the checker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codegym.envs.repo_repair.env import RepoRepairEnv
from codegym.envs.repo_repair.library import cache_root
from codegym.envs.repo_repair.tasks import load_swe_bench
from gymnasium.utils.env_checker import check_env

from codegym.error import TaskFormatError
from codegym.grade import Status
from codegym.task import Task, TaskSet

from .shapes import shapes_repository, swe_row

pytestmark = pytest.mark.timeout(600)


def call(name: str, **arguments: object) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def bash(env: RepoRepairEnv, command: str) -> str:
    observation, *_ = env.step(call("bash", command=command))
    return observation["feedback"]


def test_tasks_come_from_the_builder(minilib: tuple, repo_tasks: TaskSet) -> None:
    _, document = minilib
    assert len(repo_tasks) == len(document["tasks"]) > 0
    for task in repo_tasks:
        expected = task.metadata["instance"].expected
        assert expected.fail_to_pass and expected.pass_to_pass
        assert not set(expected.fail_to_pass) & set(expected.pass_to_pass)
        assert task.difficulty in ("easy", "medium", "hard")
        assert task.metadata["kind"] in task.id and "fails with" in task.prompt


def test_every_built_task_validates(env: RepoRepairEnv) -> None:
    from codegym.envs.repo_repair.build import validate

    verdicts = validate(env, runs=1)
    assert [v.status for v in verdicts] == ["valid"] * len(verdicts), verdicts


def test_a_patch_that_does_not_apply_says_where(env: RepoRepairEnv, core_task: Task) -> None:
    env.reset(options={"task_id": core_task.id})
    bad = "--- a/minilib/core.py\n+++ b/minilib/core.py\n@@ -4,2 +4,2 @@\n def clamp(x, lo, hi):\n-    if x <= lo:\n+    if x < lo:\n"
    observation, reward, terminated, _, info = env.step(f"Here is my fix:\n```diff\n{bad}```\n")
    assert (reward, info["status"], terminated) == (0.0, "CE", True)
    assert "hunk 1 of 1 for minilib/core.py does not apply" in observation["feedback"]
    assert "Copy context lines exactly" in observation["feedback"]


def test_feedback_names_hidden_tests_without_their_traces(repo_tasks: TaskSet, core_task: Task) -> None:
    for traces, shown in ((False, False), (True, True)):
        env = RepoRepairEnv(repo_tasks, traces_of_hidden=traces)
        env.reset(options={"task_id": core_task.id})
        observation, _, _, _, info = env.step("")
        failing = core_task.metadata["instance"].expected.fail_to_pass[0]
        assert failing in info["grade"].message
        assert ("assert" in observation["feedback"]) is shown
        assert info["grade"].metrics["fail_to_pass"] == 0.0 and info["grade"].metrics["pass_to_pass"] == 1.0
        assert info["reward_components"] == {"resolved": 0.0}


def test_prompt_context(repo_tasks: TaskSet, core_task: Task) -> None:
    source = core_task.metadata["instance"].workspace["minilib/core.py"].decode()
    listing = RepoRepairEnv(repo_tasks).render_prompt(core_task)
    oracle = RepoRepairEnv(repo_tasks, context="file").render_prompt(core_task)
    assert "- minilib/core.py" in listing and source not in listing
    assert source in oracle


@pytest.mark.parametrize("mode", ["patch", "agent"])
def test_check_env(repo_tasks: TaskSet, mode: str) -> None:
    env = RepoRepairEnv(repo_tasks, mode=mode)  # type: ignore[arg-type]
    check_env(env, skip_render_check=True)
    env.close()


def test_agent_fixes_a_bug_with_scripted_tool_calls(repo_tasks: TaskSet, core_task: Task) -> None:
    env = RepoRepairEnv(repo_tasks, mode="agent")
    observation, info = env.reset(options={"task_id": core_task.id})
    assert {tool["function"]["name"] for tool in info["tools"]} == {"bash", "str_replace_editor", "search", "submit"}
    assert "- tests/test_core.py\n" not in observation["prompt"]  # (named, never listed: it is hidden)
    assert "passed" in bash(env, "pytest -q tests")  # the visible tests run
    fix = core_task.reference or ""
    applied = bash(env, f"cat > /tmp/fix.diff <<'EOF'\n{fix}EOF\ngit apply /tmp/fix.diff && git diff --stat")
    assert "minilib/core.py" in applied, applied
    observation, reward, terminated, truncated, info = env.step(call("submit"))
    assert (reward, terminated, truncated, info["status"]) == (1.0, True, False, "OK")
    assert info["code"].startswith("--- a/minilib/core.py") or "minilib/core.py" in info["code"]
    env.close()


def test_agent_workspace_holds_neither_the_fix_nor_the_hidden_tests(repo_tasks: TaskSet, core_task: Task) -> None:
    env = RepoRepairEnv(repo_tasks, mode="agent")
    env.reset(options={"task_id": core_task.id})
    fixed_line = next(
        line[1:] for line in (core_task.reference or "").splitlines() if line.startswith("+") and line[1:].strip()
    )
    history = bash(env, "git log --all --oneline | wc -l; git stash list | wc -l; git remote | wc -l; git tag | wc -l")
    assert history.splitlines()[1:] == ["1", "0", "0", "0"], history
    objects = bash(
        env,
        'git cat-file --batch-all-objects --batch | grep -c -F -- "$LINE" || true'.replace(
            "$LINE", fixed_line.strip().replace('"', '\\"')
        ),
    )
    assert objects.splitlines()[-1] == "0", objects
    # Nowhere it could look: the tree, /tmp, the test environments, the cache, the library's own folder.
    places = f". /tmp {cache_root()} {core_task.metadata['instance'].library.path}"
    hidden = bash(env, f"ls tests; grep -rl test_clamp_low {places} 2>/dev/null | head; echo end")
    assert "test_core.py" not in hidden and hidden.rstrip().endswith("end"), hidden
    cache = bash(
        env, f"ls {cache_root()}/src 2>&1; ls {cache_root()}/sdist 2>&1; ls {places.rsplit(maxsplit=1)[-1]} 2>&1"
    )
    assert cache.count("No such file or directory") == 3, cache
    env.close()


def test_agent_hacks_in_the_workspace_score_zero(repo_tasks: TaskSet, core_task: Task) -> None:
    env = RepoRepairEnv(repo_tasks, mode="agent")
    env.reset(options={"task_id": core_task.id})
    forge = "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n" \
            "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"  # fmt: skip
    env.step(call("str_replace_editor", command="create", path="conftest.py", file_text=forge))
    env.step(
        call("str_replace_editor", command="create", path="tests/test_core.py", file_text="def test_ok():\n    pass\n")
    )
    env.step(call("str_replace_editor", command="create", path="sitecustomize.py", file_text="import os\n"))
    site = bash(
        env,
        'touch "$(python3 -c "import pytest, os; print(os.path.dirname(os.path.dirname(pytest.__file__)))")/zz.pth"',
    )
    assert "Read-only file system" in site or "Permission denied" in site, site
    observation, reward, terminated, _, info = env.step(call("submit"))
    assert (reward, terminated, info["status"]) == (0.0, True, "WA"), observation["feedback"]
    env.close()


# --- SWE-bench format ---------------------------------------------------------------------


@pytest.fixture
def swe_bench(tmp_path: Path) -> tuple[Path, Path]:
    """A git checkout at a buggy commit and a SWE-bench row whose gold patch fixes it."""
    repo = tmp_path / "checkout"
    base = shapes_repository(repo)
    (repo / "shapes/__init__.py").write_text("# a later change that must not matter\n")
    jsonl = tmp_path / "instances.jsonl"
    jsonl.write_text(json.dumps(swe_row(base, encoded=True)) + "\n")
    return jsonl, repo


def test_swe_bench_jsonl_over_a_local_checkout(swe_bench: tuple[Path, Path]) -> None:
    jsonl, checkout = swe_bench
    tasks = load_swe_bench(jsonl, {"acme/shapes": checkout})
    env = RepoRepairEnv(tasks)
    task = tasks.get("acme__shapes-1")
    assert "tests/test_area.py" not in task.metadata["instance"].workspace  # hidden until grading
    scores = {}
    for name, answer in (("gold", task.reference or ""), ("empty", "")):
        env.reset(options={"task_id": task.id})
        _, scores[name], _, _, info = env.step(answer)
    assert scores == {"gold": 1.0, "empty": 0.0}
    env = RepoRepairEnv(tasks, mode="agent")
    observation, _ = env.reset(options={"task_id": task.id})
    assert "area() adds instead of multiplying" in observation["prompt"]
    env.step(
        call("str_replace_editor", command="str_replace", path="shapes/__init__.py", old_str="w + h", new_str="w * h")
    )
    _, reward, terminated, _, info = env.step(call("submit"))
    assert (reward, terminated, info["status"]) == (1.0, True, "OK")


def test_swe_bench_rows_missing_fields_say_which(tmp_path: Path, swe_bench: tuple[Path, Path]) -> None:
    jsonl, checkout = swe_bench
    row = json.loads(jsonl.read_text())
    del row["test_patch"]
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(row) + "\n")
    with pytest.raises(TaskFormatError, match=r"missing \['test_patch'\]"):
        load_swe_bench(broken, {"acme/shapes": checkout})
    with pytest.raises(TaskFormatError, match="no checkout given for 'acme/shapes'"):
        load_swe_bench(jsonl, {})


def test_swe_bench_rows_in_memory(swe_bench: tuple[Path, Path]) -> None:
    """Rows a user already loaded (a list of dicts, or a ``datasets.Dataset`` of them)."""
    jsonl, checkout = swe_bench
    rows = [json.loads(jsonl.read_text())]
    sources: list[object] = [rows]
    try:
        import datasets  # type: ignore[import-not-found]

        sources.append(datasets.Dataset.from_list(rows))
    except ImportError:
        pass
    for source in sources:
        tasks = load_swe_bench(source, {"acme/shapes": checkout})  # type: ignore[arg-type]
        assert tasks.ids == ("acme__shapes-1",) and tasks.get("acme__shapes-1").reference == rows[0]["patch"]
    with pytest.raises(TaskFormatError, match=r"row 0: a SWE-bench row needs"):
        load_swe_bench([{"instance_id": "x"}], {"acme/shapes": checkout})


def test_grades_are_deterministic(env: RepoRepairEnv, core_task: Task) -> None:
    grades = []
    for _ in range(2):
        env.reset(options={"task_id": core_task.id})
        grades.append(env.step("")[4]["grade"])
    assert grades[0] == grades[1] and grades[0].status is Status.WA


def test_workers_agree_on_the_order_of_sets_holding_none() -> None:
    """pytest ids of tests parametrized from a set holding None follow hash(None): an address
    before Python 3.12, the same in every worker only without address randomization."""
    from codegym.envs.repo_repair.sandbox import RepoExecutor

    from codegym.executor import Job, Step

    probe = Job(files={"p.py": b"print(hash(None), list({(1, None), (2, 'b'), (3, 0.5), (4, None)}))\n"},
                steps=(Step(("python", "p.py")),))  # fmt: skip
    seen = set()
    for _ in range(2):
        with RepoExecutor(workers=2) as executor:
            seen |= {executor.run(probe).steps[0].stdout for _ in range(4)}
    assert len(seen) == 1, seen


def test_the_container_tier_refuses_environments_out_of_its_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """That tier has no view: its submissions (another uid) read the cache in place. One they
    cannot reach would fail every test run, scored as the repair's fault: refused at start."""
    from codegym.envs.repo_repair.sandbox import RepoExecutor

    from codegym.error import SandboxError

    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    monkeypatch.setenv("CODEGYM_CACHE", str(closed / "cache"))
    try:
        executor = RepoExecutor(workers=1, isolation="container", python="/usr/bin/python3")
    except SandboxError as e:
        if "out of reach" not in str(e):
            pytest.skip(f"no container tier here: {e}")
        assert f"chmod o+x {closed}" in str(e) or "lets no other user through" in str(e)
    else:
        executor.close()
        pytest.fail("the container tier started with test environments its submissions cannot read")
