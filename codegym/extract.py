"""Turning a model's answer into code: raw code, or the fenced block of a chat answer."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)


def extract_code(answer: str, language: str = "python") -> str:
    """Return the code in ``answer``.

    A fenced block tagged with ``language`` (or an alias such as ``py``) wins; else the
    first untagged block; else the longest block. Text with no fence is returned as is.
    An unterminated fence (a truncated generation) yields everything after it.
    """
    if "```" not in answer and "~~~" not in answer:  # no fence: spare the regular expressions
        return answer
    blocks = [(m.group(2).lower(), m.group(3)) for m in _FENCE.finditer(answer)]
    if not blocks:
        opened = re.search(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n", answer, re.M)
        return answer[opened.end() :] if opened else answer
    aliases = {language.lower(), *_ALIASES.get(language.lower(), ())}
    for tag, body in blocks:
        if tag in aliases:
            return body
    for tag, body in blocks:
        if not tag:
            return body
    return max(blocks, key=lambda block: len(block[1]))[1]


_ALIASES = {
    "python": ("py", "python3"),
    "cpp": ("c++", "cxx"),
    "javascript": ("js", "node"),
    "rust": ("rs",),
    "verilog": ("systemverilog", "sv", "v"),
    "diff": ("patch", "udiff"),
    "html": ("htm", "xhtml"),
    "svg": ("xml", "html"),
    "dafny": ("dfy",),
    "whyml": ("mlw", "why3", "ocaml"),
}
