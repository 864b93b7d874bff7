"""Letter palindromes.

``text`` holds printable ASCII characters (space to ``~``). Return whether it reads the same
forwards and backwards when only its letters and digits count and upper and lower case are
the same (``"A man, a plan"`` is compared as ``"amanaplan"``).
"""


def is_palindrome(text: str) -> bool:
    """
    pre: all(" " <= c <= "~" for c in text)
    post: __return__ == ([c.lower() for c in text if c.isalnum()] == [c.lower() for c in reversed(text) if c.isalnum()])
    post: len([c for c in text if c.isalnum()]) > 1 or __return__
    """
    letters = [c.lower() for c in text if c.isalnum()]
    return letters == letters[::-1]


# Examples
assert is_palindrome("A man, a plan, a canal: Panama") is True
assert is_palindrome("race a car") is False

# Hidden tests
assert is_palindrome("") is True
assert is_palindrome("!!") is True
assert is_palindrome("Aa") is True
assert is_palindrome("ab") is False
assert is_palindrome("No lemon, no melon") is True
assert is_palindrome("12321") is True
assert is_palindrome("123") is False
