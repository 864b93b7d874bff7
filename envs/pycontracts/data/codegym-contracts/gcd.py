"""Greatest common divisor.

Return the greatest common divisor of two non-negative integers ``a`` and ``b``, which are
not both zero.
"""


def gcd(a: int, b: int) -> int:
    """
    pre: a >= 0 and b >= 0 and a + b > 0
    post: __return__ >= 1
    post: a % __return__ == 0 and b % __return__ == 0
    post: __return__ <= max(a, b)
    """
    while b:
        a, b = b, a % b
    return a


# Examples
assert gcd(12, 18) == 6
assert gcd(7, 0) == 7

# Hidden tests
assert gcd(0, 9) == 9
assert gcd(17, 5) == 1
assert gcd(100, 75) == 25
assert gcd(1, 1) == 1
assert gcd(270, 192) == 6
assert gcd(2**20, 2**12 * 3) == 2**12
