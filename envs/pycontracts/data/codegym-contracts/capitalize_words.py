"""Capitalize each word.

``text`` holds lower-case letters and spaces. Return it with the first letter of every word
(a run of letters) in upper case; the spaces stay where they are.
"""


def capitalize_words(text: str) -> str:
    """
    pre: all(c in " abcdefghijklmnopqrstuvwxyz" for c in text)
    post: len(__return__) == len(text)
    post: __return__.lower() == text
    post: all(__return__[i].isupper() == (text[i] != " " and (i == 0 or text[i - 1] == " ")) for i in range(len(text)))
    """
    return "".join(c.upper() if i == 0 or text[i - 1] == " " else c for i, c in enumerate(text))


# Examples
assert capitalize_words("hello world") == "Hello World"
assert capitalize_words("  two  spaces") == "  Two  Spaces"

# Hidden tests
assert capitalize_words("") == ""
assert capitalize_words("a") == "A"
assert capitalize_words("   ") == "   "
assert capitalize_words("x y z") == "X Y Z"
assert capitalize_words("already done ") == "Already Done "
