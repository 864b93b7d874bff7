"""Count the words.

Words are the pieces of ``text`` between runs of whitespace. Return a dictionary from each
word to how many times it occurs.
"""


def count_words(text: str) -> dict[str, int]:
    """
    post: set(__return__) == set(text.split())
    post: sum(__return__.values()) == len(text.split())
    post: all(__return__[w] == text.split().count(w) for w in __return__)
    """
    counts: dict[str, int] = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    return counts


# Examples
assert count_words("the cat and the hat") == {"the": 2, "cat": 1, "and": 1, "hat": 1}
assert count_words("") == {}

# Hidden tests
assert count_words("   ") == {}
assert count_words("a a a") == {"a": 3}
assert count_words("A a") == {"A": 1, "a": 1}
assert count_words("x\ny\tx") == {"x": 2, "y": 1}
assert count_words("one") == {"one": 1}
