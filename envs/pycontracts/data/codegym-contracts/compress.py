"""Compress repeated letters.

``text`` holds lower-case letters. Replace each maximal run of one letter longer than one
by the letter followed by the run's length in decimal: ``"aaabcc"`` becomes ``"a3bc2"``.
"""


def compress(text: str) -> str:
    """
    pre: all(c in "abcdefghijklmnopqrstuvwxyz" for c in text)
    post: len(__return__) <= len(text)
    post: [c for c in __return__ if c.isalpha()] == [c for i, c in enumerate(text) if i == 0 or text[i - 1] != c]
    post: (__return__ == text) == all(text[i] != text[i + 1] for i in range(len(text) - 1))
    """
    pieces = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        pieces.append(text[i] + (str(j - i) if j - i > 1 else ""))
        i = j
    return "".join(pieces)


# Examples
assert compress("aaabcc") == "a3bc2"
assert compress("abc") == "abc"

# Hidden tests
assert compress("") == ""
assert compress("z") == "z"
assert compress("zz") == "z2"
assert compress("aaaaaaaaaaaa") == "a12"
assert compress("abba") == "ab2a"
