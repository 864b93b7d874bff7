"""Length-prefixed frames between a pool and its workers (stdlib only).

A frame is one `marshal`-encoded value of builtins (a `Job` or a `RunResult` in its wire
form): it decodes without importing or constructing anything, several times faster than a
pickle of the same dataclasses. Only trusted processes (the pool, a worker) write these
pipes; a submission never holds one of their descriptors.
"""

from __future__ import annotations

import marshal
import os
import struct
import time
from typing import Any

from codegym.executor.channel import READ_SIZE, ready

_HEADER = struct.Struct("!Q")


def write_frame(fd: int, obj: Any) -> None:
    data = marshal.dumps(obj)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_exact(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, READ_SIZE))
        if not chunk:
            raise EOFError(f"pipe closed with {remaining} of {size} bytes unread")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> Any:
    (size,) = _HEADER.unpack(read_exact(fd, _HEADER.size))
    return marshal.loads(read_exact(fd, size))


class FrameReader:
    """Reads frames with a deadline, keeping any bytes that arrived beyond a frame."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def read(self, deadline: float) -> Any:
        """The next frame; `TimeoutError` past ``deadline``, `EOFError` if the pipe closed."""
        while True:
            if len(self.buffer) >= _HEADER.size:
                (size,) = _HEADER.unpack_from(self.buffer)
                end = _HEADER.size + size
                if len(self.buffer) >= end:
                    data = bytes(self.buffer[_HEADER.size : end])
                    del self.buffer[:end]
                    return marshal.loads(data)
            left = deadline - time.monotonic()
            if left <= 0 or not ready(self.fd, left):
                raise TimeoutError("no frame before the deadline")
            chunk = os.read(self.fd, READ_SIZE)
            if not chunk:
                raise EOFError("the pipe closed")
            self.buffer += chunk
