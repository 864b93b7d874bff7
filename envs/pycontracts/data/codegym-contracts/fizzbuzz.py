"""One FizzBuzz word.

For a positive integer ``n``, return ``"FizzBuzz"`` when it is divisible by 15, ``"Fizz"``
when it is divisible by 3 (but not 5), ``"Buzz"`` when it is divisible by 5 (but not 3), and
``n`` written in decimal otherwise.
"""


def fizzbuzz(n: int) -> str:
    """
    pre: n >= 1
    post: (__return__ == "FizzBuzz") == (n % 15 == 0)
    post: __return__.startswith("Fizz") == (n % 3 == 0)
    post: __return__.endswith("Buzz") == (n % 5 == 0)
    post: n % 3 == 0 or n % 5 == 0 or __return__ == str(n)
    """
    if n % 15 == 0:
        return "FizzBuzz"
    if n % 3 == 0:
        return "Fizz"
    if n % 5 == 0:
        return "Buzz"
    return str(n)


# Examples
assert fizzbuzz(9) == "Fizz"
assert fizzbuzz(7) == "7"

# Hidden tests
assert fizzbuzz(15) == "FizzBuzz"
assert fizzbuzz(10) == "Buzz"
assert fizzbuzz(1) == "1"
assert fizzbuzz(45) == "FizzBuzz"
assert fizzbuzz(98) == "98"
