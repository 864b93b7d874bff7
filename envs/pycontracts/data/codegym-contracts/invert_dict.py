"""Invert a dictionary.

Return a dictionary from each value of ``d`` to the sorted list of the keys that map to it.
"""


def invert(d: dict[str, int]) -> dict[int, list[str]]:
    """
    post: set(__return__) == set(d.values())
    post: all(d[k] == v for v, keys in __return__.items() for k in keys)
    post: sum(len(keys) for keys in __return__.values()) == len(d)
    post: all(keys == sorted(keys) for keys in __return__.values())
    """
    inverted: dict[int, list[str]] = {}
    for key in sorted(d):
        inverted.setdefault(d[key], []).append(key)
    return inverted


# Examples
assert invert({"a": 1, "b": 2, "c": 1}) == {1: ["a", "c"], 2: ["b"]}
assert invert({}) == {}

# Hidden tests
assert invert({"x": 0}) == {0: ["x"]}
assert invert({"b": 5, "a": 5}) == {5: ["a", "b"]}
assert invert({"p": 1, "q": 2, "r": 3}) == {1: ["p"], 2: ["q"], 3: ["r"]}
assert invert({"z": -1, "y": -1, "x": -1}) == {-1: ["x", "y", "z"]}
