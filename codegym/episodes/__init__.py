"""Episodes as data: record every episode as one JSON line (`RecordEpisodes`), read them back
(`read_episodes`), and grade their final submissions again with the current grader
(`regrade`, ``codegym regrade``); snapshot, restore and fork a live episode (`snapshot`,
`restore`, `fork`, `release`, and `dump` / `load` to move one elsewhere); expand one into a
tree (`rollout_tree`, `read_tree`); compute a critic's features of recorded episodes
(`episode_features`, `features_table`); export them in other tools' formats (`to_atif`,
`to_openai_row`, `to_verifiers_trace`, and the legacy `to_verifiers`), and import other
agents' trajectories to grade their final submissions (`read_trajectories`, `map_to_tasks`,
`grade_submissions`)."""

from codegym.episodes.branch import EnvSnapshot, dump, fork, load, release, restore, snapshot
from codegym.episodes.chat import to_messages
from codegym.episodes.export import (
    ATIF_SCHEMA_VERSION,
    episode_from_atif,
    episode_from_openai_row,
    export_episodes,
    to_atif,
    to_openai_row,
    to_verifiers,
)
from codegym.episodes.features import EpisodeFeatures, episode_features, features_table
from codegym.episodes.imports import ImportedRun, read_trajectories
from codegym.episodes.mapping import Mapped, Submission, Unmapped, grade_submissions, map_to_tasks, replay_script
from codegym.episodes.record import RECORD_VERSION, RecordEpisodes, read_episodes, task_digest
from codegym.episodes.regrade import Disagreement, Regraded, regrade
from codegym.episodes.tree import Node, Tree, read_tree, rollout_tree
from codegym.episodes.verifiers_trace import TRACE_VERSION, episode_from_verifiers_trace, to_verifiers_trace

__all__ = [
    "ATIF_SCHEMA_VERSION",
    "RECORD_VERSION",
    "TRACE_VERSION",
    "Disagreement",
    "EnvSnapshot",
    "EpisodeFeatures",
    "ImportedRun",
    "Mapped",
    "Node",
    "RecordEpisodes",
    "Regraded",
    "Submission",
    "Tree",
    "Unmapped",
    "dump",
    "episode_features",
    "episode_from_atif",
    "episode_from_openai_row",
    "episode_from_verifiers_trace",
    "export_episodes",
    "features_table",
    "fork",
    "grade_submissions",
    "load",
    "map_to_tasks",
    "read_episodes",
    "read_trajectories",
    "read_tree",
    "regrade",
    "release",
    "replay_script",
    "restore",
    "rollout_tree",
    "snapshot",
    "task_digest",
    "to_atif",
    "to_messages",
    "to_openai_row",
    "to_verifiers",
    "to_verifiers_trace",
]
