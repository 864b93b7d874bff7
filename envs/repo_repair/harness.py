"""The supervisor's side of a repository-repair job: it collects the runner's report.

Runs in the worker's supervising process while the test step runs (stdlib only). It reads
frames from the step until the step closes the channel (it ended, or was killed at its
limit) and returns them as they came, undecoded: the grader, a pure function, judges them.
The step never sees this process, and the report never passes through the tree.
"""

from __future__ import annotations

import json
import marshal

from codegym.executor.channel import Channel, ChannelClosed, ChannelTimeout, ChannelViolation

MAX_FRAMES = 200_000
MAX_BYTES = 64 << 20


def collect(channel: Channel, payload: bytes) -> bytes:
    """Every frame the runner sent, and how the report ended (``"closed"``: the step
    closed the channel; ``"overflow"``: it sent more than a report can hold; ``"garbled"``:
    a frame was malformed; ``"timeout"``: nothing came within the budget)."""
    budget_s = float(json.loads(payload)["budget_s"])
    frames: list[bytes] = []
    size = 0
    ending = "closed"
    try:
        while True:
            frame = channel.recv(timeout=budget_s)
            size += len(frame)
            if len(frames) >= MAX_FRAMES or size > MAX_BYTES:
                ending = "overflow"
                break
            frames.append(frame)
    except ChannelClosed:
        pass
    except ChannelViolation:
        ending = "garbled"
    except ChannelTimeout:
        ending = "timeout"
    return marshal.dumps((ending, frames))
