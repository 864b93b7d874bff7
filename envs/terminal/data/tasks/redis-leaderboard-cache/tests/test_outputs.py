"""Checks the leaderboard cache on 127.0.0.1:6391 (cache settings and the loaded aggregates)."""

import collections
import json
import subprocess


def cli(*args: str) -> list[str]:
    out = subprocess.run(
        ["redis-cli", "-h", "127.0.0.1", "-p", "6391", *args], capture_output=True, text=True, timeout=10
    )
    return out.stdout.splitlines()


def expected() -> tuple[dict[str, int], dict[str, int]]:
    points: dict[str, int] = collections.Counter()
    games: dict[str, int] = collections.Counter()
    with open("/tests/matches.jsonl") as f:
        for line in f:
            row = json.loads(line)
            points[row["player"]] += row["points"]
            games[row["player"]] += 1
    return dict(points), dict(games)


def test_memory_limits():
    assert cli("config", "get", "maxmemory") == ["maxmemory", str(100 * 1024 * 1024)]
    assert cli("config", "get", "maxmemory-policy") == ["maxmemory-policy", "allkeys-lru"]


def test_no_persistence():
    save = cli("config", "get", "save")
    assert save[0] == "save" and (len(save) == 1 or save[1] == "")
    assert cli("config", "get", "appendonly") == ["appendonly", "no"]


def test_leaderboard_scores():
    points, _ = expected()
    lines = cli("zrange", "leaderboard", "0", "-1", "withscores")
    got = {m: float(s) for m, s in zip(lines[::2], lines[1::2])}
    assert got == {p: float(v) for p, v in points.items()}


def test_top_five_order():
    points, _ = expected()
    top = sorted(points, key=lambda p: (-points[p], p))[:5]
    got = cli("zrevrange", "leaderboard", "0", "4")
    assert [points[p] for p in got] == [points[p] for p in top]


def test_games_hash():
    _, games = expected()
    lines = cli("hgetall", "games")
    assert {k: int(v) for k, v in zip(lines[::2], lines[1::2])} == games
