"""Episodes as data: record every episode as one JSON line (`RecordEpisodes`), read them back
(`read_episodes`), and grade their final submissions again with the current grader
(`regrade`, ``codegym regrade``); snapshot, restore and fork a live episode (`snapshot`,
`restore`, `fork`, `release`)."""

from codegym.episodes.branch import EnvSnapshot, fork, release, restore, snapshot
from codegym.episodes.record import RECORD_VERSION, RecordEpisodes, read_episodes, task_digest
from codegym.episodes.regrade import Disagreement, Regraded, regrade

__all__ = [
    "RECORD_VERSION",
    "Disagreement",
    "EnvSnapshot",
    "RecordEpisodes",
    "Regraded",
    "fork",
    "read_episodes",
    "regrade",
    "release",
    "restore",
    "snapshot",
    "task_digest",
]
