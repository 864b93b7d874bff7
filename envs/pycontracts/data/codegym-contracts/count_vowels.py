"""Count the vowels.

Return how many characters of ``text`` are vowels: ``a``, ``e``, ``i``, ``o`` or ``u``, in
lower or upper case.
"""


def count_vowels(text: str) -> int:
    """
    post: 0 <= __return__ <= len(text)
    post: __return__ == 0 or any(c in "aeiouAEIOU" for c in text)
    post: __return__ == len(text) or any(c not in "aeiouAEIOU" for c in text)
    """
    return sum(1 for c in text if c in "aeiouAEIOU")


# Examples
assert count_vowels("Hello World") == 3
assert count_vowels("rhythm") == 0

# Hidden tests
assert count_vowels("") == 0
assert count_vowels("AEIOU") == 5
assert count_vowels("aeiouy") == 5
assert count_vowels("Programming in Python") == 5
assert count_vowels("xyz A") == 1
