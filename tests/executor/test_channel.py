"""The framed channel between a harness and a submission: framing, caps, deadlines, closing."""

from __future__ import annotations

import os
import struct
import threading
import time
from collections.abc import Iterator

import pytest

from codegym.executor.channel import Channel, ChannelClosed, ChannelTimeout, ChannelViolation


@pytest.fixture(params=["blocking", "nonblocking"])
def pipe(request: pytest.FixtureRequest) -> Iterator[tuple[Channel, int]]:
    """A channel reading from a pipe, and the pipe's write end (the other side, raw)."""
    read_fd, write_fd = os.pipe()
    sink_r, sink_w = os.pipe()
    os.set_blocking(read_fd, request.param == "blocking")
    channel = Channel(read_fd, sink_w, max_frame=1 << 16)
    yield channel, write_fd
    channel.close()
    for fd in (write_fd, sink_r):
        os.close(fd)


def frame(data: bytes) -> bytes:
    return struct.pack("!I", len(data)) + data


def test_frames_written_together_are_read_apart(pipe: tuple[Channel, int]) -> None:
    channel, write_fd = pipe
    os.write(write_fd, frame(b"one") + frame(b"") + frame(b"three"))
    assert [channel.recv(timeout=1), channel.recv(timeout=1), channel.recv(timeout=1)] == [b"one", b"", b"three"]


def test_a_frame_written_byte_by_byte_arrives_whole(pipe: tuple[Channel, int]) -> None:
    channel, write_fd = pipe
    data = frame(b"x" * 300)

    def trickle() -> None:
        for i in range(len(data)):
            os.write(write_fd, data[i : i + 1])
            if i % 100 == 0:
                time.sleep(0.01)

    writer = threading.Thread(target=trickle)
    writer.start()
    assert channel.recv(timeout=5) == b"x" * 300
    writer.join()


def test_an_oversized_frame_is_refused_before_it_is_read(pipe: tuple[Channel, int]) -> None:
    channel, write_fd = pipe
    os.write(write_fd, struct.pack("!I", (1 << 16) + 1))
    with pytest.raises(ChannelViolation, match="exceeds"):
        channel.recv(timeout=1)


def test_a_partial_frame_times_out(pipe: tuple[Channel, int]) -> None:
    channel, write_fd = pipe
    os.write(write_fd, frame(b"complete")[:-2])
    started = time.monotonic()
    with pytest.raises(ChannelTimeout, match="2 bytes missing"):
        channel.recv(timeout=0.2)
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("blocking", [True, False])
def test_closing_mid_frame_is_reported_as_closed(blocking: bool) -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, blocking)
    sink_r, sink_w = os.pipe()
    channel = Channel(read_fd, sink_w)
    os.write(write_fd, frame(b"complete")[:-2])
    closer = threading.Timer(0.05, os.close, (write_fd,))
    closer.start()
    try:
        with pytest.raises(ChannelClosed):
            channel.recv(timeout=5)
    finally:
        closer.join()
        channel.close()
        os.close(sink_r)
