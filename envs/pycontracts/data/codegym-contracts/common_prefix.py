"""Longest common prefix.

Return the longest string that every word of the non-empty list ``words`` starts with.
"""


def common_prefix(words: list[str]) -> str:
    """
    pre: len(words) >= 1
    post: all(w.startswith(__return__) for w in words)
    post: len(__return__) <= min(len(w) for w in words)
    post: any(len(w) == len(__return__) for w in words) or len({w[len(__return__)] for w in words}) > 1
    """
    prefix = words[0]
    for word in words[1:]:
        while not word.startswith(prefix):
            prefix = prefix[:-1]
    return prefix


# Examples
assert common_prefix(["flower", "flow", "flight"]) == "fl"
assert common_prefix(["dog", "racecar"]) == ""

# Hidden tests
assert common_prefix(["alone"]) == "alone"
assert common_prefix(["", "abc"]) == ""
assert common_prefix(["same", "same"]) == "same"
assert common_prefix(["prefix", "pre", "prepare"]) == "pre"
assert common_prefix(["ab", "abc", "abd"]) == "ab"
