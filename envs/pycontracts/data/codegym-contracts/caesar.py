"""Caesar cipher.

``text`` holds lower-case letters ``a`` to ``z`` and ``0 <= k <= 25``. Return it with each
letter moved ``k`` places forward in the alphabet, wrapping around from ``z`` to ``a``.
"""


def caesar(text: str, k: int) -> str:
    """
    pre: all(c in "abcdefghijklmnopqrstuvwxyz" for c in text) and 0 <= k <= 25
    post: len(__return__) == len(text)
    post: all("a" <= c <= "z" for c in __return__)
    post: all((ord(c) - ord(p)) % 26 == k for c, p in zip(__return__, text))
    """
    return "".join(chr((ord(c) - ord("a") + k) % 26 + ord("a")) for c in text)


# Examples
assert caesar("abc", 1) == "bcd"
assert caesar("xyz", 3) == "abc"

# Hidden tests
assert caesar("", 5) == ""
assert caesar("hello", 0) == "hello"
assert caesar("z", 25) == "y"
assert caesar("attack", 13) == "nggnpx"
assert caesar("zebra", 2) == "bgdtc"
