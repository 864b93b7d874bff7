"""A framed, bounded, deadline-aware byte channel between a harness and a submission.

The harness side treats every byte from the submission as hostile: frames have a size cap
and every read a deadline. Stdlib only: both ends live inside sandboxes.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import struct
import time

_HEADER = struct.Struct("!I")
MAX_FRAME = 64 << 20
# How much one read asks for: a pipe's capacity, and under malloc's mmap threshold (a larger
# read buffer is mapped for each read, then remapped to the size that came).
READ_SIZE = 1 << 16


class ChannelClosed(EOFError):
    """The other end closed the channel (it exited or was killed)."""


class ChannelTimeout(TimeoutError):
    """No complete frame arrived before the deadline."""


class ChannelViolation(ValueError):
    """The other end sent something that is not a well-formed frame."""


class Channel:
    """Frames over a pair of pipe descriptors."""

    def __init__(
        self, read_fd: int, write_fd: int, *, max_frame: int = MAX_FRAME, blocking: bool | None = None
    ) -> None:
        """``blocking``: whether ``read_fd`` blocks, when the caller knows (else it is asked)."""
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.max_frame = max_frame
        self._buffer = bytearray()  # bytes read past the frame last returned
        # A non-blocking read end is read first and waited on only when empty: a reply that
        # is already there (and a body that came with its header) costs one read.
        self._read_first = not (os.get_blocking(read_fd) if blocking is None else blocking)

    def send(self, data: bytes) -> None:
        """Write one frame; raises `ChannelClosed` if the reader is gone."""
        view = memoryview(_HEADER.pack(len(data)) + data)
        try:
            while view:
                try:
                    view = view[os.write(self.write_fd, view) :]
                except BlockingIOError:
                    self._wait(self.write_fd, writable=True, deadline=None)
        except (BrokenPipeError, ConnectionResetError) as e:
            raise ChannelClosed("the other end closed the channel") from e

    def recv(self, timeout: float | None = None) -> bytes:
        """Read one frame, waiting at most ``timeout`` seconds (forever when None)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        (size,) = _HEADER.unpack(self._take(_HEADER.size, deadline))
        if size > self.max_frame:
            raise ChannelViolation(f"frame of {size} bytes exceeds the {self.max_frame}-byte cap")
        return self._take(size, deadline)

    def _wait(self, fd: int, *, writable: bool, deadline: float | None) -> bool:
        """Block until ``fd`` is ready or ``deadline`` passes; False on timeout.

        A supervisor overrides this to keep serving the other end's process meanwhile.
        """
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        return ready(fd, timeout, writable=writable)

    def close(self) -> None:
        """Close both ends; closing again does nothing (the numbers may be reused by then)."""
        for fd in (self.read_fd, self.write_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.read_fd = self.write_fd = -1

    def _take(self, size: int, deadline: float | None) -> bytes:
        """The next ``size`` bytes, reading as needed."""
        while len(self._buffer) < size:
            self._fill(size - len(self._buffer), deadline)
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def _fill(self, missing: int, deadline: float | None) -> None:
        waited = False
        while True:
            must_wait = (waited or not self._read_first) and deadline is not None
            if must_wait and not self._wait(self.read_fd, writable=False, deadline=deadline):
                raise ChannelTimeout(f"no reply within the deadline ({missing} bytes missing)")
            try:
                chunk = os.read(self.read_fd, READ_SIZE)
            except BlockingIOError:
                if deadline is None:
                    self._wait(self.read_fd, writable=False, deadline=None)
                waited = True
                continue
            if not chunk:
                raise ChannelClosed("the other end closed the channel")
            self._buffer += chunk
            return


def ready(fd: int, timeout: float | None, *, writable: bool = False) -> bool:
    """Whether ``fd`` becomes readable (``writable``: writable) within ``timeout`` seconds
    (None: no limit). `poll`, not `select`: a long-lived host may hold descriptors past
    `select`'s 1024."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT if writable else select.POLLIN)
    return bool(poller.poll(None if timeout is None else max(0, math.ceil(timeout * 1000))))
