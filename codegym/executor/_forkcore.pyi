def serve(sock: int, policy: bytes, tasks_fd: int, own_proc: bool, signal_uid: int, work: str, /) -> tuple[int, bytes]:
    """Run the fork server's loop on ``sock`` (``tasks_fd``: the worker cgroup's pids.current,
    or -1; ``own_proc``: /proc lists this pid namespace; ``signal_uid``: signal the steps'
    processes as this uid, not as pid 1 (-1); ``work``: the steps' folder); returns
    ``(fd, policy)`` only in a spare."""

def attach(sock: int, keeper: int, /) -> tuple[bytes, int] | None:
    """In a spare: take the step's request on ``sock`` and confine the step as
    `_forkserver.attach` does; returns its marshal'd argv and environment and its setup pipe,
    or None if the supervisor sent WARM instead."""

def prepare(uid: int, filter: bytes, name: bytes, attr: bytes, rules: bytes, new_ipc: bool, /) -> int:
    """In a spare: confine it as `_forkserver._prepare` does (``uid`` -1: keep ours; ``attr``
    and ``rules``: its `_linux.StepLandlock`'s, empty for none; ``new_ipc``: enter an IPC
    namespace of our own first); the keeper's pid."""

def learned() -> int:
    """How many pages each spare copies as it is forked, learned from the worker's
    rehearsals (in a spare: how many it copied)."""
