"""SVGFromImage's "solved": status OK and a similarity of at least ``solved_at`` (0.99). A
picture that renders but does not match is OK and not solved, and counts 0 in pass@k."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from codegym.envs.visual.env import SVGFromImageEnv

from codegym.cli import main
from codegym.grade import Status

HOUSE = "codegym-svg/icon-house"
# The house's left half alone, drawn in the middle of the canvas: it renders, and matches poorly.
HALF = ('width="256" height="256" viewBox="0 0 256 256"', 'viewBox="0 0 128 256"')


@pytest.fixture(scope="module")
def env() -> Iterator[SVGFromImageEnv]:
    made = SVGFromImageEnv()
    yield made
    made.close()


def half_house(env: SVGFromImageEnv) -> str:
    return (env.tasks.get(HOUSE).reference or "").replace(*HALF, 1)


def test_a_poor_match_is_ok_but_not_solved_and_the_reference_is_solved(env: SVGFromImageEnv) -> None:
    poor, _ = env.evaluate_task(env.tasks.get(HOUSE), half_house(env))
    assert poor.status is Status.OK and poor.metrics["similarity"] < 0.9 and poor.solved is False
    reference, _ = env.evaluate_task(env.tasks.get(HOUSE), env.tasks.get(HOUSE).reference or "")
    assert reference.solved is True


def test_solved_at_sets_the_threshold(env: SVGFromImageEnv) -> None:
    lenient = SVGFromImageEnv(solved_at=0.05)
    try:
        grade, _ = lenient.evaluate_task(lenient.tasks.get(HOUSE), half_house(env))
        assert grade.metrics["similarity"] >= 0.05 and grade.solved is True
    finally:
        lenient.close()


def test_score_counts_a_poor_match_as_a_failure_in_pass_at_1(env: SVGFromImageEnv, tmp_path: Path, capsys) -> None:
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": HOUSE, "completion": half_house(env)}) + "\n")
    assert main(["score", str(samples), "--env", "codegym/SVGFromImage-v1"]) == 0
    out = capsys.readouterr().out
    assert "status: {'OK': 1}" in out and "pass@1: 0.0000" in out
    row = json.loads((tmp_path / "s_results.jsonl").read_text())
    assert row["status"] == "OK" and row["solved"] is False
