"""Run-length encoding.

Return the runs of ``text``: for each maximal stretch of one repeated character, a pair of
the character and the stretch's length, in order.
"""


def run_length(text: str) -> list[tuple[str, int]]:
    """
    post: "".join(c * n for c, n in __return__) == text
    post: all(len(c) == 1 and n >= 1 for c, n in __return__)
    post: all(a[0] != b[0] for a, b in zip(__return__, __return__[1:]))
    """
    runs: list[tuple[str, int]] = []
    for c in text:
        if runs and runs[-1][0] == c:
            runs[-1] = (c, runs[-1][1] + 1)
        else:
            runs.append((c, 1))
    return runs


# Examples
assert run_length("aaabcc") == [("a", 3), ("b", 1), ("c", 2)]
assert run_length("") == []

# Hidden tests
assert run_length("a") == [("a", 1)]
assert run_length("abab") == [("a", 1), ("b", 1), ("a", 1), ("b", 1)]
assert run_length("zzzz") == [("z", 4)]
assert run_length("  x") == [(" ", 2), ("x", 1)]
assert run_length("aabbaa") == [("a", 2), ("b", 2), ("a", 2)]
