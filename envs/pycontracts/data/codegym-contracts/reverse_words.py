"""Reverse the order of words.

``text`` holds printable ASCII characters, tabs and newlines. Words are the pieces of it
between runs of whitespace (spaces, tabs, newlines). Return them in reverse order, joined by
single spaces (no leading or trailing space).
"""


def reverse_words(text: str) -> str:
    r"""
    pre: all(" " <= c <= "~" or c in "\t\n" for c in text)
    post: __return__.split() == text.split()[::-1]
    post: __return__ == " ".join(__return__.split())
    """
    return " ".join(reversed(text.split()))


# Examples
assert reverse_words("the quick brown fox") == "fox brown quick the"
assert reverse_words("  hello   world ") == "world hello"

# Hidden tests
assert reverse_words("") == ""
assert reverse_words("   ") == ""
assert reverse_words("one") == "one"
assert reverse_words("a b c") == "c b a"
assert reverse_words("tab\tand\nnewline") == "newline and tab"
