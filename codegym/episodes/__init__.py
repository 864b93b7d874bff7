"""Episodes as data: record every episode as one JSON line (`RecordEpisodes`), read them back
(`read_episodes`), and grade their final submissions again with the current grader
(`regrade`, ``codegym regrade``)."""

from codegym.episodes.record import RECORD_VERSION, RecordEpisodes, read_episodes, task_digest
from codegym.episodes.regrade import Disagreement, Regraded, regrade

__all__ = ["RECORD_VERSION", "Disagreement", "RecordEpisodes", "Regraded", "read_episodes", "regrade", "task_digest"]
