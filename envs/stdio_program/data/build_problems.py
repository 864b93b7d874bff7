"""Build ``problems.jsonl``: original stdin/stdout programming problems for codegym.

Every problem below was written for this project. A problem is a statement
(story, ``Input``, ``Output`` and ``Constraints`` sections; the ``Example``
blocks are rendered from ``examples``), a reference program, an independently
written alternative program, and a seeded test-input generator with four
tiers (``basic``, ``intermediate``, ``complex``, ``edge``).

The build

* turns the statement examples into public tests and draws ``HIDDEN_PLAN``
  hidden tests per problem from the generator, each from its own
  ``random.Random`` seeded by a hash of the problem slug and the test index
  (so the output never depends on ``PYTHONHASHSEED`` or on run order);
* computes every expected output by running the REFERENCE program in a
  ``python3`` subprocess (stdin = the test input, 5 s timeout);
* checks that the ALTERNATIVE program agrees with the reference on every
  test under the problem's checker (``tokens``, ``exact`` or ``float``,
  implemented below exactly as the environment grades them);
* checks that every example output printed in the statement is what the
  reference prints, that statements have the required sections, and that
  the reference stays well inside the time budget.

It exits non-zero listing every failure and writes nothing in that case.
Regenerate the JSONL (deterministically) from the repository root with:

    python envs/stdio_program/data/build_problems.py
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

OUT_PATH = Path(__file__).with_name("problems.jsonl")
TASK_PREFIX = "stdio"
DIFFICULTIES = ("easy", "medium", "hard")
TIERS = ("basic", "intermediate", "complex", "edge")
HIDDEN_PLAN: dict[str, int] = {"basic": 3, "intermediate": 3, "complex": 3, "edge": 3}
MIN_HIDDEN = 10
RUN_TIMEOUT_SECONDS = 5.0
MAX_REFERENCE_SECONDS = 1.0  # generous: tests run in parallel; typical runs take ~0.05 s
MAX_FILE_BYTES = 3_000_000
MAX_DRAWS_PER_TEST = 50  # redraws allowed when a generated input repeats an earlier one
REQUIRED_SECTIONS = ("Input", "Output", "Constraints")

Checker = dict[str, object]
Generator = Callable[[random.Random, str], str]

TOKENS: Checker = {"kind": "tokens"}
EXACT: Checker = {"kind": "exact"}
FLOAT: Checker = {"kind": "float", "abs": 1e-6, "rel": 1e-6}


def src(text: str) -> str:
    """Dedent a triple-quoted block and drop its leading newline."""
    return textwrap.dedent(text).lstrip("\n")


def lines(*rows: object) -> str:
    """Join rows into an input text with one row per line and a final newline."""
    return "".join(f"{row}\n" for row in rows)


def join(values: Iterable[object]) -> str:
    """Space-separate the items of an iterable."""
    return " ".join(str(value) for value in values)


def pick(rng: random.Random, tier: str, sizes: dict[str, tuple[int, int]]) -> int:
    """Draw a size for ``tier`` from the inclusive range ``sizes[tier]``."""
    low, high = sizes[tier]
    return rng.randint(low, high)


@dataclass(frozen=True)
class Problem:
    """One stdin/stdout problem with its two solutions and test generator."""

    slug: str
    title: str
    difficulty: str
    tags: tuple[str, ...]
    statement: str  # story + Input/Output/Constraints; examples are appended by ``prompt``
    reference: str
    alternative: str
    generator: Generator
    examples: tuple[tuple[str, str], ...]  # (input, output) exactly as the statement shows them
    checker: Checker = field(default_factory=lambda: dict(TOKENS))

    @property
    def prompt(self) -> str:
        blocks = [src(self.statement).rstrip("\n")]
        for number, (given, expected) in enumerate(self.examples, 1):
            blocks.append(f"Example {number}\n\nInput\n```\n{given}```\n\nOutput\n```\n{expected}```")
        return "\n\n".join(blocks) + "\n"


PROBLEMS: list[Problem] = []
# ==========================================================================
# Easy
# ==========================================================================

# --- temperature-swings ----------------------------------------------------


def gen_temperature_swings(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["single", "flat", "rising", "extremes"])
        n = 1 if kind == "single" else rng.randint(2, 6)
        if kind == "single":
            temps = [rng.choice([-100, 0, 100])]
        elif kind == "flat":
            temps = [rng.randint(-100, 100)] * n
        elif kind == "rising":
            temps = sorted(rng.sample(range(-100, 101), n))
        else:
            temps = [(-100, 100)[i % 2] for i in range(n)]
        return lines(len(temps), join(temps))
    n = pick(rng, tier, {"basic": (2, 8), "intermediate": (20, 200), "complex": (2000, 3000)})
    temps = [rng.randint(-20, 35)]
    for _ in range(n - 1):
        temps.append(max(-100, min(100, temps[-1] + rng.randint(-9, 9))))
    return lines(n, join(temps))


PROBLEMS.append(
    Problem(
        slug="temperature-swings",
        title="Temperature Swings",
        difficulty="easy",
        tags=("arrays", "arithmetic"),
        statement="""
            A weather station on a mountain pass records the temperature at noon
            every day. The meteorologist in charge wants two numbers from a log of
            n days: the largest swing, i.e. the largest absolute difference between
            the temperatures of two consecutive days, and the number of days that
            were strictly warmer than the day before.

            Input
            The first line contains an integer n. The second line contains n
            integers t1, t2, ..., tn: the recorded temperatures in order.

            Output
            Print two integers separated by a space: the largest swing (0 if n = 1)
            and the number of indices i (2 <= i <= n) with ti > t(i-1).

            Constraints
            1 <= n <= 3000
            -100 <= ti <= 100
            """,
        reference=src("""
            import sys


            def main():
                data = sys.stdin.read().split()
                n = int(data[0])
                temps = [int(x) for x in data[1:1 + n]]
                largest = 0
                warmer = 0
                for prev, cur in zip(temps, temps[1:]):
                    largest = max(largest, abs(cur - prev))
                    if cur > prev:
                        warmer += 1
                print(largest, warmer)


            main()
            """),
        alternative=src("""
            n = int(input())
            t = list(map(int, input().split()))
            diffs = [t[i] - t[i - 1] for i in range(1, n)]
            print(max((abs(d) for d in diffs), default=0), len([d for d in diffs if d > 0]))
            """),
        generator=gen_temperature_swings,
        examples=(
            (lines(5, "3 7 7 2 -1"), lines("5 1")),
            (lines(1, 10), lines("0 0")),
        ),
    )
)

# --- headline-case -----------------------------------------------------------

HEADLINE_WORDS = (
    *("river", "mountain", "code", "gym", "python", "night", "day", "silver", "garden", "stone"),
    *("window", "letter", "season", "winter", "summer", "market", "journey", "house", "light"),
    *("shadow", "engine", "forest", "ocean", "signal", "number", "table", "story", "voice"),
    *("dream", "north", "harbor"),
)
MINOR_WORDS = ("a", "an", "and", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to")


def scramble_case(rng: random.Random, word: str) -> str:
    style = rng.randrange(4)
    if style == 0:
        return word.lower()
    if style == 1:
        return word.upper()
    if style == 2:
        return word.capitalize()
    return "".join(ch.upper() if rng.random() < 0.5 else ch.lower() for ch in word)


def gen_headline_case(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        heads = [
            [rng.choice(MINOR_WORDS)],
            [rng.choice(HEADLINE_WORDS)],
            [rng.choice(MINOR_WORDS), rng.choice(MINOR_WORDS)],
            [rng.choice("abcdefghijklmnopqrstuvwxyz")],
        ]
        rng.shuffle(heads)
        rows = []
        for words in heads[: rng.randint(1, 4)]:
            rows.append(" " * rng.randint(0, 3) + " ".join(scramble_case(rng, w) for w in words))
        return lines(len(rows), *rows)
    t = pick(rng, tier, {"basic": (1, 3), "intermediate": (5, 15), "complex": (40, 60)})
    max_words = {"basic": 6, "intermediate": 10, "complex": 16}[tier]  # keeps lines under 200 chars
    rows = []
    for _ in range(t):
        words = [
            rng.choice(MINOR_WORDS) if rng.random() < 0.35 else rng.choice(HEADLINE_WORDS)
            for _ in range(rng.randint(1, max_words))
        ]
        gaps = [" " * rng.choice([1, 1, 1, 2, 3]) for _ in words]
        text = "".join(gap + scramble_case(rng, w) for gap, w in zip(gaps, words, strict=True))
        rows.append(text if rng.random() < 0.5 else text.lstrip())
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="headline-case",
        title="Headline Case",
        difficulty="easy",
        tags=("strings", "formatting"),
        statement="""
            The copy desk of a small newspaper receives headlines typed in every
            possible mix of upper and lower case and with random runs of spaces.
            Normalize each headline as follows:

            * words are separated by exactly one space, with no spaces at the
              beginning or end of the line;
            * every word is written with its first letter in upper case and all
              other letters in lower case;
            * except that the minor words a, an, and, at, but, by, for, in, of,
              on, or, the, to are written entirely in lower case, unless the
              minor word is the first or the last word of the headline.

            Minor words are recognized regardless of their case in the input.

            Input
            The first line contains an integer T, the number of headlines. Each of
            the next T lines contains one headline: English letters and spaces,
            with at least one letter. A word is a maximal run of letters.

            Output
            Print T lines, the normalized headlines in input order.

            Constraints
            1 <= T <= 60
            Each headline has at most 200 characters.
            """,
        reference=src("""
            import sys

            MINOR = {"a", "an", "and", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to"}


            def fix(line):
                words = line.split()
                out = []
                for i, word in enumerate(words):
                    low = word.lower()
                    if low in MINOR and 0 < i < len(words) - 1:
                        out.append(low)
                    else:
                        out.append(low[0].upper() + low[1:])
                return " ".join(out)


            def main():
                rows = sys.stdin.read().split("\\n")
                t = int(rows[0])
                print("\\n".join(fix(rows[i]) for i in range(1, t + 1)))


            main()
            """),
        alternative=src("""
            import re

            minor = "a an and at but by for in of on or the to".split()
            t = int(input())
            for _ in range(t):
                words = re.findall(r"[A-Za-z]+", input())
                last = len(words) - 1
                fixed = []
                for pos, w in enumerate(words):
                    if w.lower() in minor and pos not in (0, last):
                        fixed.append(w.lower())
                    else:
                        fixed.append(w.capitalize())
                print(*fixed)
            """),
        generator=gen_headline_case,
        checker=EXACT,
        examples=(
            (
                lines(3, "the lord of the rings", "  a TALE   of two    cities", "what are you looking at"),
                lines("The Lord of the Rings", "A Tale of Two Cities", "What Are You Looking At"),
            ),
        ),
    )
)

# --- clock-arithmetic --------------------------------------------------------


def gen_clock_arithmetic(rng: random.Random, tier: str) -> str:
    def clock(h: int, m: int) -> str:
        return f"{h:02d}:{m:02d}"

    if tier == "edge":
        cases = [
            f"{clock(0, 0)} 0",
            f"{clock(23, 59)} 1",
            f"{clock(0, 0)} -1",
            f"{clock(0, 0)} 1000000",
            f"{clock(23, 59)} -1000000",
            f"{clock(12, 30)} 1440",
            f"{clock(12, 30)} -1440",
            f"{clock(rng.randint(0, 23), rng.randint(0, 59))} {rng.choice([-1, 1]) * 1440 * rng.randint(1, 600)}",
        ]
        chosen = rng.sample(cases, rng.randint(1, 4))
        return lines(len(chosen), *chosen)
    t = pick(rng, tier, {"basic": (1, 4), "intermediate": (10, 30), "complex": (80, 100)})
    span = {"basic": 3000, "intermediate": 100000, "complex": 1000000}[tier]
    rows = [f"{clock(rng.randint(0, 23), rng.randint(0, 59))} {rng.randint(-span, span)}" for _ in range(t)]
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="clock-arithmetic",
        title="Clock Arithmetic",
        difficulty="easy",
        tags=("arithmetic", "multiple-test-cases"),
        statement="""
            A night-shift planner keeps asking the same question: "if it is HH:MM
            now, what will the clock show after m minutes, and how many days from
            today will that be?". The value m may be negative, which means going
            back in time.

            Input
            The first line contains an integer T, the number of questions. Each of
            the next T lines contains a time in 24-hour format HH:MM (with leading
            zeros) and an integer m, separated by a space.

            Output
            For each question print one line with the resulting time in the same
            HH:MM format and an integer d, the number of days between the starting
            day and the resulting day (negative if the result is on an earlier day,
            0 if it is on the same day).

            Constraints
            1 <= T <= 100
            00 <= HH <= 23, 00 <= MM <= 59
            -1000000 <= m <= 1000000
            """,
        reference=src("""
            import sys


            def main():
                data = sys.stdin.read().split()
                t = int(data[0])
                out = []
                for i in range(t):
                    hh, mm = data[1 + 2 * i].split(":")
                    total = int(hh) * 60 + int(mm) + int(data[2 + 2 * i])
                    days, minute = divmod(total, 1440)
                    out.append(f"{minute // 60:02d}:{minute % 60:02d} {days}")
                print("\\n".join(out))


            main()
            """),
        alternative=src("""
            t = int(input())
            for _ in range(t):
                stamp, delta = input().split()
                h, m = map(int, stamp.split(":"))
                minute = h * 60 + m + int(delta)
                day = 0
                while minute < 0:
                    minute += 1440
                    day -= 1
                while minute >= 1440:
                    minute -= 1440
                    day += 1
                print("%02d:%02d %d" % (minute // 60, minute % 60, day))
            """),
        generator=gen_clock_arithmetic,
        examples=((lines(3, "23:45 30", "00:10 -20", "12:00 2880"), lines("00:15 1", "23:50 -1", "12:00 2")),),
    )
)

# --- run-length-compress -----------------------------------------------------


def gen_run_length_compress(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [
            rng.choice("abcxyz"),
            rng.choice("abz") * 1000,
            "".join(rng.choice("ab") for _ in range(rng.randint(2, 6))),
            rng.choice("mn") * rng.choice([9, 10, 11, 99, 100, 101]),
            "abcdefghijklmnopqrstuvwxyz",
        ]
        rows = rng.sample(options, rng.randint(1, 3))
        return lines(len(rows), *rows)
    t = pick(rng, tier, {"basic": (1, 3), "intermediate": (5, 15), "complex": (30, 50)})
    max_len = {"basic": 12, "intermediate": 100, "complex": 1000}[tier]
    rows = []
    for _ in range(t):
        alphabet = "abcdefghijklmnopqrstuvwxyz"[: rng.randint(1, 6)]
        target = rng.randint(1, max_len)
        parts: list[str] = []
        while sum(map(len, parts)) < target:
            parts.append(rng.choice(alphabet) * rng.choice([1, 1, 2, 3, rng.randint(1, 15)]))
        rows.append("".join(parts)[:target])
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="run-length-compress",
        title="Run-Length Compress",
        difficulty="easy",
        tags=("strings",),
        statement="""
            A telemetry link charges per character, so the firmware compresses
            strings before sending them. Each maximal block of k equal letters c
            is replaced by the letter c followed by the decimal number k, except
            that a block of length 1 is written as the single letter c (no "1").
            Blocks are written in the order they appear.

            For example "aaabccdddd" becomes "a3bc2d4".

            Input
            The first line contains an integer T. Each of the next T lines contains
            a non-empty string of lowercase English letters.

            Output
            For each string print its compressed form on its own line.

            Constraints
            1 <= T <= 50
            1 <= length of each string <= 1000
            """,
        reference=src("""
            import sys


            def compress(s):
                out = []
                i = 0
                while i < len(s):
                    j = i
                    while j < len(s) and s[j] == s[i]:
                        j += 1
                    out.append(s[i] if j - i == 1 else s[i] + str(j - i))
                    i = j
                return "".join(out)


            def main():
                data = sys.stdin.read().split()
                t = int(data[0])
                print("\\n".join(compress(s) for s in data[1:1 + t]))


            main()
            """),
        alternative=src("""
            from itertools import groupby

            for _ in range(int(input())):
                pieces = []
                for ch, grp in groupby(input().strip()):
                    k = len(list(grp))
                    pieces.append(ch + (str(k) if k > 1 else ""))
                print("".join(pieces))
            """),
        generator=gen_run_length_compress,
        examples=((lines(3, "aaabccdddd", "abc", "zzzzzzzzzzzz"), lines("a3bc2d4", "abc", "z12")),),
    )
)

# --- bracket-depth -----------------------------------------------------------


def random_brackets(rng: random.Random, pairs: int, max_depth: int) -> str:
    """A random well-formed sequence of ``()`` and ``[]`` with ``pairs`` pairs."""
    out: list[str] = []
    stack: list[str] = []
    opened = 0
    while opened < pairs or stack:
        can_open = opened < pairs and len(stack) < max_depth
        if can_open and (not stack or rng.random() < 0.55):
            ch = rng.choice("([")
            out.append(ch)
            stack.append(")" if ch == "(" else "]")
            opened += 1
        else:
            out.append(stack.pop())
    return "".join(out)


def damage_brackets(rng: random.Random, s: str) -> str:
    kind = rng.randrange(4)
    pos = rng.randrange(len(s))
    if kind == 0 and len(s) > 1:
        return s[:pos] + s[pos + 1 :]
    if kind == 1:
        return s[:pos] + rng.choice("()[]") + s[pos + 1 :]
    if kind == 2:
        return s[::-1]
    swap = {"(": "[", "[": "(", ")": "]", "]": ")"}
    return s[:pos] + swap[s[pos]] + s[pos + 1 :]


def gen_bracket_depth(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = ["(", ")", "()", "[]", "][", "([)]", "(" * 100 + ")" * 100, "[]" * 100, "([" * 50 + "])" * 50]
        rows = rng.sample(options, rng.randint(2, 5))
        return lines(len(rows), *rows)
    t = pick(rng, tier, {"basic": (2, 5), "intermediate": (10, 30), "complex": (80, 100)})
    max_pairs = {"basic": 5, "intermediate": 30, "complex": 100}[tier]
    rows = []
    for _ in range(t):
        s = random_brackets(rng, rng.randint(1, max_pairs), rng.randint(1, 40))
        rows.append(damage_brackets(rng, s) if rng.random() < 0.4 else s)
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="bracket-depth",
        title="Bracket Depth",
        difficulty="easy",
        tags=("strings", "stack", "multiple-test-cases"),
        statement="""
            A configuration language uses two kinds of brackets, round "()" and
            square "[]". A bracket string is balanced if every opening bracket is
            closed later by a bracket of the same kind and the pairs are properly
            nested: "([])[]" is balanced, "([)]" and "(()" are not.

            The nesting depth of a balanced string is the largest number of
            brackets that are open at the same time. For each string, print its
            nesting depth, or -1 if it is not balanced.

            Input
            The first line contains an integer T. Each of the next T lines contains
            a non-empty string made only of the characters ( ) [ ].

            Output
            For each string print one integer on its own line.

            Constraints
            1 <= T <= 100
            1 <= length of each string <= 200
            """,
        reference=src("""
            import sys


            def depth(s):
                match = {")": "(", "]": "["}
                stack = []
                best = 0
                for ch in s:
                    if ch in "([":
                        stack.append(ch)
                        best = max(best, len(stack))
                    elif not stack or stack.pop() != match[ch]:
                        return -1
                return -1 if stack else best


            def main():
                data = sys.stdin.read().split()
                t = int(data[0])
                print("\\n".join(str(depth(s)) for s in data[1:1 + t]))


            main()
            """),
        alternative=src("""
            def balanced(s):
                while "()" in s or "[]" in s:
                    s = s.replace("()", "").replace("[]", "")
                return s == ""


            t = int(input())
            for _ in range(t):
                s = input().strip()
                if not balanced(s):
                    print(-1)
                    continue
                level = peak = 0
                for ch in s:
                    level += 1 if ch in "([" else -1
                    peak = max(peak, level)
                print(peak)
            """),
        generator=gen_bracket_depth,
        examples=((lines(4, "(()[])", "([)]", "[[[]]]()", ")("), lines(2, -1, 3, -1)),),
    )
)

# --- median-and-mode ---------------------------------------------------------


def gen_median_and_mode(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "same", "two", "extremes", "all-distinct"])
        if kind == "one":
            values = [rng.choice([-(10**9), 0, 10**9])]
        elif kind == "same":
            values = [rng.randint(-5, 5)] * rng.randint(2, 7)
        elif kind == "two":
            values = [rng.randint(-9, 9), rng.randint(-9, 9)]
        elif kind == "extremes":
            values = [10**9, -(10**9)] * rng.randint(1, 4)
        else:
            values = rng.sample(range(-50, 50), rng.randint(3, 9))
        return lines(len(values), join(values))
    n = pick(rng, tier, {"basic": (3, 9), "intermediate": (30, 200), "complex": (1500, 2000)})
    spread = rng.choice([5, 50, 10**9]) if tier != "basic" else 9
    values = [rng.randint(-spread, spread) for _ in range(n)]
    return lines(n, join(values))


PROBLEMS.append(
    Problem(
        slug="median-and-mode",
        title="Median and Mode",
        difficulty="easy",
        tags=("sorting", "counting"),
        statement="""
            A quality engineer summarizes a batch of n integer measurements by two
            numbers:

            * the lower median: after sorting the measurements in non-decreasing
              order, the element at position floor((n + 1) / 2) (1-based);
            * the mode: the value that occurs most often; if several values are
              tied, the smallest of them.

            Input
            The first line contains an integer n. The second line contains n
            integers a1, ..., an.

            Output
            Print the lower median and the mode, separated by a space.

            Constraints
            1 <= n <= 2000
            -10^9 <= ai <= 10^9
            """,
        reference=src("""
            import sys
            from collections import Counter


            def main():
                data = sys.stdin.read().split()
                n = int(data[0])
                a = sorted(int(x) for x in data[1:1 + n])
                counts = Counter(a)
                top = max(counts.values())
                mode = min(v for v, c in counts.items() if c == top)
                print(a[(n + 1) // 2 - 1], mode)


            main()
            """),
        alternative=src("""
            n = int(input())
            values = list(map(int, input().split()))
            freq = {}
            for v in values:
                freq[v] = freq.get(v, 0) + 1
            keys = sorted(freq)
            need = (n + 1) // 2
            seen = 0
            median = None
            for k in keys:
                seen += freq[k]
                if seen >= need:
                    median = k
                    break
            best = keys[0]
            for k in keys:
                if freq[k] > freq[best]:
                    best = k
            print(median, best)
            """),
        generator=gen_median_and_mode,
        examples=(
            (lines(6, "4 1 7 4 9 1"), lines("4 1")),
            (lines(1, -5), lines("-5 -5")),
        ),
    )
)

# --- range-sum-queries -------------------------------------------------------


def gen_range_sum_queries(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        n = rng.choice([1, 1, 2, 5])
        values = [rng.choice([-(10**6), 10**6]) for _ in range(n)]
        queries = [(1, n), (1, 1), (n, n)] + [(1, rng.randint(1, n)) for _ in range(2)]
    else:
        n = pick(rng, tier, {"basic": (3, 8), "intermediate": (30, 200), "complex": (800, 1000)})
        values = [rng.randint(-(10**6), 10**6) for _ in range(n)]
        q = pick(rng, tier, {"basic": (2, 5), "intermediate": (20, 100), "complex": (800, 1000)})
        queries = []
        for _ in range(q):
            left, right = sorted((rng.randint(1, n), rng.randint(1, n)))
            queries.append((left, right))
    return lines(f"{n} {len(queries)}", join(values), *(f"{a} {b}" for a, b in queries))


PROBLEMS.append(
    Problem(
        slug="range-sum-queries",
        title="Range Sum Queries",
        difficulty="easy",
        tags=("prefix-sums", "arrays"),
        statement="""
            A shop keeps the daily profit (possibly negative) of n consecutive
            days. The owner asks q questions of the form "what was the total
            profit from day l to day r, inclusive?". Answer all of them.

            Input
            The first line contains two integers n and q. The second line contains
            n integers p1, ..., pn. Each of the next q lines contains two integers
            l and r.

            Output
            For each question print the total profit of days l..r on its own line.

            Constraints
            1 <= n, q <= 1000
            -10^6 <= pi <= 10^6
            1 <= l <= r <= n
            """,
        reference=src("""
            import sys


            def main():
                data = sys.stdin.buffer.read().split()
                n, q = int(data[0]), int(data[1])
                prefix = [0] * (n + 1)
                for i in range(n):
                    prefix[i + 1] = prefix[i] + int(data[2 + i])
                out = []
                pos = 2 + n
                for _ in range(q):
                    left, right = int(data[pos]), int(data[pos + 1])
                    pos += 2
                    out.append(prefix[right] - prefix[left - 1])
                print("\\n".join(map(str, out)))


            main()
            """),
        alternative=src("""
            n, q = map(int, input().split())
            profit = list(map(int, input().split()))
            for _ in range(q):
                l, r = map(int, input().split())
                print(sum(profit[l - 1:r]))
            """),
        generator=gen_range_sum_queries,
        examples=((lines("5 3", "2 -1 3 5 4", "1 3", "2 5", "4 4"), lines(4, 11, 5)),),
    )
)

# --- leap-years-in-range -----------------------------------------------------


def gen_leap_years_in_range(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [
            (1, 1),
            (4, 4),
            (100, 100),
            (400, 400),
            (1, 10**9),
            (10**9, 10**9),
            (1896, 1904),
            (2000, 2000),
            (1, 3),
            (399, 401),
        ]
        rows = rng.sample(options, rng.randint(2, 5))
        return lines(len(rows), *(f"{a} {b}" for a, b in rows))
    t = pick(rng, tier, {"basic": (1, 4), "intermediate": (10, 30), "complex": (80, 100)})
    top = {"basic": 3000, "intermediate": 10**6, "complex": 10**9}[tier]
    rows = []
    for _ in range(t):
        a = rng.randint(1, top)
        b = rng.randint(a, min(top, a + rng.choice([0, 10, 1000, top])))
        rows.append(f"{a} {b}")
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="leap-years-in-range",
        title="Leap Years in a Range",
        difficulty="easy",
        tags=("arithmetic", "number-theory", "multiple-test-cases"),
        statement="""
            In the proleptic Gregorian calendar, a year is a leap year if it is
            divisible by 4, except that years divisible by 100 are not leap years,
            except that years divisible by 400 are leap years again. So 1996 and
            2000 are leap years while 1900 and 2023 are not.

            For each query, count the leap years y with a <= y <= b.

            Input
            The first line contains an integer T. Each of the next T lines contains
            two integers a and b.

            Output
            For each query print the count on its own line.

            Constraints
            1 <= T <= 100
            1 <= a <= b <= 10^9
            """,
        reference=src("""
            import sys


            def leaps_up_to(y):
                return y // 4 - y // 100 + y // 400


            def main():
                data = sys.stdin.read().split()
                t = int(data[0])
                out = []
                for i in range(t):
                    a, b = int(data[1 + 2 * i]), int(data[2 + 2 * i])
                    out.append(leaps_up_to(b) - leaps_up_to(a - 1))
                print("\\n".join(map(str, out)))


            main()
            """),
        alternative=src("""
            def is_leap(y):
                return y % 400 == 0 or (y % 4 == 0 and y % 100 != 0)


            def count(a, b):
                total = 0
                while a <= b and a % 400 != 0:
                    total += is_leap(a)
                    a += 1
                cycles = (b - a + 1) // 400
                total += cycles * 97
                a += cycles * 400
                while a <= b:
                    total += is_leap(a)
                    a += 1
                return total


            for _ in range(int(input())):
                a, b = map(int, input().split())
                print(count(a, b))
            """),
        generator=gen_leap_years_in_range,
        examples=((lines(3, "1999 2001", "1900 1900", "1 400"), lines(1, 0, 97)),),
    )
)

# --- runner-up-score ---------------------------------------------------------


def gen_runner_up_score(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "same", "two-distinct", "extremes"])
        if kind == "one":
            values = [rng.randint(-(10**9), 10**9)]
        elif kind == "same":
            values = [rng.randint(-(10**9), 10**9)] * rng.randint(2, 6)
        elif kind == "two-distinct":
            values = [rng.choice([-7, 7])] * rng.randint(1, 4) + [0] * rng.randint(1, 4)
            rng.shuffle(values)
        else:
            values = [10**9, -(10**9), 10**9]
        return lines(len(values), join(values))
    n = pick(rng, tier, {"basic": (2, 8), "intermediate": (20, 300), "complex": (1500, 2000)})
    spread = rng.choice([3, 100, 10**9])
    return lines(n, join(rng.randint(-spread, spread) for _ in range(n)))


PROBLEMS.append(
    Problem(
        slug="runner-up-score",
        title="Runner-Up Score",
        difficulty="easy",
        tags=("arrays",),
        statement="""
            After a programming contest the organizers want to announce the
            runner-up score: the largest score that is strictly smaller than the
            best score. Several contestants may share a score. If all contestants
            have the same score there is no runner-up score.

            Input
            The first line contains an integer n, the number of contestants. The
            second line contains n integers, their scores.

            Output
            Print the runner-up score, or the word NONE if it does not exist.

            Constraints
            1 <= n <= 2000
            -10^9 <= score <= 10^9
            """,
        reference=src("""
            import sys


            def main():
                data = sys.stdin.read().split()
                n = int(data[0])
                best = second = None
                for x in map(int, data[1:1 + n]):
                    if best is None or x > best:
                        best, second = x, best
                    elif x < best and (second is None or x > second):
                        second = x
                print("NONE" if second is None else second)


            main()
            """),
        alternative=src("""
            input()
            distinct = sorted(set(map(int, input().split())), reverse=True)
            print(distinct[1] if len(distinct) > 1 else "NONE")
            """),
        generator=gen_runner_up_score,
        examples=(
            (lines(5, "3 9 9 4 1"), lines(4)),
            (lines(3, "7 7 7"), lines("NONE")),
        ),
    )
)

# --- clean-palindromes -------------------------------------------------------

PUNCTUATION = " ,.!?;:'-()\"#@&*+/"


def noisy(rng: random.Random, core: str) -> str:
    out = []
    for ch in core:
        if rng.random() < 0.25:
            out.append(rng.choice(PUNCTUATION))
        out.append(ch.upper() if rng.random() < 0.4 else ch)
    text = "".join(out).strip()
    return text or "!"


def gen_clean_palindromes(rng: random.Random, tier: str) -> str:
    alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
    if tier == "edge":
        options = ["!", "a", "?!?", "Aa", "ab", "0P", "1 2 1", "Z" * 150 + "z" * 50, "x,y", "a-A"]
        rows = rng.sample(options, rng.randint(2, 5))
        return lines(len(rows), *rows)
    t = pick(rng, tier, {"basic": (2, 4), "intermediate": (10, 20), "complex": (60, 80)})
    max_half = {"basic": 5, "intermediate": 25, "complex": 70}[tier]
    rows = []
    for _ in range(t):
        half = "".join(rng.choice(alnum[: rng.randint(2, 36)]) for _ in range(rng.randint(0, max_half)))
        core = half + rng.choice(["", rng.choice(alnum)]) + half[::-1]
        if rng.random() < 0.4 and core:
            pos = rng.randrange(len(core))
            core = core[:pos] + rng.choice(alnum) + core[pos + 1 :]
        rows.append(noisy(rng, core))
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="clean-palindromes",
        title="Clean Palindromes",
        difficulty="easy",
        tags=("strings", "two-pointers", "multiple-test-cases"),
        statement="""
            A word-game club collects phrases that read the same forwards and
            backwards once you ignore everything except letters and digits and
            ignore the difference between upper and lower case. For example
            "Step on no pets!" qualifies, while "Codegym 2024" does not. A phrase
            that contains no letters or digits at all qualifies as well.

            Input
            The first line contains an integer T. Each of the next T lines contains
            one phrase of printable ASCII characters (letters, digits, spaces and
            punctuation); no phrase starts or ends with a space.

            Output
            For each phrase print YES if it qualifies and NO otherwise, one per
            line.

            Constraints
            1 <= T <= 80
            1 <= length of each phrase <= 200
            """,
        reference=src("""
            import sys


            def main():
                rows = sys.stdin.read().split("\\n")
                t = int(rows[0])
                out = []
                for i in range(1, t + 1):
                    cleaned = [ch.lower() for ch in rows[i] if ch.isascii() and ch.isalnum()]
                    out.append("YES" if cleaned == cleaned[::-1] else "NO")
                print("\\n".join(out))


            main()
            """),
        alternative=src("""
            import string

            keep = set(string.ascii_letters + string.digits)
            t = int(input())
            for _ in range(t):
                s = input()
                i, j = 0, len(s) - 1
                ok = True
                while i < j:
                    if s[i] not in keep:
                        i += 1
                    elif s[j] not in keep:
                        j -= 1
                    elif s[i].lower() != s[j].lower():
                        ok = False
                        break
                    else:
                        i += 1
                        j -= 1
                print("YES" if ok else "NO")
            """),
        generator=gen_clean_palindromes,
        examples=((lines(3, "Step on no pets!", "Codegym 2024", "?!"), lines("YES", "NO", "YES")),),
    )
)

# --- triangle-kinds ----------------------------------------------------------


def gen_triangle_kinds(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [
            (1, 1, 1),
            (1, 1, 2),
            (1, 2, 3),
            (10000, 10000, 10000),
            (1, 10000, 10000),
            (5000, 5000, 10000),
            (3, 4, 5),
            (5, 12, 13),
            (6000, 8000, 10000),
            (2, 3, 4),
        ]
        rows = rng.sample(options, rng.randint(2, 6))
        return lines(len(rows), *(join(rng.sample(r, 3)) for r in rows))
    t = pick(rng, tier, {"basic": (2, 5), "intermediate": (10, 30), "complex": (80, 100)})
    top = {"basic": 20, "intermediate": 200, "complex": 10000}[tier]
    rows = []
    triples = [(3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29)]
    for _ in range(t):
        kind = rng.randrange(5)
        if kind == 0:
            k = rng.randint(1, max(1, top // 30))
            sides = [k * s for s in rng.choice(triples)]
        elif kind == 1:
            a = rng.randint(1, top)
            sides = [a, a, rng.randint(1, top)]
        else:
            sides = [rng.randint(1, top) for _ in range(3)]
        rng.shuffle(sides)
        rows.append(join(sides))
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="triangle-kinds",
        title="Triangle Kinds",
        difficulty="easy",
        tags=("geometry", "math", "multiple-test-cases"),
        statement="""
            A carpenter has three wooden sticks of integer lengths a, b and c and
            wants to know what kind of triangle they form.

            If the sticks cannot form a triangle with positive area, the answer is
            INVALID. Otherwise the answer consists of two words: first EQUILATERAL
            (all sides equal), ISOSCELES (exactly two sides equal) or SCALENE (all
            sides different); then ACUTE, RIGHT or OBTUSE according to the largest
            angle of the triangle.

            Input
            The first line contains an integer T. Each of the next T lines contains
            three integers a, b and c.

            Output
            For each stick set print the answer on its own line.

            Constraints
            1 <= T <= 100
            1 <= a, b, c <= 10^4
            """,
        reference=src("""
            import sys


            def classify(a, b, c):
                a, b, c = sorted((a, b, c))
                if a + b <= c:
                    return "INVALID"
                if a == c:
                    sides = "EQUILATERAL"
                elif a == b or b == c:
                    sides = "ISOSCELES"
                else:
                    sides = "SCALENE"
                lhs, rhs = a * a + b * b, c * c
                angle = "RIGHT" if lhs == rhs else ("ACUTE" if lhs > rhs else "OBTUSE")
                return sides + " " + angle


            def main():
                data = list(map(int, sys.stdin.read().split()))
                t = data[0]
                print("\\n".join(classify(*data[1 + 3 * i:4 + 3 * i]) for i in range(t)))


            main()
            """),
        alternative=src("""
            for _ in range(int(input())):
                x = list(map(int, input().split()))
                total = sum(x)
                if any(2 * side >= total for side in x):
                    print("INVALID")
                    continue
                names = {1: "EQUILATERAL", 2: "ISOSCELES", 3: "SCALENE"}
                signs = []
                for i in range(3):
                    p, q, r = x[i], x[(i + 1) % 3], x[(i + 2) % 3]
                    signs.append(q * q + r * r - p * p)
                low = min(signs)
                kind = "ACUTE" if low > 0 else ("RIGHT" if low == 0 else "OBTUSE")
                print(names[len(set(x))], kind)
            """),
        generator=gen_triangle_kinds,
        checker=EXACT,
        examples=(
            (
                lines(4, "3 4 5", "2 2 3", "1 2 3", "5 5 5"),
                lines("SCALENE RIGHT", "ISOSCELES OBTUSE", "INVALID", "EQUILATERAL ACUTE"),
            ),
        ),
    )
)

# --- fence-perimeter ---------------------------------------------------------


def gen_fence_perimeter(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["tiny", "far", "collinear", "repeat"])
        if kind == "tiny":
            pts = [(0, 0), (1, 0), (0, 1)]
        elif kind == "far":
            pts = [(-(10**4), -(10**4)), (10**4, -(10**4)), (10**4, 10**4), (-(10**4), 10**4)]
        elif kind == "collinear":
            pts = [(0, 0), (5, 5), (10, 10)]
        else:
            x, y = rng.randint(-9, 9), rng.randint(-9, 9)
            pts = [(x, y), (x, y), (x + 3, y + 4)]
        return lines(len(pts), *(f"{x} {y}" for x, y in pts))
    n = pick(rng, tier, {"basic": (3, 6), "intermediate": (10, 100), "complex": (800, 1000)})
    top = {"basic": 20, "intermediate": 1000, "complex": 10**4}[tier]
    pts = [(rng.randint(-top, top), rng.randint(-top, top)) for _ in range(n)]
    return lines(n, *(f"{x} {y}" for x, y in pts))


PROBLEMS.append(
    Problem(
        slug="fence-perimeter",
        title="Fence Perimeter",
        difficulty="easy",
        tags=("geometry", "floating-point"),
        statement="""
            A farmer marks n fence posts and will run wire from post 1 to post 2,
            from post 2 to post 3, and so on, and finally from post n back to post
            1. Posts are points on a plane; the wire between two posts is a
            straight segment. Compute the total length of wire needed. (The wire
            may cross itself and consecutive posts may coincide.)

            Input
            The first line contains an integer n. Each of the next n lines contains
            two integers x and y, the coordinates of a post, in wiring order.

            Output
            Print the total length. An answer is accepted if its absolute or
            relative error is at most 10^-6.

            Constraints
            3 <= n <= 1000
            -10^4 <= x, y <= 10^4
            """,
        reference=src("""
            import math
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n = data[0]
                pts = [(data[1 + 2 * i], data[2 + 2 * i]) for i in range(n)]
                total = 0.0
                for i in range(n):
                    x1, y1 = pts[i]
                    x2, y2 = pts[(i + 1) % n]
                    total += math.hypot(x2 - x1, y2 - y1)
                print(f"{total:.9f}")


            main()
            """),
        alternative=src("""
            n = int(input())
            xs, ys = [], []
            for _ in range(n):
                x, y = map(int, input().split())
                xs.append(x)
                ys.append(y)
            xs.append(xs[0])
            ys.append(ys[0])
            length = sum(((xs[i + 1] - xs[i]) ** 2 + (ys[i + 1] - ys[i]) ** 2) ** 0.5 for i in range(n))
            print(length)
            """),
        generator=gen_fence_perimeter,
        checker=FLOAT,
        examples=(
            (lines(4, "0 0", "3 0", "3 4", "0 4"), lines("14.000000000")),
            (lines(3, "0 0", "1 1", "2 0"), lines("4.828427125")),
        ),
    )
)

# --- hollow-diamond ----------------------------------------------------------


def gen_hollow_diamond(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        sizes = rng.sample([1, 1, 2, 30, 29], rng.randint(1, 3))
        return lines(len(sizes), *sizes)
    t = pick(rng, tier, {"basic": (1, 2), "intermediate": (2, 4), "complex": (4, 5)})
    top = {"basic": 5, "intermediate": 12, "complex": 30}[tier]
    sizes = [rng.randint(1, top) for _ in range(t)]
    return lines(t, *sizes)


PROBLEMS.append(
    Problem(
        slug="hollow-diamond",
        title="Hollow Diamond",
        difficulty="easy",
        tags=("implementation", "formatting"),
        statement="""
            A text-mode screensaver draws hollow diamonds. A diamond of size n is
            drawn on 2n - 1 lines. Number the lines from -(n - 1) to n - 1 from top
            to bottom and the columns from -(n - 1) to n - 1 from left to right;
            the cell in line r and column c holds an asterisk "*" if
            |r| + |c| = n - 1 and a space otherwise. Lines carry no trailing
            spaces.

            Input
            The first line contains an integer T. Each of the next T lines contains
            one integer n, the size of a diamond.

            Output
            Draw the T diamonds in input order, with exactly one empty line between
            two consecutive diamonds. Output is compared line by line, so spaces at
            the beginning of a line matter (trailing spaces are ignored).

            Constraints
            1 <= T <= 5
            1 <= n <= 30
            """,
        reference=src("""
            import sys


            def diamond(n):
                rows = []
                for i in range(n):
                    rows.append(" " * (n - 1 - i) + "*" + (" " * (2 * i - 1) + "*" if i else ""))
                return rows + rows[-2::-1]


            def main():
                data = sys.stdin.read().split()
                t = int(data[0])
                pictures = ["\\n".join(diamond(int(x))) for x in data[1:1 + t]]
                print("\\n\\n".join(pictures))


            main()
            """),
        alternative=src("""
            t = int(input())
            for case in range(t):
                n = int(input())
                if case:
                    print()
                for r in range(-(n - 1), n):
                    row = "".join("*" if abs(r) + abs(c) == n - 1 else " " for c in range(-(n - 1), n))
                    print(row.rstrip())
            """),
        generator=gen_hollow_diamond,
        checker=EXACT,
        examples=((lines(2, 1, 3), lines("*", "", "  *", " * *", "*   *", " * *", "  *")),),
    )
)

# --- elevator-trips ----------------------------------------------------------


def gen_elevator_trips(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "all-full", "all-fit", "exact-pairs"])
        if kind == "one":
            cap = rng.randint(1, 1000)
            weights = [rng.randint(1, cap)]
        elif kind == "all-full":
            cap = rng.randint(1, 1000)
            weights = [cap] * rng.randint(2, 6)
        elif kind == "all-fit":
            weights = [rng.randint(1, 9) for _ in range(rng.randint(2, 8))]
            cap = sum(weights)
        else:
            cap = 100
            weights = [50] * (2 * rng.randint(1, 4))
        return lines(f"{len(weights)} {cap}", join(weights))
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (30, 200), "complex": (1500, 2000)})
    cap = rng.randint(100, 1000)
    weights = [rng.randint(1, min(cap, rng.choice([cap // 3 + 1, cap]))) for _ in range(n)]
    return lines(f"{n} {cap}", join(weights))


PROBLEMS.append(
    Problem(
        slug="elevator-trips",
        title="Elevator Trips",
        difficulty="easy",
        tags=("simulation", "greedy"),
        statement="""
            People wait in a single queue in front of a freight elevator with a
            capacity of C kilograms. On every trip, people enter strictly in queue
            order: the next person enters if the total weight inside stays at most
            C; as soon as the next person would exceed the capacity (or the queue
            is empty) the elevator leaves, delivers everyone, and comes back empty.
            Nobody weighs more than C.

            Compute the number of trips and the largest total load carried on a
            single trip.

            Input
            The first line contains two integers n and C. The second line contains
            n integers w1, ..., wn: the weights in queue order.

            Output
            Print two integers: the number of trips and the heaviest trip load.

            Constraints
            1 <= n <= 2000
            1 <= C <= 1000
            1 <= wi <= C
            """,
        reference=src("""
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, cap = data[0], data[1]
                trips = 0
                heaviest = 0
                load = 0
                for w in data[2:2 + n]:
                    if load + w > cap:
                        trips += 1
                        heaviest = max(heaviest, load)
                        load = 0
                    load += w
                trips += 1
                heaviest = max(heaviest, load)
                print(trips, heaviest)


            main()
            """),
        alternative=src("""
            from bisect import bisect_right
            from itertools import accumulate

            n, cap = map(int, input().split())
            w = list(map(int, input().split()))
            prefix = [0] + list(accumulate(w))
            start = 0
            loads = []
            while start < n:
                end = bisect_right(prefix, prefix[start] + cap) - 1
                loads.append(prefix[end] - prefix[start])
                start = end
            print(len(loads), max(loads))
            """),
        generator=gen_elevator_trips,
        examples=((lines("6 100", "30 40 50 20 80 10"), lines("3 90")),),
    )
)
# ==========================================================================
# Medium
# ==========================================================================

# --- budget-window -----------------------------------------------------------


def gen_budget_window(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one-fits", "one-too-big", "none-fit", "all-fit", "exact"])
        if kind == "one-fits":
            costs, budget = [5], 5
        elif kind == "one-too-big":
            costs, budget = [6], 5
        elif kind == "none-fit":
            costs = [rng.randint(10, 1000) for _ in range(rng.randint(2, 6))]
            budget = min(costs) - 1
        elif kind == "all-fit":
            costs = [rng.randint(1, 1000) for _ in range(rng.randint(2, 6))]
            budget = sum(costs) + rng.randint(0, 3)
        else:
            costs = [1] * rng.randint(3, 9)
            budget = rng.randint(1, len(costs))
        return lines(f"{len(costs)} {budget}", join(costs))
    n = pick(rng, tier, {"basic": (4, 10), "intermediate": (50, 300), "complex": (2500, 3000)})
    top = rng.choice([10, 1000])
    costs = [rng.randint(1, top) for _ in range(n)]
    budget = rng.randint(1, min(10**6, max(1, sum(costs) // rng.choice([2, 5, 20]))))
    return lines(f"{n} {budget}", join(costs))


PROBLEMS.append(
    Problem(
        slug="budget-window",
        title="Budget Window",
        difficulty="medium",
        tags=("two-pointers", "sliding-window", "prefix-sums"),
        statement="""
            A tourist plans to rent a bike for a stretch of consecutive days of a
            festival. Day i costs ci coins, and the total cost of the stretch must
            not exceed the budget S. Find the longest stretch the tourist can
            afford. If several longest stretches exist, choose the one that starts
            earliest.

            Input
            The first line contains two integers n and S. The second line contains
            n positive integers c1, ..., cn.

            Output
            Print two integers: the length of the longest affordable stretch and
            its first day (1-based). If not even a single day is affordable, print
            "0 0".

            Constraints
            1 <= n <= 3000
            1 <= ci <= 1000
            1 <= S <= 10^6
            """,
        reference=src("""
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, budget = data[0], data[1]
                cost = data[2:2 + n]
                best_len, best_start = 0, 0
                left = 0
                total = 0
                for right in range(n):
                    total += cost[right]
                    while total > budget:
                        total -= cost[left]
                        left += 1
                    if right - left + 1 > best_len:
                        best_len, best_start = right - left + 1, left + 1
                print(best_len, best_start)


            main()
            """),
        alternative=src("""
            from bisect import bisect_right

            n, s = map(int, input().split())
            c = list(map(int, input().split()))
            prefix = [0]
            for x in c:
                prefix.append(prefix[-1] + x)
            best = (0, 0)
            for start in range(n):
                end = bisect_right(prefix, prefix[start] + s) - 1
                length = end - start
                if length > best[0]:
                    best = (length, start + 1)
            print(*best)
            """),
        generator=gen_budget_window,
        examples=(
            (lines("7 10", "2 5 1 3 4 6 2"), lines("3 1")),
            (lines("3 4", "5 6 7"), lines("0 0")),
        ),
    )
)

# --- meeting-rooms -----------------------------------------------------------


def gen_meeting_rooms(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "identical", "chain", "nested"])
        if kind == "one":
            meetings = [(0, 10**9)]
        elif kind == "identical":
            meetings = [(3, 7)] * rng.randint(2, 6)
        elif kind == "chain":
            cuts = sorted(rng.sample(range(1, 100), rng.randint(3, 8)))
            meetings = list(pairwise(cuts))
        else:
            k = rng.randint(2, 6)
            meetings = [(i, 100 - i) for i in range(k)]
        rng.shuffle(meetings)
        return lines(len(meetings), *(f"{s} {e}" for s, e in meetings))
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (30, 200), "complex": (1500, 2000)})
    horizon = {"basic": 30, "intermediate": 1000, "complex": 10**9}[tier]
    longest = max(1, horizon // rng.choice([3, 10, 50]))
    meetings = []
    for _ in range(n):
        start = rng.randint(0, horizon - 1)
        meetings.append((start, min(horizon, start + rng.randint(1, longest))))
    return lines(n, *(f"{s} {e}" for s, e in meetings))


PROBLEMS.append(
    Problem(
        slug="meeting-rooms",
        title="Meeting Rooms",
        difficulty="medium",
        tags=("sorting", "sweep-line", "greedy"),
        statement="""
            An office manager has the list of today's n meetings; meeting i
            occupies a room during the half-open time interval [si, ei). A room
            that is freed at time t can host another meeting starting at time t.
            What is the smallest number of rooms that allows all meetings to take
            place as scheduled?

            Input
            The first line contains an integer n. Each of the next n lines contains
            two integers si and ei.

            Output
            Print the minimum number of rooms.

            Constraints
            1 <= n <= 2000
            0 <= si < ei <= 10^9
            """,
        reference=src("""
            import heapq
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n = data[0]
                meetings = sorted((data[1 + 2 * i], data[2 + 2 * i]) for i in range(n))
                busy = []
                for start, end in meetings:
                    if busy and busy[0] <= start:
                        heapq.heapreplace(busy, end)
                    else:
                        heapq.heappush(busy, end)
                print(len(busy))


            main()
            """),
        alternative=src("""
            n = int(input())
            events = []
            for _ in range(n):
                s, e = map(int, input().split())
                events.append((s, 1))
                events.append((e, -1))
            events.sort()
            cur = best = 0
            for _, delta in events:
                cur += delta
                best = max(best, cur)
            print(best)
            """),
        generator=gen_meeting_rooms,
        examples=(
            (lines(4, "1 5", "2 6", "5 8", "6 9"), lines(2)),
            (lines(3, "0 10", "0 10", "0 10"), lines(3)),
        ),
    )
)

# --- island-count ------------------------------------------------------------


def random_grid(rng: random.Random, rows: int, cols: int, density: float, full: str = "#") -> list[str]:
    return ["".join(full if rng.random() < density else "." for _ in range(cols)) for _ in range(rows)]


def gen_island_count(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one-land", "one-water", "all-land", "all-water", "checker"])
        if kind == "one-land":
            grid = ["#"]
        elif kind == "one-water":
            grid = ["."]
        elif kind in ("all-land", "all-water"):
            r, c = rng.randint(1, 80), rng.randint(1, 80)
            grid = [("#" if kind == "all-land" else ".") * c] * r
        else:
            r, c = rng.randint(2, 80), rng.randint(2, 80)
            grid = ["".join("#" if (i + j) % 2 == 0 else "." for j in range(c)) for i in range(r)]
        return lines(f"{len(grid)} {len(grid[0])}", *grid)
    r = pick(rng, tier, {"basic": (3, 6), "intermediate": (10, 30), "complex": (60, 80)})
    c = pick(rng, tier, {"basic": (3, 6), "intermediate": (10, 30), "complex": (60, 80)})
    grid = random_grid(rng, r, c, rng.choice([0.3, 0.45, 0.6]))
    return lines(f"{r} {c}", *grid)


PROBLEMS.append(
    Problem(
        slug="island-count",
        title="Island Count",
        difficulty="medium",
        tags=("graphs", "bfs", "dfs", "grid"),
        statement="""
            A satellite photo of an archipelago is turned into a grid of R rows and
            C columns, where "#" is land and "." is water. Two land cells belong to
            the same island if one can walk from one to the other over land cells,
            moving each step up, down, left or right (not diagonally).

            Count the islands and find the area (number of cells) of the largest
            one.

            Input
            The first line contains two integers R and C. Each of the next R lines
            contains a string of C characters, each "#" or ".".

            Output
            Print two integers: the number of islands and the area of the largest
            island (0 if there is no land).

            Constraints
            1 <= R, C <= 80
            """,
        reference=src("""
            import sys
            from collections import deque


            def main():
                data = sys.stdin.read().split()
                r, c = int(data[0]), int(data[1])
                grid = data[2:2 + r]
                seen = [[False] * c for _ in range(r)]
                islands = 0
                largest = 0
                for i in range(r):
                    for j in range(c):
                        if grid[i][j] != "#" or seen[i][j]:
                            continue
                        islands += 1
                        seen[i][j] = True
                        queue = deque([(i, j)])
                        size = 0
                        while queue:
                            x, y = queue.popleft()
                            size += 1
                            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                                if 0 <= nx < r and 0 <= ny < c and grid[nx][ny] == "#" and not seen[nx][ny]:
                                    seen[nx][ny] = True
                                    queue.append((nx, ny))
                        largest = max(largest, size)
                print(islands, largest)


            main()
            """),
        alternative=src("""
            r, c = map(int, input().split())
            g = [input().strip() for _ in range(r)]
            parent = list(range(r * c))


            def find(x):
                while parent[x] != x:
                    parent[x] = parent[parent[x]]
                    x = parent[x]
                return x


            for i in range(r):
                for j in range(c):
                    if g[i][j] != "#":
                        continue
                    if i + 1 < r and g[i + 1][j] == "#":
                        parent[find(i * c + j)] = find((i + 1) * c + j)
                    if j + 1 < c and g[i][j + 1] == "#":
                        parent[find(i * c + j)] = find(i * c + j + 1)
            sizes = {}
            for i in range(r):
                for j in range(c):
                    if g[i][j] == "#":
                        root = find(i * c + j)
                        sizes[root] = sizes.get(root, 0) + 1
            print(len(sizes), max(sizes.values(), default=0))
            """),
        generator=gen_island_count,
        examples=((lines("4 5", "##..#", "#...#", "..#..", ".##.#"), lines("4 3")),),
    )
)

# --- maze-escape -------------------------------------------------------------


def snake_maze(rows: int, cols: int) -> list[list[str]]:
    grid = [["." for _ in range(cols)] for _ in range(rows)]
    for i in range(1, rows, 2):
        for j in range(cols):
            grid[i][j] = "#"
        gap = cols - 1 if (i // 2) % 2 == 0 else 0
        grid[i][gap] = "."
    return grid


def gen_maze_escape(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["adjacent", "walled", "line", "snake"])
        if kind == "adjacent":
            grid = [["S", "E"]] if rng.random() < 0.5 else [["S"], ["E"]]
        elif kind == "walled":
            grid = [list("S#E")]
        elif kind == "line":
            length = rng.randint(2, 60)
            grid = [["S"] + ["."] * (length - 2) + ["E"]]
        else:
            grid = snake_maze(rng.choice([3, 5, 59]), rng.randint(2, 60))
            grid[0][0] = "S"
            grid[-1][-1 if (len(grid) // 2) % 2 == 0 else 0] = "E"
        return lines(f"{len(grid)} {len(grid[0])}", *("".join(row) for row in grid))
    r = pick(rng, tier, {"basic": (3, 6), "intermediate": (10, 25), "complex": (45, 60)})
    c = pick(rng, tier, {"basic": (3, 6), "intermediate": (10, 25), "complex": (45, 60)})
    if tier == "complex" and rng.random() < 0.4:
        grid = snake_maze(r, c)
        for _ in range(r * c // 40):
            grid[rng.randrange(r)][rng.randrange(c)] = "#"
    else:
        grid = [list(row) for row in random_grid(rng, r, c, rng.choice([0.2, 0.3, 0.4]))]
    cells = rng.sample([(i, j) for i in range(r) for j in range(c)], 2)
    (si, sj), (ei, ej) = cells
    grid[si][sj] = "S"
    grid[ei][ej] = "E"
    return lines(f"{r} {c}", *("".join(row) for row in grid))


PROBLEMS.append(
    Problem(
        slug="maze-escape",
        title="Maze Escape",
        difficulty="medium",
        tags=("graphs", "bfs", "grid", "shortest-path"),
        statement="""
            A robot stands on the cell marked "S" of a rectangular warehouse map
            and must reach the cell marked "E". Cells marked "#" are shelves and
            cannot be entered; cells marked "." are free. In one step the robot
            moves to an adjacent cell up, down, left or right and never leaves the
            map. Find the minimum number of steps, or report that "E" cannot be
            reached.

            Input
            The first line contains two integers R and C. Each of the next R lines
            contains C characters from ".", "#", "S", "E". There is exactly one
            "S" and exactly one "E".

            Output
            Print the minimum number of steps, or -1 if "E" is unreachable.

            Constraints
            1 <= R, C <= 60
            R * C >= 2
            """,
        reference=src("""
            import sys
            from collections import deque


            def main():
                data = sys.stdin.read().split()
                r, c = int(data[0]), int(data[1])
                grid = data[2:2 + r]
                for i in range(r):
                    for j in range(c):
                        if grid[i][j] == "S":
                            start = (i, j)
                dist = {start: 0}
                queue = deque([start])
                while queue:
                    x, y = queue.popleft()
                    if grid[x][y] == "E":
                        print(dist[(x, y)])
                        return
                    for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                        if 0 <= nx < r and 0 <= ny < c and grid[nx][ny] != "#" and (nx, ny) not in dist:
                            dist[(nx, ny)] = dist[(x, y)] + 1
                            queue.append((nx, ny))
                print(-1)


            main()
            """),
        alternative=src("""
            import heapq

            r, c = map(int, input().split())
            rows = [input().strip() for _ in range(r)]
            src = dst = None
            for i, row in enumerate(rows):
                if "S" in row:
                    src = i * c + row.index("S")
                if "E" in row:
                    dst = i * c + row.index("E")
            INF = float("inf")
            best = [INF] * (r * c)
            best[src] = 0
            heap = [(0, src)]
            while heap:
                d, v = heapq.heappop(heap)
                if d > best[v]:
                    continue
                i, j = divmod(v, c)
                for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    a, b = i + di, j + dj
                    if 0 <= a < r and 0 <= b < c and rows[a][b] != "#" and d + 1 < best[a * c + b]:
                        best[a * c + b] = d + 1
                        heapq.heappush(heap, (d + 1, a * c + b))
            print(best[dst] if best[dst] < INF else -1)
            """),
        generator=gen_maze_escape,
        examples=(
            (lines("3 4", "S.#.", ".##E", "...."), lines(6)),
            (lines("1 3", "S#E"), lines(-1)),
        ),
    )
)

# --- coin-combinations -------------------------------------------------------


def gen_coin_combinations(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [([1], 1), ([1], 10**4), ([2], 1), ([10**4], 10**4), ([7, 3], 1), (list(range(1, 51)), 10**4)]
        coins, amount = rng.choice(options)
        coins = rng.sample(coins, len(coins))
        return lines(f"{len(coins)} {amount}", join(coins))
    n = pick(rng, tier, {"basic": (1, 4), "intermediate": (5, 15), "complex": (30, 50)})
    amount = pick(rng, tier, {"basic": (1, 30), "intermediate": (100, 2000), "complex": (5000, 10**4)})
    coins = rng.sample(range(1, max(n, rng.choice([20, 100, 1000])) + 1), n)
    return lines(f"{n} {amount}", join(coins))


PROBLEMS.append(
    Problem(
        slug="coin-combinations",
        title="Coin Combinations",
        difficulty="medium",
        tags=("dp", "counting"),
        statement="""
            A vending machine accepts n kinds of coins with distinct values
            d1, ..., dn, and it has an unlimited supply of each kind. In how many
            ways can an amount of exactly A be paid? Two ways are the same if they
            use the same number of coins of every kind (the order in which coins
            are inserted does not matter).

            Input
            The first line contains two integers n and A. The second line contains
            n distinct integers d1, ..., dn.

            Output
            Print the number of ways modulo 1000000007.

            Constraints
            1 <= n <= 50
            1 <= A <= 10^4
            1 <= di <= 10^4
            """,
        reference=src("""
            import sys

            MOD = 10**9 + 7


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, amount = data[0], data[1]
                ways = [0] * (amount + 1)
                ways[0] = 1
                for coin in data[2:2 + n]:
                    for value in range(coin, amount + 1):
                        ways[value] = (ways[value] + ways[value - coin]) % MOD
                print(ways[amount])


            main()
            """),
        alternative=src("""
            MOD = 1000000007
            n, a = map(int, input().split())
            coins = sorted(map(int, input().split()), reverse=True)
            prev = [1] + [0] * a
            for c in coins:
                cur = prev[:]
                for r in range(c):
                    running = 0
                    for v in range(r, a + 1, c):
                        running = (running + prev[v]) % MOD
                        cur[v] = running
                prev = cur
            print(prev[a])
            """),
        generator=gen_coin_combinations,
        examples=(
            (lines("3 5", "1 2 5"), lines(4)),
            (lines("2 3", "2 4"), lines(0)),
        ),
    )
)

# --- fewest-coins ------------------------------------------------------------


def gen_fewest_coins(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [([1], 1), ([2], 1), ([10**4], 10**4), ([3, 5], 7), ([1, 10**4], 10**4 - 1), ([6, 9, 20], 43)]
        coins, amount = rng.choice(options)
        return lines(f"{len(coins)} {amount}", join(rng.sample(coins, len(coins))))
    n = pick(rng, tier, {"basic": (1, 4), "intermediate": (4, 10), "complex": (15, 30)})
    target = pick(rng, tier, {"basic": (1, 40), "intermediate": (100, 2000), "complex": (5000, 10**4)})
    coins = rng.sample(range(rng.choice([2, 5, 10]), rng.choice([30, 300, 3000]) + 1), n)
    if rng.random() < 0.7:  # usually payable: build the amount out of the coins themselves
        amount = 0
        while amount < max(1, target // 2):
            amount += rng.choice(coins)
        amount = min(amount, 10**4)
    else:
        amount = target
    return lines(f"{n} {amount}", join(coins))


PROBLEMS.append(
    Problem(
        slug="fewest-coins",
        title="Fewest Coins",
        difficulty="medium",
        tags=("dp", "bfs"),
        statement="""
            A cashier must pay out exactly A using coins of n distinct values
            d1, ..., dn, with an unlimited supply of every value. What is the
            smallest number of coins that does it? Greedy choices do not always
            work: with coins 1, 5 and 6, the amount 10 needs only two coins.

            Input
            The first line contains two integers n and A. The second line contains
            n distinct integers d1, ..., dn.

            Output
            Print the minimum number of coins, or -1 if A cannot be paid exactly.

            Constraints
            1 <= n <= 30
            1 <= A <= 10^4
            1 <= di <= 10^4
            """,
        reference=src("""
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, amount = data[0], data[1]
                coins = data[2:2 + n]
                inf = amount + 1
                best = [0] + [inf] * amount
                for value in range(1, amount + 1):
                    for coin in coins:
                        if coin <= value and best[value - coin] + 1 < best[value]:
                            best[value] = best[value - coin] + 1
                print(best[amount] if best[amount] < inf else -1)


            main()
            """),
        alternative=src("""
            n, a = map(int, input().split())
            coins = list(map(int, input().split()))
            seen = [False] * (a + 1)
            seen[0] = True
            frontier = [0]
            steps = 0
            answer = -1
            while frontier and answer < 0:
                steps += 1
                nxt = []
                for v in frontier:
                    for c in coins:
                        w = v + c
                        if w <= a and not seen[w]:
                            seen[w] = True
                            nxt.append(w)
                if seen[a]:
                    answer = steps
                frontier = nxt
            print(answer)
            """),
        generator=gen_fewest_coins,
        examples=(
            (lines("3 11", "1 5 6"), lines(2)),
            (lines("2 7", "2 4"), lines(-1)),
        ),
    )
)

# --- rising-subsequences -----------------------------------------------------


def gen_rising_subsequences(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "constant", "decreasing", "increasing"])
        n = 1 if kind == "one" else rng.randint(2, 1000)
        if kind in ("one", "constant"):
            values = [rng.randint(-(10**9), 10**9)] * n
        elif kind == "decreasing":
            values = sorted(rng.sample(range(-(10**9), 10**9), n), reverse=True)
        else:
            values = sorted(rng.sample(range(-(10**9), 10**9), n))
        return lines(n, join(values))
    n = pick(rng, tier, {"basic": (3, 10), "intermediate": (50, 300), "complex": (1500, 2000)})
    spread = rng.choice([5, 100, 10**9])
    return lines(n, join(rng.randint(-spread, spread) for _ in range(n)))


PROBLEMS.append(
    Problem(
        slug="rising-subsequences",
        title="Rising Subsequences",
        difficulty="medium",
        tags=("dp", "binary-search", "lis"),
        statement="""
            A stock analyst looks at a sequence of n daily prices and wants to
            know how long a "rising streak" can be if some days may be skipped.
            Formally, for the sequence a1, ..., an compute:

            * the length of the longest strictly increasing subsequence, and
            * the length of the longest non-decreasing subsequence.

            A subsequence keeps the original order but may skip elements.

            Input
            The first line contains an integer n. The second line contains n
            integers a1, ..., an.

            Output
            Print the two lengths separated by a space.

            Constraints
            1 <= n <= 2000
            -10^9 <= ai <= 10^9
            """,
        reference=src("""
            import sys
            from bisect import bisect_left, bisect_right


            def longest(values, find):
                tails = []
                for v in values:
                    pos = find(tails, v)
                    if pos == len(tails):
                        tails.append(v)
                    else:
                        tails[pos] = v
                return len(tails)


            def main():
                data = list(map(int, sys.stdin.read().split()))
                a = data[1:1 + data[0]]
                print(longest(a, bisect_left), longest(a, bisect_right))


            main()
            """),
        alternative=src("""
            n = int(input())
            a = list(map(int, input().split()))
            rank = {v: i + 1 for i, v in enumerate(sorted(set(a)))}
            size = len(rank)


            def solve(strict):
                tree = [0] * (size + 1)

                def query(i):
                    best = 0
                    while i > 0:
                        best = max(best, tree[i])
                        i -= i & -i
                    return best

                def update(i, val):
                    while i <= size:
                        tree[i] = max(tree[i], val)
                        i += i & -i

                answer = 0
                for v in a:
                    r = rank[v]
                    length = query(r - 1 if strict else r) + 1
                    update(r, length)
                    answer = max(answer, length)
                return answer


            print(solve(True), solve(False))
            """),
        generator=gen_rising_subsequences,
        examples=((lines(7, "2 2 3 1 3 4 3"), lines("3 5")),),
    )
)

# --- prime-count-queries -----------------------------------------------------


def gen_prime_count_queries(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [(1, 1), (1, 2), (2, 2), (4, 4), (1, 10**6), (10**6, 10**6), (999983, 999983), (999984, 10**6)]
        rows = rng.sample(options, rng.randint(2, 5))
        return lines(len(rows), *(f"{a} {b}" for a, b in rows))
    q = pick(rng, tier, {"basic": (1, 4), "intermediate": (10, 30), "complex": (60, 100)})
    top = {"basic": 200, "intermediate": 50000, "complex": 10**6}[tier]
    rows = []
    for _ in range(q):
        a = rng.randint(1, top)
        b = min(top, a + rng.choice([0, 5, 100, 5000, top]))
        rows.append(f"{a} {b}")
    return lines(q, *rows)


PROBLEMS.append(
    Problem(
        slug="prime-count-queries",
        title="Prime Count Queries",
        difficulty="medium",
        tags=("number-theory", "sieve", "prefix-sums"),
        statement="""
            A number-theory course hands out worksheets asking how many prime
            numbers lie in a given interval. Answer Q such questions: for each pair
            L, R count the primes p with L <= p <= R. (1 is not a prime.)

            Input
            The first line contains an integer Q. Each of the next Q lines contains
            two integers L and R.

            Output
            For each question print the count on its own line.

            Constraints
            1 <= Q <= 100
            1 <= L <= R <= 10^6
            """,
        reference=src("""
            import sys
            from itertools import accumulate


            def main():
                data = list(map(int, sys.stdin.read().split()))
                q = data[0]
                pairs = [(data[1 + 2 * i], data[2 + 2 * i]) for i in range(q)]
                limit = max(r for _, r in pairs)
                sieve = bytearray([1]) * (limit + 1)
                sieve[0] = 0
                if limit >= 1:
                    sieve[1] = 0
                p = 2
                while p * p <= limit:
                    if sieve[p]:
                        sieve[p * p::p] = bytes(len(range(p * p, limit + 1, p)))
                    p += 1
                count = list(accumulate(sieve))
                print("\\n".join(str(count[r] - count[l - 1]) for l, r in pairs))


            main()
            """),
        alternative=src("""
            def base_primes(limit):
                found = []
                for v in range(2, limit + 1):
                    if all(v % p for p in found if p * p <= v):
                        found.append(v)
                return found


            small = base_primes(1000)
            for _ in range(int(input())):
                lo, hi = map(int, input().split())
                lo = max(lo, 2)
                if lo > hi:
                    print(0)
                    continue
                mark = bytearray([1]) * (hi - lo + 1)
                for p in small:
                    if p * p > hi:
                        break
                    first = max(p * p, (lo + p - 1) // p * p)
                    mark[first - lo::p] = bytes(len(range(first, hi + 1, p)))
                print(mark.count(1))
            """),
        generator=gen_prime_count_queries,
        examples=((lines(3, "1 10", "10 20", "97 97"), lines(4, 4, 1)),),
    )
)

# --- geometric-savings -------------------------------------------------------


def gen_geometric_savings(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [
            "0 1 1",
            "0 5 7",
            "1 1000000000000000000 1000000000",
            "1000000000 1000000000000000000 1",
            "2 1 2",
            "7 1000000000000000000 999999937",
            "1 3 2",
            "999999999 2 1000000000",
        ]
        rows = rng.sample(options, rng.randint(2, 5))
        return lines(len(rows), *rows)
    t = pick(rng, tier, {"basic": (1, 4), "intermediate": (10, 30), "complex": (80, 100)})
    top_n = {"basic": 20, "intermediate": 10**6, "complex": 10**18}[tier]
    rows = []
    for _ in range(t):
        a = rng.choice([0, 1, rng.randint(0, 10), rng.randint(0, 10**9)])
        m = rng.choice([1, rng.randint(2, 100), rng.randint(1, 10**9)])
        rows.append(f"{a} {rng.randint(1, top_n)} {m}")
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="geometric-savings",
        title="Geometric Savings",
        difficulty="medium",
        tags=("number-theory", "modular-arithmetic", "divide-and-conquer"),
        statement="""
            A savings plan deposits 1 coin in the first month and, each month,
            a times as many coins as in the previous month. After n months the
            account holds

                S = 1 + a + a^2 + ... + a^(n-1)

            coins (with a^0 = 1 even for a = 0). The numbers get astronomically
            large, so for each plan report S modulo m.

            Input
            The first line contains an integer T. Each of the next T lines contains
            three integers a, n and m.

            Output
            For each plan print S mod m (a value between 0 and m - 1) on its own
            line.

            Constraints
            1 <= T <= 100
            0 <= a <= 10^9
            1 <= n <= 10^18
            1 <= m <= 10^9
            """,
        reference=src("""
            import sys


            def series(a, n, m):
                # returns (1 + a + ... + a^(n-1)) mod m and a^n mod m
                if n == 0:
                    return 0, 1 % m
                if n % 2 == 1:
                    s, p = series(a, n - 1, m)
                    return (s + p) % m, p * a % m
                s, p = series(a, n // 2, m)
                return s * (1 + p) % m, p * p % m


            def main():
                data = sys.stdin.read().split()
                t = int(data[0])
                out = []
                for i in range(t):
                    a, n, m = (int(x) for x in data[1 + 3 * i:4 + 3 * i])
                    out.append(series(a % m, n, m)[0])
                print("\\n".join(map(str, out)))


            main()
            """),
        alternative=src("""
            def mat_mul(x, y, m):
                return [
                    [(x[0][0] * y[0][0] + x[0][1] * y[1][0]) % m, (x[0][0] * y[0][1] + x[0][1] * y[1][1]) % m],
                    [(x[1][0] * y[0][0] + x[1][1] * y[1][0]) % m, (x[1][0] * y[0][1] + x[1][1] * y[1][1]) % m],
                ]


            def solve(a, n, m):
                # state (S_k, a^k) -> (S_k + a^k, a * a^k)
                result = [[1, 0], [0, 1]]
                step = [[1, 1], [0, a]]
                while n:
                    if n & 1:
                        result = mat_mul(result, step, m)
                    step = mat_mul(step, step, m)
                    n >>= 1
                # starting state (S_0, a^0) = (0, 1)
                return result[0][1] % m


            for _ in range(int(input())):
                a, n, m = map(int, input().split())
                print(solve(a, n, m))
            """),
        generator=gen_geometric_savings,
        examples=((lines(3, "2 10 1000", "3 4 7", "5 1 100"), lines(23, 5, 1)),),
    )
)

# --- shift-planning ----------------------------------------------------------


def gen_shift_planning(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "k-equals-n", "k-one", "big"])
        if kind == "one":
            tasks, k = [rng.randint(1, 10**6)], 1
        elif kind == "k-equals-n":
            tasks = [rng.randint(1, 10**6) for _ in range(rng.randint(2, 100))]
            k = len(tasks)
        elif kind == "k-one":
            tasks = [rng.randint(1, 10**6) for _ in range(rng.randint(2, 100))]
            k = 1
        else:
            tasks = [10**6] * 100
            k = rng.randint(1, 100)
        return lines(f"{len(tasks)} {k}", join(tasks))
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (15, 40), "complex": (80, 100)})
    k = rng.randint(1, n)
    top = rng.choice([10, 1000, 10**6])
    return lines(f"{n} {k}", join(rng.randint(1, top) for _ in range(n)))


PROBLEMS.append(
    Problem(
        slug="shift-planning",
        title="Shift Planning",
        difficulty="medium",
        tags=("binary-search", "greedy", "dp"),
        statement="""
            A film studio must process n editing tasks in a fixed order; task i
            takes ti minutes. The tasks are split among at most k editors: the
            sequence is cut into at most k contiguous blocks and each block goes to
            a different editor, who does its tasks one after another. All editors
            start at the same time. Choose the cuts to minimize the time at which
            the last editor finishes, i.e. the largest block total.

            Input
            The first line contains two integers n and k. The second line contains
            n integers t1, ..., tn.

            Output
            Print the minimum possible largest block total.

            Constraints
            1 <= k <= n <= 100
            1 <= ti <= 10^6
            """,
        reference=src("""
            import sys


            def blocks_needed(tasks, limit):
                blocks, current = 1, 0
                for t in tasks:
                    if current + t > limit:
                        blocks += 1
                        current = 0
                    current += t
                return blocks


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, k = data[0], data[1]
                tasks = data[2:2 + n]
                lo, hi = max(tasks), sum(tasks)
                while lo < hi:
                    mid = (lo + hi) // 2
                    if blocks_needed(tasks, mid) <= k:
                        hi = mid
                    else:
                        lo = mid + 1
                print(lo)


            main()
            """),
        alternative=src("""
            n, k = map(int, input().split())
            t = list(map(int, input().split()))
            prefix = [0]
            for x in t:
                prefix.append(prefix[-1] + x)
            INF = float("inf")
            # best[j] = minimal largest block when the first j tasks use the editors so far
            best = [INF] * (n + 1)
            best[0] = 0
            for _ in range(k):
                nxt = best[:]
                for j in range(1, n + 1):
                    for i in range(j):
                        if best[i] < INF:
                            cand = max(best[i], prefix[j] - prefix[i])
                            if cand < nxt[j]:
                                nxt[j] = cand
                best = nxt
            print(best[n])
            """),
        generator=gen_shift_planning,
        examples=(
            (lines("5 2", "7 2 5 10 8"), lines(18)),
            (lines("4 4", "1 2 3 4"), lines(4)),
        ),
    )
)

# --- city-distances ----------------------------------------------------------


def random_edges(rng: random.Random, n: int, m: int, max_w: int, connected: bool) -> list[tuple[int, int, int]]:
    edges = []
    if connected:
        order = list(range(1, n + 1))
        rng.shuffle(order)
        for i in range(1, n):
            edges.append((order[i], order[rng.randrange(i)], rng.randint(1, max_w)))
    while len(edges) < m:
        edges.append((rng.randint(1, n), rng.randint(1, n), rng.randint(1, max_w)))
    rng.shuffle(edges)
    return edges[:m] if not connected else edges


def gen_city_distances(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["single", "isolated", "loop", "parallel"])
        if kind == "single":
            n, edges = 1, []
        elif kind == "isolated":
            n, edges = rng.randint(2, 6), []
        elif kind == "loop":
            n, edges = 2, [(1, 1, 5), (2, 2, 3)]
        else:
            n = 2
            edges = [(1, 2, w) for w in rng.sample(range(1, 10**4 + 1), 4)]
        return lines(f"{n} {len(edges)}", *(join(e) for e in edges))
    n = pick(rng, tier, {"basic": (3, 6), "intermediate": (20, 80), "complex": (250, 300)})
    m = pick(rng, tier, {"basic": (2, 8), "intermediate": (40, 300), "complex": (2000, 3000)})
    edges = random_edges(rng, n, m, rng.choice([10, 10**4]), connected=rng.random() < 0.6)
    return lines(f"{n} {len(edges)}", *(join(e) for e in edges))


PROBLEMS.append(
    Problem(
        slug="city-distances",
        title="City Distances",
        difficulty="medium",
        tags=("graphs", "shortest-path", "dijkstra"),
        statement="""
            A courier company is based in city 1 of a region with n cities and m
            two-way roads. Road j connects cities uj and vj and takes wj minutes in
            either direction. There may be several roads between the same pair of
            cities, and a road may even start and end in the same city.

            For every city, compute the shortest travel time from city 1.

            Input
            The first line contains two integers n and m. Each of the next m lines
            contains three integers uj, vj and wj.

            Output
            Print n integers on one line separated by spaces: the shortest travel
            time from city 1 to cities 1, 2, ..., n, or -1 for a city that cannot be
            reached.

            Constraints
            1 <= n <= 300
            0 <= m <= 3000
            1 <= uj, vj <= n
            1 <= wj <= 10^4
            """,
        reference=src("""
            import heapq
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, m = data[0], data[1]
                adj = [[] for _ in range(n + 1)]
                for j in range(m):
                    u, v, w = data[2 + 3 * j:5 + 3 * j]
                    adj[u].append((v, w))
                    adj[v].append((u, w))
                dist = [-1] * (n + 1)
                heap = [(0, 1)]
                while heap:
                    d, u = heapq.heappop(heap)
                    if dist[u] != -1:
                        continue
                    dist[u] = d
                    for v, w in adj[u]:
                        if dist[v] == -1:
                            heapq.heappush(heap, (d + w, v))
                print(" ".join(map(str, dist[1:])))


            main()
            """),
        alternative=src("""
            n, m = map(int, input().split())
            edges = [tuple(map(int, input().split())) for _ in range(m)]
            INF = 10**18
            d = [INF] * (n + 1)
            d[1] = 0
            for _ in range(n):
                changed = False
                for u, v, w in edges:
                    if d[u] + w < d[v]:
                        d[v] = d[u] + w
                        changed = True
                    if d[v] + w < d[u]:
                        d[u] = d[v] + w
                        changed = True
                if not changed:
                    break
            print(*[x if x < INF else -1 for x in d[1:]])
            """),
        generator=gen_city_distances,
        examples=((lines("4 4", "1 2 5", "1 3 2", "3 2 1", "2 4 7"), lines("0 3 2 10")),),
    )
)

# --- typo-distance -----------------------------------------------------------


def mutate_word(rng: random.Random, word: str, edits: int, alphabet: str) -> str:
    chars = list(word)
    for _ in range(edits):
        op = rng.randrange(3)
        pos = rng.randint(0, len(chars))
        if op == 0 or not chars:
            chars.insert(pos, rng.choice(alphabet))
        elif op == 1 and pos < len(chars):
            chars[pos] = rng.choice(alphabet)
        elif pos < len(chars) and len(chars) > 1:
            del chars[pos]
    return "".join(chars) or rng.choice(alphabet)


def gen_typo_distance(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [
            ("a", "a"),
            ("a", "b"),
            ("x", "x" * 300),
            ("ab" * 150, "ba" * 150),
            ("abc", "cba"),
            ("z" * 300, "y" * 300),
            ("kitchen", "kitchen"),
        ]
        a, b = rng.choice(options)
        return lines(a, b) if rng.random() < 0.5 else lines(b, a)
    length = pick(rng, tier, {"basic": (1, 8), "intermediate": (20, 80), "complex": (200, 300)})
    alphabet = "abcdefghijklmnopqrstuvwxyz"[: rng.choice([2, 4, 26])]
    a = "".join(rng.choice(alphabet) for _ in range(length))
    if rng.random() < 0.7:
        b = mutate_word(rng, a, rng.randint(1, max(1, length // 3)), alphabet)[:300]
    else:
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, length)))
    return lines(a, b)


PROBLEMS.append(
    Problem(
        slug="typo-distance",
        title="Typo Distance",
        difficulty="medium",
        tags=("dp", "strings", "edit-distance"),
        statement="""
            A spell checker ranks suggestions by how many single-character edits
            separate a typed word from a dictionary word. One edit inserts one
            character anywhere, deletes one character, or replaces one character
            with another. Compute the minimum number of edits that turn the first
            word into the second.

            Input
            Two lines, each containing one non-empty word of lowercase English
            letters.

            Output
            Print the minimum number of edits.

            Constraints
            1 <= length of each word <= 300
            """,
        reference=src("""
            import sys


            def main():
                a, b = sys.stdin.read().split()[:2]
                prev = list(range(len(b) + 1))
                for i, ca in enumerate(a, 1):
                    cur = [i] + [0] * len(b)
                    for j, cb in enumerate(b, 1):
                        cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
                    prev = cur
                print(prev[len(b)])


            main()
            """),
        alternative=src("""
            import sys
            from functools import lru_cache

            sys.setrecursionlimit(10000)
            s = input().strip()
            t = input().strip()


            @lru_cache(maxsize=None)
            def dist(i, j):
                # edits to turn s[i:] into t[j:]
                if i == len(s):
                    return len(t) - j
                if j == len(t):
                    return len(s) - i
                if s[i] == t[j]:
                    return dist(i + 1, j + 1)
                return 1 + min(dist(i + 1, j), dist(i, j + 1), dist(i + 1, j + 1))


            print(dist(0, 0))
            """),
        generator=gen_typo_distance,
        examples=(
            (lines("codegym", "coding"), lines(4)),
            (lines("abc", "abc"), lines(0)),
        ),
    )
)

# --- backpack-packing --------------------------------------------------------


def gen_backpack_packing(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one-fits", "one-too-heavy", "all-fit", "same-items"])
        if kind == "one-fits":
            cap, items = 10, [(10, rng.randint(1, 10**6))]
        elif kind == "one-too-heavy":
            cap, items = 1, [(2, 5)]
        elif kind == "all-fit":
            items = [(rng.randint(1, 50), rng.randint(1, 10**6)) for _ in range(rng.randint(2, 60))]
            cap = sum(w for w, _ in items)
        else:
            items = [(7, 100)] * rng.randint(2, 60)
            cap = rng.randint(1, 5000)
        return lines(f"{len(items)} {cap}", *(f"{w} {v}" for w, v in items))
    n = pick(rng, tier, {"basic": (2, 6), "intermediate": (10, 30), "complex": (50, 60)})
    cap = pick(rng, tier, {"basic": (5, 30), "intermediate": (100, 1000), "complex": (3000, 5000)})
    items = [(rng.randint(1, cap), rng.randint(1, 10**6)) for _ in range(n)]
    return lines(f"{n} {cap}", *(f"{w} {v}" for w, v in items))


PROBLEMS.append(
    Problem(
        slug="backpack-packing",
        title="Backpack Packing",
        difficulty="medium",
        tags=("dp", "knapsack"),
        statement="""
            A hiker can carry at most W kilograms. There are n pieces of gear; piece
            i weighs wi kilograms and has usefulness vi. Each piece can be taken at
            most once. Choose pieces with total weight at most W and the largest
            possible total usefulness.

            Input
            The first line contains two integers n and W. Each of the next n lines
            contains two integers wi and vi.

            Output
            Print the largest total usefulness (0 if nothing fits).

            Constraints
            1 <= n <= 60
            1 <= W <= 5000
            1 <= wi <= 5000
            1 <= vi <= 10^6
            """,
        reference=src("""
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, cap = data[0], data[1]
                best = [0] * (cap + 1)
                for i in range(n):
                    w, v = data[2 + 2 * i], data[3 + 2 * i]
                    for load in range(cap, w - 1, -1):
                        cand = best[load - w] + v
                        if cand > best[load]:
                            best[load] = cand
                print(best[cap])


            main()
            """),
        alternative=src("""
            n, cap = map(int, input().split())
            items = [tuple(map(int, input().split())) for _ in range(n)]
            # Pareto frontier of (weight, value): heavier states must be strictly more valuable
            frontier = [(0, 0)]
            for w, v in items:
                merged = sorted(frontier + [(fw + w, fv + v) for fw, fv in frontier if fw + w <= cap])
                frontier = []
                for fw, fv in merged:
                    if frontier and frontier[-1][0] == fw:
                        frontier[-1] = (fw, max(frontier[-1][1], fv))
                    elif not frontier or fv > frontier[-1][1]:
                        frontier.append((fw, fv))
                cleaned = []
                for fw, fv in frontier:
                    if not cleaned or fv > cleaned[-1][1]:
                        cleaned.append((fw, fv))
                frontier = cleaned
            print(max(fv for _, fv in frontier))
            """),
        generator=gen_backpack_packing,
        examples=((lines("4 7", "3 4", "4 5", "2 3", "5 6"), lines(9)),),
    )
)

# --- necklace-rotation -------------------------------------------------------


def gen_necklace_rotation(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [
            "a",
            "z",
            "ba",
            "aaaa",
            "ab" * 1000,
            "b" * 1999 + "a",
            "a" * 1999 + "b",
            "abcabcabc",
            "zyxwvutsrqponmlkjihgfedcba",
        ]
        return lines(rng.choice(options))
    n = pick(rng, tier, {"basic": (2, 10), "intermediate": (30, 300), "complex": (1500, 2000)})
    alphabet = "abcdefghijklmnopqrstuvwxyz"[: rng.choice([2, 3, 26])]
    if rng.random() < 0.4:
        unit = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6)))
        s = (unit * (n // len(unit) + 1))[:n]
    else:
        s = "".join(rng.choice(alphabet) for _ in range(n))
    return lines(s)


PROBLEMS.append(
    Problem(
        slug="necklace-rotation",
        title="Necklace Rotation",
        difficulty="medium",
        tags=("strings", "two-pointers"),
        statement="""
            A jeweller stores circular necklaces as strings of bead colours, one
            lowercase letter per bead, starting from an arbitrary bead. To file all
            necklaces in a canonical way she uses the rotation that comes first in
            dictionary order. Rotating s by k (0 <= k < n) gives the string
            s[k] s[k+1] ... s[n-1] s[0] ... s[k-1] (0-based).

            Input
            A single line with the string s.

            Output
            Print the lexicographically smallest rotation of s and the smallest k
            that produces it, separated by a space.

            Constraints
            1 <= n = length of s <= 2000
            s consists of lowercase English letters.
            """,
        reference=src("""
            import sys


            def least_rotation(s):
                n = len(s)
                i, j, k = 0, 1, 0
                while i < n and j < n and k < n:
                    a, b = s[(i + k) % n], s[(j + k) % n]
                    if a == b:
                        k += 1
                        continue
                    if a > b:
                        i += k + 1
                    else:
                        j += k + 1
                    if i == j:
                        j += 1
                    k = 0
                return min(i, j)


            def main():
                s = sys.stdin.read().split()[0]
                k = least_rotation(s)
                print(s[k:] + s[:k], k)


            main()
            """),
        alternative=src("""
            s = input().strip()
            best = min((s[k:] + s[:k], k) for k in range(len(s)))
            print(best[0], best[1])
            """),
        generator=gen_necklace_rotation,
        examples=(
            (lines("bcabca"), lines("abcabc 2")),
            (lines("zza"), lines("azz 2")),
        ),
    )
)

# --- course-order ------------------------------------------------------------


def gen_course_order(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["single", "no-rules", "self-loop", "chain", "two-cycle"])
        if kind == "single":
            n, rules = 1, []
        elif kind == "no-rules":
            n, rules = rng.randint(2, 9), []
        elif kind == "self-loop":
            n, rules = 3, [(2, 2)]
        elif kind == "chain":
            n = rng.randint(2, 500)
            rules = [(i + 1, i) for i in range(1, n)]
        else:
            n, rules = 2, [(1, 2), (2, 1)]
        return lines(f"{n} {len(rules)}", *(f"{a} {b}" for a, b in rules))
    n = pick(rng, tier, {"basic": (3, 7), "intermediate": (20, 100), "complex": (400, 500)})
    m = pick(rng, tier, {"basic": (1, 8), "intermediate": (20, 300), "complex": (2000, 2999)})
    order = list(range(1, n + 1))
    rng.shuffle(order)
    position = {v: i for i, v in enumerate(order)}
    rules = []
    for _ in range(m):
        a, b = rng.sample(range(1, n + 1), 2)
        if position[a] > position[b]:
            a, b = b, a
        rules.append((a, b))
    if rng.random() < 0.3:
        a, b = rng.choice(rules)
        rules.append((b, a))
    rng.shuffle(rules)
    return lines(f"{n} {len(rules)}", *(f"{a} {b}" for a, b in rules))


PROBLEMS.append(
    Problem(
        slug="course-order",
        title="Course Order",
        difficulty="medium",
        tags=("graphs", "topological-sort", "heap"),
        statement="""
            A university offers n courses numbered 1 to n and publishes m rules of
            the form "a b": course a must be taken before course b. A student takes
            the courses one at a time and wants a plan that respects all rules.
            Among all valid plans she prefers the one that is lexicographically
            smallest, i.e. at every moment she takes the smallest-numbered course
            that is currently allowed.

            Input
            The first line contains two integers n and m. Each of the next m lines
            contains two integers a and b. Rules may repeat.

            Output
            Print the n course numbers of the lexicographically smallest valid plan
            separated by spaces, or the word IMPOSSIBLE if no valid plan exists.

            Constraints
            1 <= n <= 500
            0 <= m <= 3000
            1 <= a, b <= n
            """,
        reference=src("""
            import heapq
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, m = data[0], data[1]
                after = [[] for _ in range(n + 1)]
                indegree = [0] * (n + 1)
                for j in range(m):
                    a, b = data[2 + 2 * j], data[3 + 2 * j]
                    after[a].append(b)
                    indegree[b] += 1
                ready = [v for v in range(1, n + 1) if indegree[v] == 0]
                heapq.heapify(ready)
                plan = []
                while ready:
                    v = heapq.heappop(ready)
                    plan.append(v)
                    for w in after[v]:
                        indegree[w] -= 1
                        if indegree[w] == 0:
                            heapq.heappush(ready, w)
                print(" ".join(map(str, plan)) if len(plan) == n else "IMPOSSIBLE")


            main()
            """),
        alternative=src("""
            n, m = map(int, input().split())
            needs = [set() for _ in range(n + 1)]
            for _ in range(m):
                a, b = map(int, input().split())
                needs[b].add(a)
            taken = [False] * (n + 1)
            plan = []
            for _ in range(n):
                choice = None
                for v in range(1, n + 1):
                    if not taken[v] and all(taken[u] for u in needs[v]):
                        choice = v
                        break
                if choice is None:
                    break
                taken[choice] = True
                plan.append(choice)
            if len(plan) == n:
                print(*plan)
            else:
                print("IMPOSSIBLE")
            """),
        generator=gen_course_order,
        examples=(
            (lines("4 3", "2 1", "3 1", "4 2"), lines("3 4 2 1")),
            (lines("2 2", "1 2", "2 1"), lines("IMPOSSIBLE")),
        ),
    )
)

# --- anagram-groups ----------------------------------------------------------


def gen_anagram_groups(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [
            ["a"],
            ["ab", "ba"],
            ["abc", "abc", "abc"],
            ["x", "y", "z"],
            ["aab", "abb", "bab", "aba"],
            ["z" * 20, "z" * 19, "z" * 20],
        ]
        words = list(rng.choice(options))
        rng.shuffle(words)
        return lines(len(words), *words)
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (20, 80), "complex": (300, 400)})
    alphabet = "abcdefghijklmnopqrstuvwxyz"[: rng.choice([3, 5, 26])]
    bases = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for _ in range(max(1, n // 3))]
    words = []
    for _ in range(n):
        letters = list(rng.choice(bases))
        rng.shuffle(letters)
        words.append("".join(letters))
    return lines(n, *words)


PROBLEMS.append(
    Problem(
        slug="anagram-groups",
        title="Anagram Groups",
        difficulty="medium",
        tags=("strings", "hashing", "sorting"),
        statement="""
            A crossword editor wants to group a word list by anagrams: two words
            are in the same group if one is a rearrangement of the letters of the
            other (same letters, each the same number of times). Identical words
            are anagrams of each other and are kept as separate entries.

            Input
            The first line contains an integer n. Each of the next n lines contains
            one word of lowercase English letters.

            Output
            On the first line print the number of groups. Then print one line per
            group listing its words in lexicographic order, separated by single
            spaces. Order the groups by size, largest first; groups of equal size
            are ordered by their first (smallest) word. The output is compared
            line by line.

            Constraints
            1 <= n <= 400
            1 <= length of each word <= 20
            """,
        reference=src("""
            import sys


            def main():
                data = sys.stdin.read().split()
                n = int(data[0])
                groups = {}
                for word in data[1:1 + n]:
                    groups.setdefault("".join(sorted(word)), []).append(word)
                ordered = sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g[0]))
                print(len(ordered))
                for g in ordered:
                    print(" ".join(g))


            main()
            """),
        alternative=src("""
            n = int(input())
            buckets = {}
            for _ in range(n):
                w = input().strip()
                key = tuple(w.count(ch) for ch in "abcdefghijklmnopqrstuvwxyz")
                buckets.setdefault(key, []).append(w)
            rows = [sorted(ws) for ws in buckets.values()]
            rows.sort(key=lambda ws: ws[0])
            rows.sort(key=len, reverse=True)
            print(len(rows))
            print("\\n".join(" ".join(ws) for ws in rows))
            """),
        generator=gen_anagram_groups,
        checker=EXACT,
        examples=(
            (
                lines(7, "rat", "star", "art", "cat", "tsar", "tar", "arts"),
                lines(3, "art rat tar", "arts star tsar", "cat"),
            ),
        ),
    )
)

# --- bank-queue --------------------------------------------------------------


def gen_bank_queue(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "same-time", "many-tellers", "idle"])
        if kind == "one":
            k, customers = 1, [(0, 1)]
        elif kind == "same-time":
            k = rng.randint(1, 3)
            customers = [(5, rng.randint(1, 100)) for _ in range(rng.randint(2, 8))]
        elif kind == "many-tellers":
            k = 20
            customers = [(i, 10**4) for i in range(rng.randint(1, 20))]
        else:
            k = 1
            customers = [(i * 1000, 10) for i in range(rng.randint(1, 8))]
        return lines(f"{k} {len(customers)}", *(f"{a} {d}" for a, d in customers))
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (20, 200), "complex": (1500, 2000)})
    k = rng.randint(1, {"basic": 3, "intermediate": 6, "complex": 20}[tier])
    gap = rng.choice([1, 5, 20])
    time_now = 0
    customers = []
    for _ in range(n):
        time_now += rng.randint(0, gap)
        customers.append((min(time_now, 10**6), rng.randint(1, rng.choice([10, 100, 10**4]))))
    return lines(f"{k} {n}", *(f"{a} {d}" for a, d in customers))


PROBLEMS.append(
    Problem(
        slug="bank-queue",
        title="Bank Queue",
        difficulty="medium",
        tags=("simulation", "heap", "floating-point"),
        statement="""
            A bank branch has k tellers and a single waiting line. Customers arrive
            in the given order; customer i arrives at time ai and needs di minutes
            at a teller. Whenever a teller is free and the line is not empty, the
            customer at the front of the line starts being served immediately. A
            customer who arrives while a teller is free is served at once. (If a
            teller becomes free at the same moment a customer arrives, that
            customer can be served by that teller right away.)

            The waiting time of a customer is the moment service starts minus the
            arrival time. Report the average and the maximum waiting time.

            Input
            The first line contains two integers k and n. Each of the next n lines
            contains two integers ai and di. Arrival times are non-decreasing.

            Output
            Print the average waiting time and the maximum waiting time separated
            by a space. The average is accepted with an absolute or relative error
            of at most 10^-6; the maximum is an integer.

            Constraints
            1 <= k <= 20
            1 <= n <= 2000
            0 <= a1 <= a2 <= ... <= an <= 10^6
            1 <= di <= 10^4
            """,
        reference=src("""
            import heapq
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                k, n = data[0], data[1]
                free_at = [0] * k
                total = 0
                worst = 0
                for i in range(n):
                    arrive, need = data[2 + 2 * i], data[3 + 2 * i]
                    start = max(arrive, free_at[0])
                    heapq.heapreplace(free_at, start + need)
                    total += start - arrive
                    worst = max(worst, start - arrive)
                print(f"{total / n:.6f} {worst}")


            main()
            """),
        alternative=src("""
            k, n = map(int, input().split())
            tellers = [0] * k
            waits = []
            for _ in range(n):
                a, d = map(int, input().split())
                idx = min(range(k), key=lambda t: tellers[t])
                begin = tellers[idx] if tellers[idx] > a else a
                waits.append(begin - a)
                tellers[idx] = begin + d
            print(sum(waits) / n, max(waits))
            """),
        generator=gen_bank_queue,
        checker=FLOAT,
        examples=((lines("2 5", "0 5", "1 3", "2 4", "3 1", "10 2"), lines("0.800000 2")),),
    )
)

# --- friend-circles ----------------------------------------------------------


def gen_friend_circles(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["single", "self", "only-count", "repeat"])
        if kind == "single":
            n, ops = 1, ["Q 1 1", "C"]
        elif kind == "self":
            n, ops = 2, ["U 1 1", "Q 1 2", "C"]
        elif kind == "only-count":
            n, ops = rng.randint(1, 300), ["C"]
        else:
            n, ops = 3, ["U 1 2", "U 2 1", "U 1 2", "C", "Q 2 1", "Q 3 3"]
        return lines(f"{n} {len(ops)}", *ops)
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (20, 100), "complex": (250, 300)})
    q = pick(rng, tier, {"basic": (3, 10), "intermediate": (30, 200), "complex": (500, 600)})
    ops = []
    for _ in range(q):
        roll = rng.random()
        a, b = rng.randint(1, n), rng.randint(1, n)
        if roll < 0.5:
            ops.append(f"U {a} {b}")
        elif roll < 0.85:
            ops.append(f"Q {a} {b}")
        else:
            ops.append("C")
    return lines(f"{n} {q}", *ops)


PROBLEMS.append(
    Problem(
        slug="friend-circles",
        title="Friend Circles",
        difficulty="medium",
        tags=("union-find", "graphs"),
        statement="""
            A social network starts with n users, numbered 1 to n, and no
            friendships. Friendship circles are the connected groups of the
            friendship graph: two users are in the same circle if they are linked
            by a chain of friendships. Process q operations in order:

            * "U a b": users a and b become friends (they may already be friends,
              and a may equal b);
            * "Q a b": print YES if a and b are currently in the same circle and NO
              otherwise (a user is always in the same circle as themselves);
            * "C": print the current number of circles.

            Input
            The first line contains two integers n and q. Each of the next q lines
            contains one operation in the format above.

            Output
            For every "Q" and "C" operation print the answer on its own line.

            Constraints
            1 <= n <= 300
            1 <= q <= 600
            1 <= a, b <= n
            """,
        reference=src("""
            import sys


            def main():
                data = sys.stdin.read().split()
                n, q = int(data[0]), int(data[1])
                parent = list(range(n + 1))
                size = [1] * (n + 1)
                circles = n

                def find(x):
                    root = x
                    while parent[root] != root:
                        root = parent[root]
                    while parent[x] != root:
                        parent[x], x = root, parent[x]
                    return root

                out = []
                pos = 2
                for _ in range(q):
                    op = data[pos]
                    if op == "C":
                        out.append(str(circles))
                        pos += 1
                        continue
                    a, b = find(int(data[pos + 1])), find(int(data[pos + 2]))
                    pos += 3
                    if op == "Q":
                        out.append("YES" if a == b else "NO")
                    elif a != b:
                        if size[a] < size[b]:
                            a, b = b, a
                        parent[b] = a
                        size[a] += size[b]
                        circles -= 1
                print("\\n".join(out))


            main()
            """),
        alternative=src("""
            n, q = map(int, input().split())
            friends = [set() for _ in range(n + 1)]


            def reach(start):
                seen = {start}
                stack = [start]
                while stack:
                    v = stack.pop()
                    for w in friends[v]:
                        if w not in seen:
                            seen.add(w)
                            stack.append(w)
                return seen


            for _ in range(q):
                parts = input().split()
                if parts[0] == "U":
                    a, b = int(parts[1]), int(parts[2])
                    friends[a].add(b)
                    friends[b].add(a)
                elif parts[0] == "Q":
                    a, b = int(parts[1]), int(parts[2])
                    print("YES" if b in reach(a) else "NO")
                else:
                    left = set(range(1, n + 1))
                    count = 0
                    while left:
                        count += 1
                        left -= reach(next(iter(left)))
                    print(count)
            """),
        generator=gen_friend_circles,
        examples=((lines("4 6", "C", "U 1 2", "U 3 4", "Q 1 3", "U 2 3", "Q 1 4"), lines(4, "NO", "YES")),),
    )
)
# ==========================================================================
# Hard
# ==========================================================================

# --- delivery-loop -----------------------------------------------------------


def gen_delivery_loop(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "two", "zeros", "max"])
        if kind == "one":
            matrix = [[0]]
        elif kind == "two":
            matrix = [[0, rng.randint(0, 1000)], [rng.randint(0, 1000), 0]]
        elif kind == "zeros":
            n = rng.randint(3, 11)
            matrix = [[0] * n for _ in range(n)]
        else:
            n = 11
            matrix = [[0 if i == j else 1000 for j in range(n)] for i in range(n)]
        return lines(len(matrix), *(join(row) for row in matrix))
    n = pick(rng, tier, {"basic": (3, 5), "intermediate": (6, 8), "complex": (10, 11)})
    symmetric = rng.random() < 0.5
    matrix = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j:
                matrix[i][j] = matrix[j][i] if symmetric and j < i else rng.randint(1, 1000)
    return lines(n, *(join(row) for row in matrix))


PROBLEMS.append(
    Problem(
        slug="delivery-loop",
        title="Delivery Loop",
        difficulty="hard",
        tags=("dp", "bitmask", "graphs"),
        statement="""
            A delivery drone starts at depot 1, must visit each of the other
            depots 2..n exactly once, and then return to depot 1. Flying from depot
            i to depot j costs cij units of battery; because of prevailing winds
            cij and cji may differ. Find the cheapest such loop.

            Input
            The first line contains an integer n. Each of the next n lines contains
            n integers: line i holds ci1, ci2, ..., cin. The diagonal is zero.

            Output
            Print the minimum total cost of a loop (0 when n = 1).

            Constraints
            1 <= n <= 11
            0 <= cij <= 1000, cii = 0
            """,
        reference=src("""
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n = data[0]
                cost = [data[1 + i * n:1 + (i + 1) * n] for i in range(n)]
                if n == 1:
                    print(0)
                    return
                m = n - 1  # depots 2..n are bits 0..m-1
                inf = float("inf")
                best = [[inf] * m for _ in range(1 << m)]
                for j in range(m):
                    best[1 << j][j] = cost[0][j + 1]
                for mask in range(1, 1 << m):
                    row = best[mask]
                    for j in range(m):
                        here = row[j]
                        if here == inf:
                            continue
                        for k in range(m):
                            if not mask >> k & 1:
                                cand = here + cost[j + 1][k + 1]
                                nxt = best[mask | 1 << k]
                                if cand < nxt[k]:
                                    nxt[k] = cand
                full = (1 << m) - 1
                print(min(best[full][j] + cost[j + 1][0] for j in range(m)))


            main()
            """),
        alternative=src("""
            import sys
            from functools import lru_cache

            n = int(input())
            c = [list(map(int, input().split())) for _ in range(n)]
            sys.setrecursionlimit(10000)
            everyone = (1 << n) - 1


            @lru_cache(maxsize=None)
            def finish(visited, at):
                # cheapest way to visit the rest and fly home
                if visited == everyone:
                    return c[at][0]
                return min(c[at][nxt] + finish(visited | 1 << nxt, nxt) for nxt in range(n) if not visited >> nxt & 1)


            print(finish(1, 0) if n > 1 else 0)
            """),
        generator=gen_delivery_loop,
        examples=((lines(4, "0 3 8 5", "4 0 2 7", "6 9 0 1", "2 8 3 0"), lines(8)),),
    )
)

# --- sensor-minimums ---------------------------------------------------------


def gen_sensor_minimums(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "equal", "set-same"])
        if kind == "one":
            values = [rng.randint(-(10**9), 10**9)]
            ops = ["2 1 1", f"1 1 {-(10**9)}", "2 1 1"]
        elif kind == "equal":
            n = rng.randint(2, 50)
            values = [7] * n
            ops = [f"2 1 {n}", f"1 {n} 6", f"2 1 {n}", f"2 1 {n - 1}"]
        else:
            values = [3, 3]
            ops = ["1 1 3", "2 1 2", f"1 2 {10**9}", "2 2 2", "2 1 2"]
        return lines(f"{len(values)} {len(ops)}", join(values), *ops)
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (30, 300), "complex": (2500, 3000)})
    q = pick(rng, tier, {"basic": (3, 8), "intermediate": (30, 300), "complex": (2500, 3000)})
    spread = rng.choice([3, 1000, 10**9])
    values = [rng.randint(-spread, spread) for _ in range(n)]
    ops = []
    for _ in range(q):
        if rng.random() < 0.4:
            ops.append(f"1 {rng.randint(1, n)} {rng.randint(-spread, spread)}")
        else:
            left = rng.randint(1, n)
            right = rng.randint(left, min(n, left + rng.choice([0, 10, n])))
            ops.append(f"2 {left} {right}")
    return lines(f"{n} {q}", join(values), *ops)


PROBLEMS.append(
    Problem(
        slug="sensor-minimums",
        title="Sensor Minimums",
        difficulty="hard",
        tags=("segment-tree", "data-structures"),
        statement="""
            n sensors are placed along a pipeline; sensor i currently reports the
            value vi. The control room issues q commands:

            * "1 i x": sensor i now reports x;
            * "2 l r": report the smallest value among sensors l..r (inclusive)
              and how many of those sensors report exactly that value.

            Input
            The first line contains two integers n and q. The second line contains
            n integers v1, ..., vn. Each of the next q lines contains one command.

            Output
            For every command of type 2 print two integers on its own line: the
            minimum and the number of sensors attaining it.

            Constraints
            1 <= n, q <= 5000
            -10^9 <= vi, x <= 10^9
            1 <= i <= n, 1 <= l <= r <= n
            """,
        reference=src("""
            import sys


            def main():
                data = sys.stdin.buffer.read().split()
                n, q = int(data[0]), int(data[1])
                size = 1
                while size < n:
                    size *= 2
                inf = float("inf")
                low = [inf] * (2 * size)
                cnt = [0] * (2 * size)
                for i in range(n):
                    low[size + i] = int(data[2 + i])
                    cnt[size + i] = 1

                def pull(v):
                    a, b = 2 * v, 2 * v + 1
                    if low[a] < low[b]:
                        low[v], cnt[v] = low[a], cnt[a]
                    elif low[b] < low[a]:
                        low[v], cnt[v] = low[b], cnt[b]
                    else:
                        low[v], cnt[v] = low[a], cnt[a] + cnt[b]

                for v in range(size - 1, 0, -1):
                    pull(v)
                out = []
                pos = 2 + n
                for _ in range(q):
                    kind, a, b = int(data[pos]), int(data[pos + 1]), int(data[pos + 2])
                    pos += 3
                    if kind == 1:
                        v = size + a - 1
                        low[v] = b
                        v //= 2
                        while v:
                            pull(v)
                            v //= 2
                        continue
                    best, how_many = inf, 0
                    lo, hi = a - 1 + size, b + size
                    while lo < hi:
                        if lo & 1:
                            if low[lo] < best:
                                best, how_many = low[lo], cnt[lo]
                            elif low[lo] == best:
                                how_many += cnt[lo]
                            lo += 1
                        if hi & 1:
                            hi -= 1
                            if low[hi] < best:
                                best, how_many = low[hi], cnt[hi]
                            elif low[hi] == best:
                                how_many += cnt[hi]
                        lo //= 2
                        hi //= 2
                    out.append(f"{best} {how_many}")
                print("\\n".join(out))


            main()
            """),
        alternative=src("""
            n, q = map(int, input().split())
            v = list(map(int, input().split()))
            for _ in range(q):
                t, a, b = map(int, input().split())
                if t == 1:
                    v[a - 1] = b
                else:
                    part = v[a - 1:b]
                    m = min(part)
                    print(m, part.count(m))
            """),
        generator=gen_sensor_minimums,
        examples=((lines("5 4", "3 1 4 1 5", "2 1 5", "1 2 7", "2 1 5", "2 3 3"), lines("1 2", "1 1", "4 1")),),
    )
)

# --- steep-drops -------------------------------------------------------------


def gen_steep_drops(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "zeros", "negatives", "extremes", "boundary"])
        if kind == "one":
            values = [rng.randint(-(10**9), 10**9)]
        elif kind == "zeros":
            values = [0] * rng.randint(2, 2000)
        elif kind == "negatives":
            values = [-1, -2, -1, -2, -3]
        elif kind == "extremes":
            values = [10**9, -(10**9)] * rng.randint(1, 5)
        else:
            values = [2, 1, 3, 1, 4, 2, 5, 2]
        return lines(len(values), join(values))
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (50, 300), "complex": (1500, 2000)})
    spread = rng.choice([5, 1000, 10**9])
    low = -spread if rng.random() < 0.6 else 0
    return lines(n, join(rng.randint(low, spread) for _ in range(n)))


PROBLEMS.append(
    Problem(
        slug="steep-drops",
        title="Steep Drops",
        difficulty="hard",
        tags=("divide-and-conquer", "merge-sort", "fenwick-tree"),
        statement="""
            A hydrologist studies the water level of a river measured at n
            moments: a1, ..., an (levels are relative to a reference mark, so they
            can be negative). A pair of moments i < j is a steep drop if the
            earlier level is more than twice the later one: ai > 2 * aj. Count the
            steep drops.

            Input
            The first line contains an integer n. The second line contains n
            integers a1, ..., an.

            Output
            Print the number of pairs (i, j) with i < j and ai > 2 * aj.

            Constraints
            1 <= n <= 2000
            -10^9 <= ai <= 10^9
            """,
        reference=src("""
            import sys


            def count(a):
                # returns (number of steep drops inside a, sorted copy of a)
                if len(a) <= 1:
                    return 0, a
                mid = len(a) // 2
                left_count, left = count(a[:mid])
                right_count, right = count(a[mid:])
                total = left_count + right_count
                j = 0
                for x in left:
                    while j < len(right) and x > 2 * right[j]:
                        j += 1
                    total += j
                merged = []
                i = k = 0
                while i < len(left) and k < len(right):
                    if left[i] <= right[k]:
                        merged.append(left[i])
                        i += 1
                    else:
                        merged.append(right[k])
                        k += 1
                merged.extend(left[i:])
                merged.extend(right[k:])
                return total, merged


            def main():
                data = list(map(int, sys.stdin.read().split()))
                print(count(data[1:1 + data[0]])[0])


            main()
            """),
        alternative=src("""
            from bisect import bisect_right

            n = int(input())
            a = list(map(int, input().split()))
            keys = sorted(set(a))
            tree = [0] * (len(keys) + 1)


            def add(i):
                while i <= len(keys):
                    tree[i] += 1
                    i += i & -i


            def prefix(i):
                s = 0
                while i > 0:
                    s += tree[i]
                    i -= i & -i
                return s


            answer = 0
            for seen, x in enumerate(a):
                # earlier values strictly greater than 2x
                answer += seen - prefix(bisect_right(keys, 2 * x))
                add(bisect_right(keys, x))
            print(answer)
            """),
        generator=gen_steep_drops,
        examples=(
            (lines(5, "1 3 2 3 1"), lines(2)),
            (lines(4, "-5 -3 0 -1"), lines(2)),
        ),
    )
)

# --- gig-scheduling ----------------------------------------------------------


def gen_gig_scheduling(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "touching", "identical", "nested"])
        if kind == "one":
            gigs = [(0, 10**9, 10**6)]
        elif kind == "touching":
            cuts = sorted(rng.sample(range(0, 1000), rng.randint(3, 9)))
            gigs = [(a, b, rng.randint(1, 10**6)) for a, b in pairwise(cuts)]
        elif kind == "identical":
            gigs = [(5, 9, rng.randint(1, 10**6)) for _ in range(rng.randint(2, 6))]
        else:
            gigs = [(i, 100 - i, 10 + i) for i in range(rng.randint(2, 8))]
        rng.shuffle(gigs)
        return lines(len(gigs), *(join(g) for g in gigs))
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (30, 200), "complex": (1500, 2000)})
    horizon = {"basic": 30, "intermediate": 10**4, "complex": 10**9}[tier]
    longest = max(1, horizon // rng.choice([4, 20, 200]))
    gigs = []
    for _ in range(n):
        start = rng.randint(0, horizon - 1)
        gigs.append((start, min(horizon, start + rng.randint(1, longest)), rng.randint(1, 10**6)))
    return lines(n, *(join(g) for g in gigs))


PROBLEMS.append(
    Problem(
        slug="gig-scheduling",
        title="Gig Scheduling",
        difficulty="hard",
        tags=("dp", "binary-search", "sorting", "intervals"),
        statement="""
            A touring musician is offered n gigs. Gig i runs during the time
            interval [si, ei) and pays pi. The musician can play only one gig at a
            time, but a gig that ends at time t and another that starts at time t
            are compatible. Choose a set of pairwise compatible gigs with the
            largest total pay.

            Input
            The first line contains an integer n. Each of the next n lines contains
            three integers si, ei and pi.

            Output
            Print the largest total pay.

            Constraints
            1 <= n <= 2000
            0 <= si < ei <= 10^9
            1 <= pi <= 10^6
            """,
        reference=src("""
            import sys
            from bisect import bisect_right


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n = data[0]
                gigs = sorted((data[2 + 3 * i], data[1 + 3 * i], data[3 + 3 * i]) for i in range(n))
                ends = [e for e, _, _ in gigs]
                best = [0] * (n + 1)  # best[i] = optimum using the first i gigs by end time
                for i, (end, start, pay) in enumerate(gigs):
                    earlier = bisect_right(ends, start, 0, i)
                    best[i + 1] = max(best[i], best[earlier] + pay)
                print(best[n])


            main()
            """),
        alternative=src("""
            n = int(input())
            gigs = [tuple(map(int, input().split())) for _ in range(n)]
            times = sorted({t for s, e, _ in gigs for t in (s, e)})
            index = {t: i for i, t in enumerate(times)}
            ending = [[] for _ in times]
            for s, e, p in gigs:
                ending[index[e]].append((index[s], p))
            value = [0] * len(times)
            for i in range(len(times)):
                if i:
                    value[i] = value[i - 1]
                for s, p in ending[i]:
                    value[i] = max(value[i], value[s] + p)
            print(value[-1])
            """),
        generator=gen_gig_scheduling,
        examples=((lines(5, "1 4 20", "3 5 20", "4 7 30", "6 8 25", "5 9 40"), lines(60)),),
    )
)

# --- wall-breaker ------------------------------------------------------------


def gen_wall_breaker(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["single-free", "single-wall", "all-wall", "row"])
        if kind == "single-free":
            grid = ["."]
        elif kind == "single-wall":
            grid = ["#"]
        elif kind == "all-wall":
            r, c = rng.randint(1, 60), rng.randint(1, 60)
            grid = ["#" * c] * r
        else:
            grid = ["".join(rng.choice(".#") for _ in range(rng.randint(2, 60)))]
        return lines(f"{len(grid)} {len(grid[0])}", *grid)
    r = pick(rng, tier, {"basic": (2, 6), "intermediate": (10, 25), "complex": (45, 60)})
    c = pick(rng, tier, {"basic": (2, 6), "intermediate": (10, 25), "complex": (45, 60)})
    grid = random_grid(rng, r, c, rng.choice([0.3, 0.5, 0.7]))
    return lines(f"{r} {c}", *grid)


PROBLEMS.append(
    Problem(
        slug="wall-breaker",
        title="Wall Breaker",
        difficulty="hard",
        tags=("graphs", "0-1-bfs", "shortest-path", "grid"),
        statement="""
            A demolition robot starts in the top-left cell of a rectangular site
            and must reach the bottom-right cell. Cells are either free "." or
            walls "#". The robot moves up, down, left or right; it may enter a wall
            cell only by demolishing that wall, which costs 1 charge. Entering a
            free cell costs nothing. If the start cell or the target cell is a
            wall, it must be demolished as well (each wall is paid once). Find the
            minimum number of charges.

            Input
            The first line contains two integers R and C. Each of the next R lines
            contains C characters, each "." or "#".

            Output
            Print the minimum number of walls to demolish.

            Constraints
            1 <= R, C <= 60
            """,
        reference=src("""
            import sys
            from collections import deque


            def main():
                data = sys.stdin.read().split()
                r, c = int(data[0]), int(data[1])
                grid = data[2:2 + r]
                inf = r * c + 1
                dist = [[inf] * c for _ in range(r)]
                dist[0][0] = 1 if grid[0][0] == "#" else 0
                queue = deque([(0, 0)])
                while queue:
                    x, y = queue.popleft()
                    d = dist[x][y]
                    for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                        if 0 <= nx < r and 0 <= ny < c:
                            step = 1 if grid[nx][ny] == "#" else 0
                            if d + step < dist[nx][ny]:
                                dist[nx][ny] = d + step
                                if step:
                                    queue.append((nx, ny))
                                else:
                                    queue.appendleft((nx, ny))
                print(dist[r - 1][c - 1])


            main()
            """),
        alternative=src("""
            import heapq

            r, c = map(int, input().split())
            g = [input().strip() for _ in range(r)]


            def weight(i, j):
                return 1 if g[i][j] == "#" else 0


            done = set()
            heap = [(weight(0, 0), 0, 0)]
            while heap:
                d, i, j = heapq.heappop(heap)
                if (i, j) in done:
                    continue
                done.add((i, j))
                if (i, j) == (r - 1, c - 1):
                    print(d)
                    break
                for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
                    if 0 <= a < r and 0 <= b < c and (a, b) not in done:
                        heapq.heappush(heap, (d + weight(a, b), a, b))
            """),
        generator=gen_wall_breaker,
        examples=(
            (lines("3 4", ".#..", "##.#", "...#"), lines(2)),
            (lines("1 1", "#"), lines(1)),
        ),
    )
)

# --- kth-gap -----------------------------------------------------------------


def gen_kth_gap(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["two", "same", "first", "last"])
        if kind == "two":
            values, k = [rng.randint(0, 10**6), rng.randint(0, 10**6)], 1
        elif kind == "same":
            values = [42] * rng.randint(2, 40)
            k = rng.randint(1, len(values) * (len(values) - 1) // 2)
        else:
            values = [rng.randint(0, 10**6) for _ in range(rng.randint(2, 1000))]
            pairs = len(values) * (len(values) - 1) // 2
            k = 1 if kind == "first" else pairs
        return lines(f"{len(values)} {k}", join(values))
    n = pick(rng, tier, {"basic": (2, 8), "intermediate": (30, 200), "complex": (800, 1000)})
    spread = rng.choice([10, 1000, 10**6])
    values = [rng.randint(0, spread) for _ in range(n)]
    k = rng.randint(1, n * (n - 1) // 2)
    return lines(f"{n} {k}", join(values))


PROBLEMS.append(
    Problem(
        slug="kth-gap",
        title="K-th Smallest Gap",
        difficulty="hard",
        tags=("binary-search", "two-pointers", "sorting"),
        statement="""
            n radio beacons stand along a straight coast; beacon i is at position
            xi (several beacons may share a position). For each of the
            n(n-1)/2 unordered pairs of different beacons consider the distance
            |xi - xj|. Sort these distances in non-decreasing order (keeping
            repeated values) and report the k-th one.

            Input
            The first line contains two integers n and k. The second line contains
            n integers x1, ..., xn.

            Output
            Print the k-th smallest pairwise distance.

            Constraints
            2 <= n <= 1000
            1 <= k <= n(n-1)/2
            0 <= xi <= 10^6
            """,
        reference=src("""
            import sys


            def pairs_within(xs, limit):
                count = 0
                left = 0
                for right, x in enumerate(xs):
                    while x - xs[left] > limit:
                        left += 1
                    count += right - left
                return count


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, k = data[0], data[1]
                xs = sorted(data[2:2 + n])
                lo, hi = 0, xs[-1] - xs[0]
                while lo < hi:
                    mid = (lo + hi) // 2
                    if pairs_within(xs, mid) >= k:
                        hi = mid
                    else:
                        lo = mid + 1
                print(lo)


            main()
            """),
        alternative=src("""
            n, k = map(int, input().split())
            x = list(map(int, input().split()))
            gaps = sorted(abs(x[i] - x[j]) for i in range(n) for j in range(i + 1, n))
            print(gaps[k - 1])
            """),
        generator=gen_kth_gap,
        examples=((lines("4 3", "1 6 3 10"), lines(4)),),
    )
)

# --- hull-area ---------------------------------------------------------------


def gen_hull_area(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "same", "collinear", "square-grid", "extreme"])
        if kind == "one":
            pts = [(rng.randint(-(10**4), 10**4), rng.randint(-(10**4), 10**4))]
        elif kind == "same":
            pts = [(3, -7)] * rng.randint(2, 6)
        elif kind == "collinear":
            dx, dy = rng.choice([(1, 0), (0, 1), (1, 1), (2, -3)])
            pts = [(dx * t, dy * t) for t in rng.sample(range(-100, 101), rng.randint(2, 30))]
        elif kind == "square-grid":
            side = rng.randint(2, 20)
            pts = [(x, y) for x in range(side) for y in range(side)]
        else:
            big = 10**4
            pts = [(-big, -big), (big, -big), (big, big), (-big, big), (0, 0), (big, 0)]
        rng.shuffle(pts)
        return lines(len(pts), *(f"{x} {y}" for x, y in pts))
    n = pick(rng, tier, {"basic": (3, 8), "intermediate": (30, 200), "complex": (800, 1000)})
    top = {"basic": 10, "intermediate": 1000, "complex": 10**4}[tier]
    if rng.random() < 0.5:
        pts = [(rng.randint(-top, top), rng.randint(-top, top)) for _ in range(n)]
    else:  # points on and inside a circle: many hull corners
        pts = []
        for _ in range(n):
            angle = rng.uniform(0, 2 * math.pi)
            radius = top * (1.0 if rng.random() < 0.5 else rng.random())
            pts.append((round(radius * math.cos(angle)), round(radius * math.sin(angle))))
    return lines(n, *(f"{x} {y}" for x, y in pts))


PROBLEMS.append(
    Problem(
        slug="hull-area",
        title="Hull Area",
        difficulty="hard",
        tags=("geometry", "convex-hull", "floating-point"),
        statement="""
            Park rangers have tagged n trees with GPS collars (integer coordinates;
            several trees may share coordinates). They want to enclose all trees
            with the shortest possible rope, which runs along the convex hull of
            the points. Report the area enclosed by the rope and the number of
            corners of the hull: points where the rope changes direction (points
            lying on a straight part of the rope are not corners).

            If all trees are at the same point the area is 0 and there is 1
            corner; if all trees lie on one line (but not all at the same point)
            the area is 0 and there are 2 corners.

            Input
            The first line contains an integer n. Each of the next n lines contains
            two integers x and y.

            Output
            Print the area and the number of corners separated by a space. The area
            is accepted with an absolute or relative error of at most 10^-6.

            Constraints
            1 <= n <= 1000
            -10^4 <= x, y <= 10^4
            """,
        reference=src("""
            import sys


            def cross(o, a, b):
                return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n = data[0]
                pts = sorted({(data[1 + 2 * i], data[2 + 2 * i]) for i in range(n)})
                if len(pts) == 1:
                    print("0.0 1")
                    return
                lower, upper = [], []
                for p in pts:
                    while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
                        lower.pop()
                    lower.append(p)
                for p in reversed(pts):
                    while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
                        upper.pop()
                    upper.append(p)
                hull = lower[:-1] + upper[:-1]
                twice = 0
                for i in range(len(hull)):
                    x1, y1 = hull[i]
                    x2, y2 = hull[(i + 1) % len(hull)]
                    twice += x1 * y2 - x2 * y1
                print(f"{abs(twice) / 2:.1f} {len(hull)}")


            main()
            """),
        alternative=src("""
            n = int(input())
            pts = list({tuple(map(int, input().split())) for _ in range(n)})
            start = min(pts)
            corners = [start]
            if len(pts) > 1:
                cur = start
                while True:
                    cand = None
                    for p in pts:
                        if p == cur:
                            continue
                        if cand is None:
                            cand = p
                            continue
                        turn = (cand[0] - cur[0]) * (p[1] - cur[1]) - (cand[1] - cur[1]) * (p[0] - cur[0])
                        far = (p[0] - cur[0]) ** 2 + (p[1] - cur[1]) ** 2 > (cand[0] - cur[0]) ** 2 + (
                            cand[1] - cur[1]
                        ) ** 2
                        if turn < 0 or (turn == 0 and far):
                            cand = p
                    if cand == start:
                        break
                    corners.append(cand)
                    cur = cand
            area = 0
            for i in range(len(corners)):
                a, b = corners[i], corners[(i + 1) % len(corners)]
                area += a[0] * b[1] - a[1] * b[0]
            print(abs(area) / 2, len(corners))
            """),
        generator=gen_hull_area,
        checker=FLOAT,
        examples=(
            (lines(6, "0 0", "4 0", "4 3", "0 3", "2 1", "2 0"), lines("12.0 4")),
            (lines(3, "1 1", "2 2", "3 3"), lines("0.0 2")),
        ),
    )
)

# --- nearest-stations --------------------------------------------------------


def gen_nearest_stations(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["two", "duplicate", "far", "line"])
        if kind == "two":
            pts = [(-(10**6), -(10**6)), (10**6, 10**6)]
        elif kind == "duplicate":
            pts = [(rng.randint(-50, 50), rng.randint(-50, 50)) for _ in range(rng.randint(2, 30))]
            pts.append(rng.choice(pts))
        elif kind == "far":
            pts = [(-(10**6), 0), (10**6, 0), (0, 10**6)]
        else:
            pts = [(7 * i, 0) for i in rng.sample(range(1000), rng.randint(2, 1000))]
        rng.shuffle(pts)
        return lines(len(pts), *(f"{x} {y}" for x, y in pts))
    n = pick(rng, tier, {"basic": (2, 8), "intermediate": (30, 200), "complex": (800, 1000)})
    top = rng.choice([100, 10**4, 10**6])
    pts = [(rng.randint(-top, top), rng.randint(-top, top)) for _ in range(n)]
    return lines(n, *(f"{x} {y}" for x, y in pts))


PROBLEMS.append(
    Problem(
        slug="nearest-stations",
        title="Nearest Stations",
        difficulty="hard",
        tags=("geometry", "sweep-line", "floating-point"),
        statement="""
            A telecom operator has n base stations at integer points of a plane.
            Two stations that are too close interfere with each other, so the
            engineers need the smallest Euclidean distance between two different
            stations. Two stations may even be at the same point (distance 0).

            Input
            The first line contains an integer n. Each of the next n lines contains
            two integers x and y.

            Output
            Print the smallest distance. An answer is accepted if its absolute or
            relative error is at most 10^-6.

            Constraints
            2 <= n <= 1000
            -10^6 <= x, y <= 10^6
            """,
        reference=src("""
            import math
            import sys
            from bisect import bisect_left, bisect_right, insort


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n = data[0]
                pts = sorted((data[1 + 2 * i], data[2 + 2 * i]) for i in range(n))
                best = math.inf
                window = []  # (y, x) of points with x within best of the sweep line, sorted by y
                left = 0
                for x, y in pts:
                    while x - pts[left][0] > best:
                        gone = pts[left]
                        window.pop(bisect_left(window, (gone[1], gone[0])))
                        left += 1
                    lo = bisect_left(window, (y - best, -math.inf))
                    hi = bisect_right(window, (y + best, math.inf))
                    for wy, wx in window[lo:hi]:
                        best = min(best, math.hypot(x - wx, y - wy))
                    insort(window, (y, x))
                print(f"{best:.9f}")


            main()
            """),
        alternative=src("""
            n = int(input())
            p = [tuple(map(int, input().split())) for _ in range(n)]
            best = min(
                (p[i][0] - p[j][0]) ** 2 + (p[i][1] - p[j][1]) ** 2 for i in range(n) for j in range(i + 1, n)
            )
            print(best ** 0.5)
            """),
        generator=gen_nearest_stations,
        checker=FLOAT,
        examples=((lines(4, "0 0", "5 5", "1 1", "9 0"), lines("1.414213562")),),
    )
)

# --- pile-merging ------------------------------------------------------------


def gen_pile_merging(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["one", "two", "equal", "max"])
        if kind == "one":
            piles = [rng.randint(1, 10**4)]
        elif kind == "two":
            piles = [rng.randint(1, 10**4), rng.randint(1, 10**4)]
        elif kind == "equal":
            piles = [1] * rng.randint(3, 100)
        else:
            piles = [10**4] * 100
        return lines(len(piles), join(piles))
    n = pick(rng, tier, {"basic": (3, 6), "intermediate": (10, 40), "complex": (80, 100)})
    top = rng.choice([10, 100, 10**4])
    return lines(n, join(rng.randint(1, top) for _ in range(n)))


PROBLEMS.append(
    Problem(
        slug="pile-merging",
        title="Pile Merging",
        difficulty="hard",
        tags=("dp", "interval-dp"),
        statement="""
            A warehouse has n piles of boxes in a row; pile i holds ai boxes. A
            forklift repeatedly takes two neighbouring piles and merges them into
            one pile in the same place; merging piles of x and y boxes costs x + y.
            After n - 1 merges a single pile remains. Find the minimum total cost.

            Input
            The first line contains an integer n. The second line contains n
            integers a1, ..., an.

            Output
            Print the minimum total cost (0 when n = 1).

            Constraints
            1 <= n <= 100
            1 <= ai <= 10^4
            """,
        reference=src("""
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n = data[0]
                a = data[1:1 + n]
                prefix = [0]
                for x in a:
                    prefix.append(prefix[-1] + x)
                cost = [[0] * n for _ in range(n)]
                split = [[i] * n for i in range(n)]  # Knuth's optimal split points
                for length in range(2, n + 1):
                    for i in range(n - length + 1):
                        j = i + length - 1
                        best, where = None, i
                        for k in range(split[i][j - 1], min(split[i + 1][j], j - 1) + 1):
                            cand = cost[i][k] + cost[k + 1][j]
                            if best is None or cand < best:
                                best, where = cand, k
                        cost[i][j] = best + prefix[j + 1] - prefix[i]
                        split[i][j] = where
                print(cost[0][n - 1])


            main()
            """),
        alternative=src("""
            import sys
            from functools import lru_cache

            sys.setrecursionlimit(10000)
            n = int(input())
            a = list(map(int, input().split()))


            @lru_cache(maxsize=None)
            def merge(i, j):
                if i == j:
                    return 0
                return sum(a[i:j + 1]) + min(merge(i, k) + merge(k + 1, j) for k in range(i, j))


            print(merge(0, n - 1))
            """),
        generator=gen_pile_merging,
        examples=((lines(4, "4 1 1 4"), lines(18)),),
    )
)

# --- pattern-echoes ----------------------------------------------------------


def gen_pattern_echoes(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [
            ("a", "a"),
            ("a", "b"),
            ("ab", "abc"),
            ("a" * 10000, "a" * 5000),
            ("a" * 9999 + "b", "ab"),
            ("abcabcabcab", "abcab"),
            ("xyz", "xyz"),
        ]
        text, pattern = rng.choice(options)
        return lines(text, pattern)
    n = pick(rng, tier, {"basic": (3, 15), "intermediate": (100, 1000), "complex": (5000, 10000)})
    alphabet = "abcdefghijklmnopqrstuvwxyz"[: rng.choice([1, 2, 3, 26])]
    if rng.random() < 0.5:
        unit = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
        text = (unit * (n // len(unit) + 1))[:n]
        if rng.random() < 0.5:
            pos = rng.randrange(n)
            text = text[:pos] + rng.choice(alphabet) + text[pos + 1 :]
    else:
        text = "".join(rng.choice(alphabet) for _ in range(n))
    m = rng.randint(1, min(n, rng.choice([3, 10, n])))
    start = rng.randrange(n - m + 1)
    pattern = text[start : start + m] if rng.random() < 0.8 else "".join(rng.choice(alphabet) for _ in range(m))
    return lines(text, pattern)


PROBLEMS.append(
    Problem(
        slug="pattern-echoes",
        title="Pattern Echoes",
        difficulty="hard",
        tags=("strings", "kmp", "prefix-function"),
        statement="""
            A signal analyst receives a long transmission t and a short motif p,
            both strings of lowercase letters. She needs two facts:

            * how many times p occurs in t as a contiguous substring (occurrences
              may overlap: "aa" occurs 3 times in "aaaa");
            * the smallest period of t: the smallest d >= 1 such that
              t[i] = t[i + d] for every valid i. (d = |t| always works.)

            Input
            The first line contains t and the second line contains p.

            Output
            Print the number of occurrences and the smallest period separated by a
            space.

            Constraints
            1 <= |t| <= 10^4
            1 <= |p| <= 10^4
            """,
        reference=src("""
            import sys


            def prefix_function(s):
                pi = [0] * len(s)
                for i in range(1, len(s)):
                    k = pi[i - 1]
                    while k and s[i] != s[k]:
                        k = pi[k - 1]
                    if s[i] == s[k]:
                        k += 1
                    pi[i] = k
                return pi


            def main():
                t, p = sys.stdin.read().split()[:2]
                pi = prefix_function(p)
                count = 0
                k = 0
                for ch in t:
                    while k and ch != p[k]:
                        k = pi[k - 1]
                    if ch == p[k]:
                        k += 1
                    if k == len(p):
                        count += 1
                        k = pi[k - 1]
                period = len(t) - prefix_function(t)[-1]
                print(count, period)


            main()
            """),
        alternative=src("""
            t = input().strip()
            p = input().strip()
            hits = sum(1 for i in range(len(t) - len(p) + 1) if t.startswith(p, i))
            n = len(t)
            period = next(d for d in range(1, n + 1) if t[d:] == t[:n - d])
            print(hits, period)
            """),
        generator=gen_pattern_echoes,
        examples=(
            (lines("abababa", "aba"), lines("3 2")),
            (lines("abcab", "x"), lines("0 3")),
        ),
    )
)

# --- calculator-core ---------------------------------------------------------


LIMIT_18 = 10**18


def truncated_division(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def random_expression(rng: random.Random, ops: int, big: int) -> tuple[str, int, int]:
    """Return (text, value, precedence) of a random expression with ``ops`` operators.

    Precedence is 1 for + and -, 2 for * and /, 3 for unary minus and literals.
    Operators are swapped when they would divide by zero or leave [-10^18, 10^18],
    so every intermediate result of the returned expression is in range.
    """
    if ops == 0:
        value = rng.choice([rng.randint(0, 9), rng.randint(0, 100), rng.randint(0, big)])
        return str(value), value, 3
    if rng.random() < 0.15:
        text, value, prec = random_expression(rng, ops - 1, big)
        return "-" + (text if prec == 3 else f"({text})"), -value, 3
    left_ops = rng.randint(0, ops - 1)
    ltext, lval, lprec = random_expression(rng, left_ops, big)
    rtext, rval, rprec = random_expression(rng, ops - 1 - left_ops, big)
    results = {"+": lval + rval, "-": lval - rval, "*": lval * rval}
    if rval != 0:
        results["/"] = truncated_division(lval, rval)
    op = rng.choice("+-*/")
    if op not in results or abs(results[op]) > LIMIT_18:
        op = next(o for o in "/-+" if o in results and abs(results[o]) <= LIMIT_18)
    prec = 1 if op in "+-" else 2
    if lprec < prec or rng.random() < 0.1:
        ltext = f"({ltext})"
    if rprec <= prec or rng.random() < 0.1:
        rtext = f"({rtext})"
    space = rng.choice(["", " "])
    return f"{ltext}{space}{op}{space}{rtext}", results[op], prec


def bounded_expression(rng: random.Random, ops: int, big: int) -> str:
    while True:
        text, _, _ = random_expression(rng, ops, big)
        if len(text) <= 300:
            return text


def gen_calculator_core(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = ["0", "7", "-0", "--5", "1000000000*1000000000", "0/5", "-7/2", "7/-2", "(((((1)))))", "2-3-4"]
        options.append("100/10/3")
        rows = rng.sample(options, rng.randint(2, 5))
        return lines(len(rows), *rows)
    t = pick(rng, tier, {"basic": (1, 4), "intermediate": (10, 20), "complex": (40, 50)})
    max_ops = {"basic": 3, "intermediate": 12, "complex": 40}[tier]
    big = {"basic": 20, "intermediate": 1000, "complex": 10**9}[tier]
    rows = [bounded_expression(rng, rng.randint(1, max_ops), big) for _ in range(t)]
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="calculator-core",
        title="Calculator Core",
        difficulty="hard",
        tags=("parsing", "recursion", "stack", "strings"),
        statement="""
            You are writing the core of a command-line calculator. Each input line
            is an arithmetic expression over non-negative integer literals with the
            binary operators + - * /, unary minus, and parentheses. Spaces may
            appear between tokens.

            * The operators "*" and "/" bind tighter than "+" and "-"; binary
              operators of equal precedence are evaluated left to right.
            * Unary minus binds tighter than every binary operator and may be
              repeated, so "3*-2" is -6 and "--5" is 5.
            * / is integer division rounding toward zero: 7/2 = 3, -7/2 = -3.

            Formally: expr = term (("+" | "-") term)*, term = factor (("*" | "/")
            factor)*, factor = "-" factor | number | "(" expr ")".

            Input
            The first line contains an integer T. Each of the next T lines contains
            one expression.

            Output
            For each expression print its value on its own line.

            Constraints
            1 <= T <= 50
            Each expression is valid and has at most 300 characters.
            Every literal is at most 10^9, no division by zero occurs, and every
            intermediate result lies in [-10^18, 10^18].
            """,
        reference=src("""
            import sys


            def tokenize(line):
                tokens = []
                i = 0
                while i < len(line):
                    ch = line[i]
                    if ch.isdigit():
                        j = i
                        while j < len(line) and line[j].isdigit():
                            j += 1
                        tokens.append(int(line[i:j]))
                        i = j
                    else:
                        if not ch.isspace():
                            tokens.append(ch)
                        i += 1
                return tokens


            class Parser:
                def __init__(self, tokens):
                    self.tokens = tokens
                    self.pos = 0

                def peek(self):
                    return self.tokens[self.pos] if self.pos < len(self.tokens) else None

                def take(self):
                    tok = self.tokens[self.pos]
                    self.pos += 1
                    return tok

                def expr(self):
                    value = self.term()
                    while self.peek() in ("+", "-"):
                        if self.take() == "+":
                            value += self.term()
                        else:
                            value -= self.term()
                    return value

                def term(self):
                    value = self.factor()
                    while self.peek() in ("*", "/"):
                        op = self.take()
                        rhs = self.factor()
                        if op == "*":
                            value *= rhs
                        else:
                            q = abs(value) // abs(rhs)
                            value = q if (value < 0) == (rhs < 0) else -q
                    return value

                def factor(self):
                    tok = self.take()
                    if tok == "-":
                        return -self.factor()
                    if tok == "(":
                        value = self.expr()
                        self.take()
                        return value
                    return tok


            def main():
                rows = sys.stdin.read().split("\\n")
                t = int(rows[0])
                print("\\n".join(str(Parser(tokenize(rows[i])).expr()) for i in range(1, t + 1)))


            main()
            """),
        alternative=src("""
            import re

            PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "neg": 3}


            def apply(op, values):
                if op == "neg":
                    values.append(-values.pop())
                    return
                b = values.pop()
                a = values.pop()
                if op == "+":
                    values.append(a + b)
                elif op == "-":
                    values.append(a - b)
                elif op == "*":
                    values.append(a * b)
                else:
                    q = abs(a) // abs(b)
                    values.append(q if a * b >= 0 else -q)


            def evaluate(line):
                values, ops = [], []
                expect_operand = True
                for tok in re.findall(r"\\d+|[-+*/()]", line):
                    if tok.isdigit():
                        values.append(int(tok))
                        expect_operand = False
                    elif tok == "(":
                        ops.append(tok)
                        expect_operand = True
                    elif tok == ")":
                        while ops[-1] != "(":
                            apply(ops.pop(), values)
                        ops.pop()
                        expect_operand = False
                    elif tok == "-" and expect_operand:
                        ops.append("neg")
                    else:
                        while ops and ops[-1] != "(" and PREC[ops[-1]] >= PREC[tok]:
                            apply(ops.pop(), values)
                        ops.append(tok)
                        expect_operand = True
                while ops:
                    apply(ops.pop(), values)
                return values[0]


            for _ in range(int(input())):
                print(evaluate(input()))
            """),
        generator=gen_calculator_core,
        examples=((lines(3, "1 + 2 * 3", "(7 - 10) / 2", "-(4 + 4) * -2 - 9 / 4"), lines(7, -1, 14)),),
    )
)

# --- lucky-tickets -----------------------------------------------------------


def gen_lucky_tickets(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        options = [
            "1 1 1",
            "1 1 2",
            f"1 {10**18} 1",
            f"{10**18} {10**18} 1",
            f"{10**18} {10**18} 2",
            f"1 {10**18} 100",
            "9 9 9",
            f"{10**18 - 1} {10**18} 162",
            "1 9 100",
        ]
        rows = rng.sample(options, rng.randint(2, 4))
        return lines(len(rows), *rows)
    t = pick(rng, tier, {"basic": (1, 3), "intermediate": (3, 6), "complex": (8, 10)})
    top = {"basic": 1000, "intermediate": 10**9, "complex": 10**18}[tier]
    rows = []
    for _ in range(t):
        a = rng.randint(1, top)
        b = rng.randint(a, min(top, a + rng.choice([10, 10**6, top])))
        rows.append(f"{a} {b} {rng.choice([rng.randint(1, 12), rng.randint(1, 100)])}")
    return lines(t, *rows)


PROBLEMS.append(
    Problem(
        slug="lucky-tickets",
        title="Lucky Tickets",
        difficulty="hard",
        tags=("dp", "digit-dp", "number-theory"),
        statement="""
            A tram company prints ticket numbers from A to B. A superstitious
            passenger calls a ticket lucky if the sum of the decimal digits of its
            number is divisible by K. For each query, count the lucky tickets with
            numbers in [A, B].

            Input
            The first line contains an integer T. Each of the next T lines contains
            three integers A, B and K.

            Output
            For each query print the count on its own line.

            Constraints
            1 <= T <= 10
            1 <= A <= B <= 10^18
            1 <= K <= 100
            """,
        reference=src("""
            import sys


            def count_upto(n, k):
                # how many x in [0, n] have digit sum divisible by k
                digits = list(map(int, str(n)))
                length = len(digits)
                # ways[r][s] = number of r-digit strings (leading zeros allowed) with digit sum = s (mod k)
                ways = [[0] * k for _ in range(length + 1)]
                ways[0][0] = 1
                for r in range(1, length + 1):
                    prev, cur = ways[r - 1], ways[r]
                    for s in range(k):
                        if prev[s]:
                            for d in range(10):
                                cur[(s + d) % k] += prev[s]
                total = 0
                prefix = 0
                for i, top in enumerate(digits):
                    rest = length - i - 1
                    for d in range(top):
                        total += ways[rest][(-(prefix + d)) % k]
                    prefix += top
                if prefix % k == 0:
                    total += 1
                return total


            def main():
                data = list(map(int, sys.stdin.read().split()))
                out = []
                for i in range(data[0]):
                    a, b, k = data[1 + 3 * i:4 + 3 * i]
                    out.append(count_upto(b, k) - count_upto(a - 1, k))
                print("\\n".join(map(str, out)))


            main()
            """),
        alternative=src("""
            from functools import lru_cache


            def lucky_below_or_equal(n, k):
                digits = str(n)

                @lru_cache(maxsize=None)
                def go(pos, rem, tight):
                    if pos == len(digits):
                        return 1 if rem == 0 else 0
                    limit = int(digits[pos]) if tight else 9
                    return sum(go(pos + 1, (rem + d) % k, tight and d == limit) for d in range(limit + 1))

                return go(0, 0, True)


            for _ in range(int(input())):
                a, b, k = map(int, input().split())
                print(lucky_below_or_equal(b, k) - lucky_below_or_equal(a - 1, k))
            """),
        generator=gen_lucky_tickets,
        examples=((lines(2, "1 20 3", "10 99 10"), lines(6, 9)),),
    )
)

# --- fenced-points -----------------------------------------------------------


def star_polygon(rng: random.Random, n: int, radius: int) -> list[tuple[int, int]]:
    """A simple polygon whose vertices are sorted by angle around the origin."""
    while True:
        sector = 2 * math.pi / n
        pts = []
        for k in range(n):
            angle = rng.uniform((k + 0.05) * sector, (k + 0.95) * sector)
            r = rng.uniform(0.25, 1.0) * radius
            pts.append((round(r * math.cos(angle)), round(r * math.sin(angle))))
        angles = [math.atan2(y, x) % (2 * math.pi) for x, y in pts]
        gaps = [(angles[(i + 1) % n] - angles[i]) % (2 * math.pi) for i in range(n)]
        increasing = all(angles[i] < angles[i + 1] for i in range(n - 1))
        if (0, 0) not in pts and increasing and max(gaps) < math.pi - 1e-6 and min(gaps) > 1e-9:
            return pts


def histogram_polygon(rng: random.Random, columns: int, width: int, height: int) -> list[tuple[int, int]]:
    """A simple rectilinear polygon: flat bottom, stepped top."""
    cuts = sorted(rng.sample(range(1, width), columns - 1)) if columns > 1 else []
    xs = [0, *cuts, width]
    heights = [rng.randint(1, height)]
    for _ in range(columns - 1):
        heights.append(rng.choice([h for h in range(1, height + 1) if h != heights[-1]]))
    pts = [(0, 0), (width, 0)]
    for i in range(columns - 1, -1, -1):
        pts.append((xs[i + 1], heights[i]))
        pts.append((xs[i], heights[i]))
    return pts


def lattice_on_edges(rng: random.Random, pts: list[tuple[int, int]], count: int) -> list[tuple[int, int]]:
    found = []
    for _ in range(count):
        i = rng.randrange(len(pts))
        (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % len(pts)]
        g = math.gcd(x2 - x1, y2 - y1)
        step = rng.randint(0, g)
        found.append((x1 + (x2 - x1) // g * step, y1 + (y2 - y1) // g * step))
    return found


def gen_fenced_points(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["triangle", "square-corners", "thin", "far"])
        if kind == "triangle":
            poly = [(0, 0), (2, 0), (0, 2)]
            queries = [(0, 0), (1, 1), (1, 0), (0, 1), (2, 2), (-1, 0), (1, 2)]
        elif kind == "square-corners":
            poly = [(0, 0), (0, 5), (5, 5), (5, 0)]
            queries = [*poly, (5, 6), (6, 5), (0, 3), (3, 3)]
        elif kind == "thin":
            poly = [(0, 0), (10, 0), (10, 1), (0, 1)]
            queries = [(x, y) for x in range(-1, 12, 3) for y in (-1, 0, 1, 2)]
        else:
            big = 10**4
            poly = [(-big, -big), (big, -big), (big, big), (-big, big)]
            queries = [(big, big), (0, 0), (-big, 0), (big - 1, big - 1), (-big, -big), (0, big)]
        return lines(f"{len(poly)} {len(queries)}", *(join(p) for p in poly), *(join(q) for q in queries))
    if rng.random() < 0.5:
        n = pick(rng, tier, {"basic": (4, 6), "intermediate": (10, 40), "complex": (150, 200)})
        radius = {"basic": 10, "intermediate": 200, "complex": 9000}[tier]
        poly = star_polygon(rng, n, radius)
        dx, dy = rng.randint(-500, 500), rng.randint(-500, 500)
        poly = [(x + dx, y + dy) for x, y in poly]
    else:
        columns = pick(rng, tier, {"basic": (1, 3), "intermediate": (5, 15), "complex": (60, 99)})
        width = columns * rng.randint(2, 6)
        poly = histogram_polygon(rng, columns, width, rng.randint(2, 40))
    if rng.random() < 0.5:
        poly.reverse()
    q = pick(rng, tier, {"basic": (3, 6), "intermediate": (20, 60), "complex": (400, 500)})
    xs = [x for x, _ in poly]
    ys = [y for _, y in poly]
    queries = lattice_on_edges(rng, poly, q // 4) + rng.sample(poly, min(len(poly), q // 8))
    while len(queries) < q:
        queries.append((rng.randint(min(xs) - 2, max(xs) + 2), rng.randint(min(ys) - 2, max(ys) + 2)))
    rng.shuffle(queries)
    return lines(f"{len(poly)} {len(queries)}", *(join(p) for p in poly), *(join(p) for p in queries))


PROBLEMS.append(
    Problem(
        slug="fenced-points",
        title="Fenced Points",
        difficulty="hard",
        tags=("geometry", "point-in-polygon"),
        statement="""
            A nature reserve is bounded by a fence shaped as a simple polygon (its
            sides do not cross or touch except at consecutive corners; it need not
            be convex). Rangers report q sightings at integer coordinates; for each
            sighting decide whether it is strictly inside the reserve, strictly
            outside, or exactly on the fence.

            Input
            The first line contains two integers n and q. Each of the next n lines
            contains two integers: the corners of the fence in order (clockwise or
            counter-clockwise). Each of the next q lines contains two integers: the
            coordinates of a sighting.

            Output
            For each sighting print INSIDE, OUTSIDE or BOUNDARY on its own line.

            Constraints
            3 <= n <= 200
            1 <= q <= 500
            All coordinates are between -10^4 and 10^4.
            """,
        reference=src("""
            import sys


            def locate(poly, px, py):
                inside = False
                n = len(poly)
                for i in range(n):
                    x1, y1 = poly[i]
                    x2, y2 = poly[(i + 1) % n]
                    cross = (x2 - x1) * (py - y1) - (px - x1) * (y2 - y1)
                    if cross == 0 and min(x1, x2) <= px <= max(x1, x2) and min(y1, y2) <= py <= max(y1, y2):
                        return "BOUNDARY"
                    if (y1 > py) != (y2 > py):
                        # the edge crosses the horizontal line through the point; is it to the right?
                        if (cross > 0) == (y2 > y1):
                            inside = not inside
                return "INSIDE" if inside else "OUTSIDE"


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, q = data[0], data[1]
                poly = [(data[2 + 2 * i], data[3 + 2 * i]) for i in range(n)]
                base = 2 + 2 * n
                out = [locate(poly, data[base + 2 * j], data[base + 2 * j + 1]) for j in range(q)]
                print("\\n".join(out))


            main()
            """),
        alternative=src("""
            n, q = map(int, input().split())
            poly = [tuple(map(int, input().split())) for _ in range(n)]
            edges = [(poly[i], poly[(i + 1) % n]) for i in range(n)]


            def on_segment(a, b, p):
                (ax, ay), (bx, by), (x, y) = a, b, p
                if (bx - ax) * (y - ay) != (by - ay) * (x - ax):
                    return False
                return (x - ax) * (x - bx) + (y - ay) * (y - by) <= 0


            def winding(p):
                x, y = p
                w = 0
                for (ax, ay), (bx, by) in edges:
                    side = (bx - ax) * (y - ay) - (x - ax) * (by - ay)
                    if ay <= y < by and side > 0:
                        w += 1
                    elif by <= y < ay and side < 0:
                        w -= 1
                return w


            for _ in range(q):
                p = tuple(map(int, input().split()))
                if any(on_segment(a, b, p) for a, b in edges):
                    print("BOUNDARY")
                elif winding(p) != 0:
                    print("INSIDE")
                else:
                    print("OUTSIDE")
            """),
        generator=gen_fenced_points,
        examples=(
            (
                lines("6 4", "0 0", "6 0", "6 2", "2 2", "2 5", "0 5", "1 1", "4 4", "2 3", "6 0"),
                lines("INSIDE", "OUTSIDE", "BOUNDARY", "BOUNDARY"),
            ),
        ),
    )
)

# --- trail-distances ---------------------------------------------------------


def random_tree(rng: random.Random, n: int, shape: str) -> list[tuple[int, int]]:
    labels = list(range(1, n + 1))
    rng.shuffle(labels)
    pairs = []
    for i in range(1, n):
        if shape == "path":
            parent = i - 1
        elif shape == "star":
            parent = 0
        elif shape == "caterpillar":
            parent = i - 1 if i % 2 else max(0, i - 2)
        else:
            parent = rng.randrange(max(0, i - 5) if shape == "deep" else 0, i)
        pairs.append((labels[parent], labels[i]))
    rng.shuffle(pairs)
    return pairs


def gen_trail_distances(rng: random.Random, tier: str) -> str:
    if tier == "edge":
        kind = rng.choice(["single", "pair", "path", "star"])
        if kind == "single":
            return lines("1 2", "1 1", "1 1")
        if kind == "pair":
            w = rng.randint(1, 10**6)
            return lines("2 3", f"2 1 {w}", "1 2", "2 1", "2 2")
        n = 1000
        pairs = random_tree(rng, n, kind)
    else:
        n = pick(rng, tier, {"basic": (3, 8), "intermediate": (30, 200), "complex": (800, 1000)})
        pairs = random_tree(rng, n, rng.choice(["random", "deep", "caterpillar", "path"]))
    q = pick(rng, tier, {"basic": (2, 5), "intermediate": (20, 100), "complex": (800, 1000), "edge": (500, 1000)})
    top = rng.choice([10, 10**6])
    edges = [f"{a} {b} {rng.randint(1, top)}" for a, b in pairs]
    queries = [f"{rng.randint(1, n)} {rng.randint(1, n)}" for _ in range(q)]
    return lines(f"{n} {q}", *edges, *queries)


PROBLEMS.append(
    Problem(
        slug="trail-distances",
        title="Trail Distances",
        difficulty="hard",
        tags=("trees", "lca", "binary-lifting"),
        statement="""
            A national park has n shelters connected by n - 1 two-way trails so
            that every shelter can be reached from every other one in exactly one
            way (the trails form a tree). Trail j connects shelters uj and vj and
            is wj metres long. Hikers ask q questions: how long is the walk from
            shelter a to shelter b?

            Input
            The first line contains two integers n and q. Each of the next n - 1
            lines contains three integers uj, vj and wj. Each of the next q lines
            contains two integers a and b.

            Output
            For each question print the length of the walk on its own line.

            Constraints
            1 <= n <= 1000
            1 <= q <= 1000
            1 <= wj <= 10^6
            1 <= a, b <= n
            """,
        reference=src("""
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                n, q = data[0], data[1]
                adj = [[] for _ in range(n + 1)]
                pos = 2
                for _ in range(n - 1):
                    u, v, w = data[pos:pos + 3]
                    pos += 3
                    adj[u].append((v, w))
                    adj[v].append((u, w))
                levels = max(1, n.bit_length())
                up = [[0] * (n + 1) for _ in range(levels)]
                depth = [0] * (n + 1)
                dist = [0] * (n + 1)
                seen = [False] * (n + 1)
                seen[1] = True
                up[0][1] = 1
                order = [1]
                for v in order:
                    for w, length in adj[v]:
                        if not seen[w]:
                            seen[w] = True
                            up[0][w] = v
                            depth[w] = depth[v] + 1
                            dist[w] = dist[v] + length
                            order.append(w)
                for k in range(1, levels):
                    prev, cur = up[k - 1], up[k]
                    for v in range(1, n + 1):
                        cur[v] = prev[prev[v]]

                def lca(a, b):
                    if depth[a] < depth[b]:
                        a, b = b, a
                    diff = depth[a] - depth[b]
                    k = 0
                    while diff:
                        if diff & 1:
                            a = up[k][a]
                        diff >>= 1
                        k += 1
                    if a == b:
                        return a
                    for k in range(levels - 1, -1, -1):
                        if up[k][a] != up[k][b]:
                            a, b = up[k][a], up[k][b]
                    return up[0][a]

                out = []
                for _ in range(q):
                    a, b = data[pos], data[pos + 1]
                    pos += 2
                    out.append(dist[a] + dist[b] - 2 * dist[lca(a, b)])
                print("\\n".join(map(str, out)))


            main()
            """),
        alternative=src("""
            import sys

            data = sys.stdin.read().split()
            n, q = int(data[0]), int(data[1])
            nbrs = {v: [] for v in range(1, n + 1)}
            idx = 2
            for _ in range(n - 1):
                u, v, w = int(data[idx]), int(data[idx + 1]), int(data[idx + 2])
                idx += 3
                nbrs[u].append((v, w))
                nbrs[v].append((u, w))
            parent = {1: (0, 0)}
            depth = {1: 0}
            stack = [1]
            while stack:
                v = stack.pop()
                for u, w in nbrs[v]:
                    if u not in parent:
                        parent[u] = (v, w)
                        depth[u] = depth[v] + 1
                        stack.append(u)
            answers = []
            for _ in range(q):
                a, b = int(data[idx]), int(data[idx + 1])
                idx += 2
                total = 0
                while depth[a] > depth[b]:
                    a, w = parent[a]
                    total += w
                while depth[b] > depth[a]:
                    b, w = parent[b]
                    total += w
                while a != b:
                    a, wa = parent[a]
                    b, wb = parent[b]
                    total += wa + wb
                answers.append(total)
            print("\\n".join(map(str, answers)))
            """),
        generator=gen_trail_distances,
        examples=((lines("5 3", "1 2 3", "1 3 4", "3 4 2", "3 5 6", "2 4", "4 5", "1 1"), lines(9, 8, 0)),),
    )
)
# ==========================================================================
# Checkers (the same rules the environment uses to grade a submission)
# ==========================================================================


def normalize_exact(text: str) -> list[str]:
    """Lines with trailing whitespace removed and trailing blank lines dropped."""
    return [row.rstrip() for row in text.rstrip().splitlines()]


def numbers_close(got: str, want: str, abs_tol: float, rel_tol: float) -> bool:
    try:
        x, y = float(got), float(want)
    except ValueError:
        return False
    if not (math.isfinite(x) and math.isfinite(y)):
        return False
    diff = abs(x - y)
    return diff <= abs_tol or diff <= rel_tol * abs(y)


def outputs_match(checker: Checker, got: str, want: str) -> bool:
    """Does ``got`` pass for expected output ``want`` under ``checker``?"""
    kind = checker["kind"]
    if kind == "exact":
        return normalize_exact(got) == normalize_exact(want)
    got_tokens, want_tokens = got.split(), want.split()
    if kind == "tokens":
        return got_tokens == want_tokens
    if kind == "float":
        abs_tol, rel_tol = float(checker["abs"]), float(checker["rel"])  # type: ignore[arg-type]
        return len(got_tokens) == len(want_tokens) and all(
            g == w or numbers_close(g, w, abs_tol, rel_tol) for g, w in zip(got_tokens, want_tokens, strict=True)
        )
    raise ValueError(f"unknown checker kind {kind!r}")


# ==========================================================================
# Build and verification
# ==========================================================================


class VerificationError(Exception):
    """A problem failed one of the build checks."""


@dataclass(frozen=True)
class RunResult:
    stdout: str
    seconds: float
    error: str | None  # None when the program exited 0 within the time limit


def run_program(path: Path, stdin: str) -> RunResult:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(path)],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_SECONDS,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return RunResult("", RUN_TIMEOUT_SECONDS, f"timed out after {RUN_TIMEOUT_SECONDS:g} s")
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        return RunResult(proc.stdout, seconds, f"exit code {proc.returncode}: {tail[0]}")
    return RunResult(proc.stdout, seconds, None)


def test_seed(slug: str, index: int, draw: int) -> int:
    """A seed that depends only on the problem, the test index and the redraw count."""
    digest = hashlib.sha256(f"{slug}/{index}/{draw}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def hidden_inputs(problem: Problem) -> list[tuple[str, str]]:
    """Draw the hidden test inputs as (tier, input), skipping repeats of earlier inputs."""
    seen = {given for given, _ in problem.examples}
    drawn: list[tuple[str, str]] = []
    index = 0
    for tier in TIERS:
        for _ in range(HIDDEN_PLAN[tier]):
            for draw in range(MAX_DRAWS_PER_TEST):
                text = problem.generator(random.Random(test_seed(problem.slug, index, draw)), tier)
                if not text.endswith("\n"):
                    text += "\n"
                if text not in seen:
                    break
            else:
                raise VerificationError(f"{tier} test {index}: generator keeps repeating earlier inputs")
            seen.add(text)
            drawn.append((tier, text))
            index += 1
    return drawn


def parse_examples(prompt: str) -> list[tuple[str, str]]:
    """Read the example blocks back out of a rendered prompt."""
    pattern = re.compile(r"^Example \d+\n\nInput\n```\n(.*?)```\n\nOutput\n```\n(.*?)```$", re.S | re.M)
    return pattern.findall(prompt)


def check_static(problem: Problem) -> None:
    """Checks that need no subprocess: metadata, statement shape, syntax."""
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", problem.slug):
        raise VerificationError("slug must be lowercase words joined by '-'")
    if problem.difficulty not in DIFFICULTIES:
        raise VerificationError(f"unknown difficulty {problem.difficulty!r}")
    if not problem.tags or not problem.title:
        raise VerificationError("title and at least one tag are required")
    if problem.checker["kind"] not in ("tokens", "exact", "float"):
        raise VerificationError(f"unknown checker {problem.checker!r}")
    statement = src(problem.statement)
    for section in REQUIRED_SECTIONS:
        if not re.search(rf"^{section}$", statement, re.M):
            raise VerificationError(f"statement lacks a {section!r} section")
    if not 1 <= len(problem.examples) <= 2:
        raise VerificationError("need one or two examples")
    if parse_examples(problem.prompt) != list(problem.examples):
        raise VerificationError("example blocks do not round-trip through the prompt")
    for given, expected in problem.examples:
        if not given.endswith("\n") or not expected.endswith("\n"):
            raise VerificationError("example input and output must end with a newline")
    for name in ("reference", "alternative"):
        try:
            compile(getattr(problem, name), f"<{problem.slug} {name}>", "exec")
        except SyntaxError as error:
            raise VerificationError(f"{name} does not compile: {error}") from error


def canonical(output: str) -> str:
    """Stored form of an expected output: trailing spaces and blank lines trimmed."""
    return "\n".join(normalize_exact(output)) + "\n"


@dataclass
class Built:
    record: dict[str, object]
    slowest: float


def build_problem(number: int, problem: Problem, pool: ThreadPoolExecutor, workdir: Path) -> Built:
    """Verify one problem and return its JSONL record."""
    check_static(problem)
    specs = [("basic", given, False) for given, _ in problem.examples]
    specs += [(tier, given, True) for tier, given in hidden_inputs(problem)]
    if sum(hidden for _, _, hidden in specs) < MIN_HIDDEN:
        raise VerificationError(f"fewer than {MIN_HIDDEN} hidden tests")

    ref_path = workdir / f"{problem.slug}_reference.py"
    alt_path = workdir / f"{problem.slug}_alternative.py"
    ref_path.write_text(problem.reference)
    alt_path.write_text(problem.alternative)
    ref_runs = list(pool.map(lambda spec: run_program(ref_path, spec[1]), specs))
    alt_runs = list(pool.map(lambda spec: run_program(alt_path, spec[1]), specs))

    problems: list[str] = []
    tests: list[dict[str, object]] = []
    for position, ((tier, given, hidden), ref, alt) in enumerate(zip(specs, ref_runs, alt_runs, strict=True)):
        label = f"test {position} ({tier}{', hidden' if hidden else ', example'})"
        if ref.error:
            problems.append(f"{label}: reference {ref.error}")
            continue
        if not ref.stdout.strip():
            problems.append(f"{label}: reference printed nothing")
        if ref.seconds > MAX_REFERENCE_SECONDS:
            problems.append(f"{label}: reference took {ref.seconds:.2f} s")
        expected = canonical(ref.stdout)
        if alt.error:
            problems.append(f"{label}: alternative {alt.error}")
        elif not outputs_match(problem.checker, alt.stdout, expected):
            problems.append(f"{label}: alternative disagrees: {alt.stdout[:80]!r} vs {expected[:80]!r}")
        if not hidden:
            shown = problem.examples[position][1]
            if normalize_exact(shown) != normalize_exact(expected):
                problems.append(f"{label}: statement shows {shown!r} but reference prints {expected!r}")
        tests.append({"input": given, "output": expected, "tier": tier, "hidden": hidden})
    if problems:
        raise VerificationError("; ".join(problems))
    if {t["tier"] for t in tests if t["hidden"]} != set(TIERS):
        raise VerificationError("hidden tests must cover every tier")

    record: dict[str, object] = {
        "task_id": f"{TASK_PREFIX}/{number:03d}-{problem.slug}",
        "title": problem.title,
        "prompt": problem.prompt,
        "difficulty": problem.difficulty,
        "tags": list(problem.tags),
        "checker": dict(problem.checker),
        "reference": problem.reference,
        "reference_language": "python",
        "tests": tests,
    }
    return Built(record, max(run.seconds for run in ref_runs))


def verify(problems: list[Problem]) -> list[dict[str, object]]:
    """Build every record; exit non-zero listing all failures."""
    failures: list[str] = []
    records: list[dict[str, object]] = []
    slowest = 0.0
    slugs = [p.slug for p in problems]
    duplicates = sorted({s for s in slugs if slugs.count(s) > 1})
    if duplicates:
        failures.append(f"duplicate slugs: {duplicates}")
    workers = max(2, os.cpu_count() or 2)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=workers) as pool:
        for number, problem in enumerate(problems, 1):
            try:
                built = build_problem(number, problem, pool, Path(tmp))
            except VerificationError as error:
                failures.append(f"{problem.slug}: {error}")
                continue
            except Exception as error:  # report it and keep checking the rest
                failures.append(f"{problem.slug}: {type(error).__name__}: {error}")
                continue
            records.append(built.record)
            slowest = max(slowest, built.slowest)
    if failures:
        print("verification FAILED:", file=sys.stderr)
        for failure in failures:
            print(f"  - {failure}", file=sys.stderr)
        raise SystemExit(1)
    print(f"verification passed; slowest reference run {slowest:.3f} s")
    return records


def serialize(records: list[dict[str, object]]) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def main() -> int:
    started = time.perf_counter()
    records = verify(PROBLEMS)
    text = serialize(records)
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:
        print(f"verification FAILED: {size} bytes exceeds {MAX_FILE_BYTES}", file=sys.stderr)
        return 1
    OUT_PATH.write_text(text, encoding="utf-8")
    counts = {level: sum(r["difficulty"] == level for r in records) for level in DIFFICULTIES}
    all_tests = [t for r in records for t in r["tests"]]  # type: ignore[attr-defined]
    hidden = sum(bool(t["hidden"]) for t in all_tests)
    print(
        f"wrote {len(records)} problems to {OUT_PATH} ("
        + ", ".join(f"{level} {count}" for level, count in counts.items())
        + f"); {len(all_tests)} tests ({hidden} hidden); {size / 1e6:.2f} MB; "
        + f"{time.perf_counter() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
