def serve(sock: int, policy: bytes, /) -> tuple[int, bytes]:
    """Run the fork server's loop on ``sock``; returns ``(fd, policy)`` only in a spare."""
