"""The `container` tier's disk quota (stdlib only; the worker's supervisor enforces it, see
``_worker.py``). That tier mounts nothing, so a job's work dir and /tmp are folders on the
container's one disk instead of tmpfs mounts of their own size: without a quota, one job
could fill the disk under every other job and worker."""

from __future__ import annotations

import contextlib
import os
import time

# How often the supervisor looks at the file system's usage during a step, and how often it
# walks the job's folders at the latest (sooner where the file system grew by more than the
# job may still write).
QUOTA_POLL_S = 0.02
QUOTA_WALK_S = 0.5


class DiskQuota:
    """The `container` tier's disk limit, where a job's folders lie on the container's one
    disk (a tmpfs of their own per job takes a mount): the job's work dir and /tmp together
    hold at most what tmpfs mounts of ``disk_bytes`` each would, twice ``disk_bytes``, in
    at most twice ``max(disk_bytes // 1024, 1024)`` files and folders, or the step is
    stopped ("disk": ``OLE``); RLIMIT_FSIZE bounds each file.

    Walking the folders costs; the file system's usage (statvfs) costs next to nothing. So a
    walk comes only when the file system has grown, since the last walk, by more than the
    job may still write (or QUOTA_WALK_S after it); each walk then takes what is not the
    job's as the rest of the file system's. Precision: what a step writes within QUOTA_POLL_S
    (a few MiB), and files it deleted but holds open (at most RLIMIT_NOFILE of them, each
    within RLIMIT_FSIZE, per process), which no walk finds."""

    def __init__(self, folders: tuple[str, ...], disk_bytes: int) -> None:
        self.folders = folders
        self.max_bytes = len(folders) * disk_bytes
        self.max_files = len(folders) * max(disk_bytes // 1024, 1024)
        self.others = (0, 0)  # bytes and inodes of the file system that are not the job's
        self.walked = 0.0
        self.exceeded(time.monotonic(), walk=True)

    def _file_system(self) -> tuple[int, int]:
        usage = os.statvfs(self.folders[0])
        return (usage.f_blocks - usage.f_bfree) * usage.f_frsize, usage.f_files - usage.f_ffree

    def exceeded(self, now: float, *, walk: bool = False) -> bool:
        """Whether the job holds more than it may (walking its folders only when needed)."""
        used, inodes = self._file_system()
        grown = used - self.others[0] > self.max_bytes or inodes - self.others[1] > self.max_files
        if not (walk or grown or now - self.walked >= QUOTA_WALK_S):
            return False
        job_bytes, job_files = _usage(self.folders, self.max_bytes, self.max_files)
        if job_bytes > self.max_bytes or job_files > self.max_files:
            return True
        self.others, self.walked = (used - job_bytes, inodes - job_files), now
        return False


def _usage(folders: tuple[str, ...], max_bytes: int, max_files: int) -> tuple[int, int]:
    """The bytes (allocated blocks) and the entries beneath ``folders``, never through a
    link; the count stops once past either maximum. What vanishes meanwhile is skipped."""
    used = files = 0
    pending = list(folders)
    while pending and used <= max_bytes and files <= max_files:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    files += 1
                    with contextlib.suppress(OSError):
                        used += entry.stat(follow_symlinks=False).st_blocks * 512
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(entry.path)
        except OSError:
            continue
    return used, files
