"""Group words by length.

Return a dictionary from each length that a word of ``words`` has to the list of the words
of that length, in the order they appear (repeats kept).
"""


def group_by_length(words: list[str]) -> dict[int, list[str]]:
    """
    post: set(__return__) == {len(w) for w in words}
    post: all(len(w) == n for n, group in __return__.items() for w in group)
    post: sum(len(group) for group in __return__.values()) == len(words)
    post: all(group == [w for w in words if len(w) == n] for n, group in __return__.items())
    """
    groups: dict[int, list[str]] = {}
    for word in words:
        groups.setdefault(len(word), []).append(word)
    return groups


# Examples
assert group_by_length(["hi", "cat", "yo", "dog"]) == {2: ["hi", "yo"], 3: ["cat", "dog"]}
assert group_by_length([]) == {}

# Hidden tests
assert group_by_length([""]) == {0: [""]}
assert group_by_length(["a", "a"]) == {1: ["a", "a"]}
assert group_by_length(["long", "s"]) == {4: ["long"], 1: ["s"]}
assert group_by_length(["ab", "cd", "e"]) == {2: ["ab", "cd"], 1: ["e"]}
