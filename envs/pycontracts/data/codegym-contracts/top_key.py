"""The key with the largest value.

Return the key of the non-empty dictionary ``scores`` with the largest value; when several
keys share it, return the smallest of them (by string order).
"""


def top_key(scores: dict[str, int]) -> str:
    """
    pre: len(scores) >= 1
    post: __return__ in scores
    post: all(v <= scores[__return__] for v in scores.values())
    post: all(scores[k] < scores[__return__] or k >= __return__ for k in scores)
    """
    return min(scores, key=lambda k: (-scores[k], k))


# Examples
assert top_key({"ann": 3, "bob": 5, "cy": 1}) == "bob"
assert top_key({"b": 2, "a": 2}) == "a"

# Hidden tests
assert top_key({"solo": -4}) == "solo"
assert top_key({"x": 0, "y": 0, "w": 0}) == "w"
assert top_key({"m": 10, "n": 9}) == "m"
assert top_key({"zed": 7, "amy": 1, "kim": 7}) == "kim"
assert top_key({"": 1, "a": 1}) == ""
