"""Balanced brackets.

``text`` holds only the characters ``()[]{}``. Return whether its brackets are balanced:
each closes the most recent one still open, with the same kind, and none is left open.
"""


def is_balanced(text: str) -> bool:
    """
    pre: all(c in "()[]{}" for c in text)
    post: not __return__ or len(text) % 2 == 0
    post: not __return__ or all(text.count(a) == text.count(b) for a, b in ("()", "[]", "{}"))
    post: not __return__ or text[:1] in ("", "(", "[", "{")
    """
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for c in text:
        if c in pairs:
            if not stack or stack.pop() != pairs[c]:
                return False
        else:
            stack.append(c)
    return not stack


# Examples
assert is_balanced("([]{})") is True
assert is_balanced("(]") is False

# Hidden tests
assert is_balanced("") is True
assert is_balanced("(") is False
assert is_balanced(")(") is False
assert is_balanced("([)]") is False
assert is_balanced("{[()()]}") is True
assert is_balanced("(((") is False
