"""Binary digits.

Return the binary representation of the non-negative integer ``n`` as a string of ``0`` and
``1`` characters, without leading zeros (``"0"`` for zero).
"""


def to_binary(n: int) -> str:
    """
    pre: n >= 0
    post: len(__return__) >= 1 and all(c in "01" for c in __return__)
    post: __return__ == "0" or __return__[0] == "1"
    post: int(__return__, 2) == n
    """
    if n == 0:
        return "0"
    digits = []
    while n:
        n, bit = divmod(n, 2)
        digits.append(str(bit))
    return "".join(reversed(digits))


# Examples
assert to_binary(5) == "101"
assert to_binary(0) == "0"

# Hidden tests
assert to_binary(1) == "1"
assert to_binary(2) == "10"
assert to_binary(255) == "11111111"
assert to_binary(256) == "100000000"
assert to_binary(1000) == "1111101000"
