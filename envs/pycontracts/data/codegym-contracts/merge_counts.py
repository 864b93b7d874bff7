"""Add up two tallies.

``a`` and ``b`` map names to counts. Return one dictionary whose keys are the names of
either, each mapped to the sum of its counts in both (a missing name counts as 0).
"""


def merge_counts(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    """
    post: set(__return__) == set(a) | set(b)
    post: all(__return__[k] == a.get(k, 0) + b.get(k, 0) for k in __return__)
    """
    merged = dict(a)
    for key, count in b.items():
        merged[key] = merged.get(key, 0) + count
    return merged


# Examples
assert merge_counts({"x": 1, "y": 2}, {"y": 3, "z": 4}) == {"x": 1, "y": 5, "z": 4}
assert merge_counts({}, {}) == {}

# Hidden tests
assert merge_counts({"a": 1}, {}) == {"a": 1}
assert merge_counts({}, {"b": 2}) == {"b": 2}
assert merge_counts({"a": -1}, {"a": 1}) == {"a": 0}
assert merge_counts({"p": 5, "q": 6}, {"p": 5, "q": 6}) == {"p": 10, "q": 12}
assert merge_counts({"k": 0}, {"j": 0}) == {"k": 0, "j": 0}
