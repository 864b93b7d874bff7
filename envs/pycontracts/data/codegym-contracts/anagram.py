"""Anagrams.

Return whether ``a`` and ``b`` are anagrams: the same characters, each the same number of
times, in any order (case and spaces count like any character).
"""


def is_anagram(a: str, b: str) -> bool:
    """
    post: not __return__ or len(a) == len(b)
    post: a != b or __return__
    post: __return__ == (sorted(a) == sorted(b))
    """
    counts: dict[str, int] = {}
    for c in a:
        counts[c] = counts.get(c, 0) + 1
    for c in b:
        counts[c] = counts.get(c, 0) - 1
    return all(n == 0 for n in counts.values())


# Examples
assert is_anagram("listen", "silent") is True
assert is_anagram("apple", "paple ") is False

# Hidden tests
assert is_anagram("", "") is True
assert is_anagram("a", "A") is False
assert is_anagram("aab", "abb") is False
assert is_anagram("dusty", "study") is True
assert is_anagram("ab", "abc") is False
