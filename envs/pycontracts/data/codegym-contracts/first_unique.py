"""The first character that appears once.

Return the index of the first character of ``text`` that occurs in it exactly once, or -1
when every character repeats.
"""


def first_unique(text: str) -> int:
    """
    post: -1 <= __return__ < len(text)
    post: __return__ == -1 or text.count(text[__return__]) == 1
    post: all(text.count(c) > 1 for c in text[: __return__ if __return__ >= 0 else len(text)])
    """
    counts: dict[str, int] = {}
    for c in text:
        counts[c] = counts.get(c, 0) + 1
    for index, c in enumerate(text):
        if counts[c] == 1:
            return index
    return -1


# Examples
assert first_unique("leetcode") == 0
assert first_unique("aabb") == -1

# Hidden tests
assert first_unique("") == -1
assert first_unique("z") == 0
assert first_unique("loveleetcode") == 2
assert first_unique("aab") == 2
assert first_unique("abcabcd") == 6
