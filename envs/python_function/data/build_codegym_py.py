"""Build ``codegym_py.jsonl``: the original codegym-py Python function problems.

Each task below is a prompt (signature + docstring), a reference body, tests
written as call expressions, and one or more plausible wrong implementations.
Expected values are computed by running the reference, so they cannot drift
from it. Before anything is written the script verifies that:

* every prompt is a bare signature + docstring and its ``>>>`` examples pass
  against the reference;
* the reference passes all of its own tests, each in a fresh namespace and
  well under the per-test time budget;
* every wrong implementation fails at least one hidden test;
* a ``return None`` stub fails at least one test.

It exits non-zero if any check fails. Regenerate the JSONL from the repository
root with:

    python envs/python_function/data/build_codegym_py.py
"""

from __future__ import annotations

import ast
import doctest
import io
import json
import signal
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

OUT_PATH = Path(__file__).with_name("codegym_py.jsonl")
TASK_PREFIX = "codegym-py"
DIFFICULTIES = ("easy", "medium", "hard")
TIERS = ("basic", "intermediate", "complex", "edge")
MIN_TESTS, MAX_TESTS = 8, 14
MAX_TEST_SECONDS = 0.05  # hard limit for one reference test
WRONG_TIMEOUT_SECONDS = 1.0  # a wrong implementation that hangs counts as failing


def src(text: str) -> str:
    """Dedent a triple-quoted source block and drop its leading newline."""
    return textwrap.dedent(text).lstrip("\n")


def call(fn: str, *args: object) -> str:
    """Build a call expression from Python values (handy for awkward strings)."""
    return f"{fn}({', '.join(repr(arg) for arg in args)})"


@dataclass(frozen=True)
class Task:
    """One problem: prompt, reference body, tests and known-wrong solutions."""

    slug: str
    entry_point: str
    difficulty: str
    tags: tuple[str, ...]
    prompt: str
    body: str
    public: list[str]  # call expressions; rendered as public "basic" tests
    hidden: list[tuple[str, str]]  # (tier, call expression)
    wrong: list[str]  # complete wrong implementations (build script only)
    imports: str = ""  # imports the reference needs (not part of the prompt)

    @property
    def reference(self) -> str:
        head = src(self.imports) + "\n\n" if self.imports else ""
        return head + src(self.prompt) + textwrap.indent(src(self.body), "    ")


# --------------------------------------------------------------------------
# Easy
# --------------------------------------------------------------------------

EASY: list[Task] = [
    Task(
        slug="count-vowel-runs",
        entry_point="count_vowel_runs",
        difficulty="easy",
        tags=("strings",),
        prompt='''
            def count_vowel_runs(text: str) -> int:
                """Count the maximal runs of consecutive vowels in ``text``.

                Vowels are a, e, i, o and u in either case; ``y`` is not a vowel.
                A run is a stretch of one or more vowels that cannot be extended
                to the left or right. Any other character (letters, spaces,
                punctuation) ends a run.

                >>> count_vowel_runs("beautiful")
                3
                >>> count_vowel_runs("rhythm")
                0
                """
            ''',
        body="""
            runs = 0
            in_run = False
            for ch in text.lower():
                is_vowel = ch in "aeiou"
                if is_vowel and not in_run:
                    runs += 1
                in_run = is_vowel
            return runs
            """,
        public=['count_vowel_runs("beautiful")', 'count_vowel_runs("rhythm")'],
        hidden=[
            ("basic", 'count_vowel_runs("banana")'),
            ("intermediate", 'count_vowel_runs("Queueing theory")'),
            ("intermediate", 'count_vowel_runs("AEIOU and aeiou")'),
            ("complex", 'count_vowel_runs("ab" * 500)'),
            ("complex", 'count_vowel_runs("aaaa" + "b" * 1000 + "EEE")'),
            ("edge", 'count_vowel_runs("")'),
            ("edge", 'count_vowel_runs("a")'),
            ("edge", 'count_vowel_runs("yyy")'),
            ("edge", 'count_vowel_runs("A-E-I")'),
        ],
        wrong=[
            src("""
                def count_vowel_runs(text):
                    runs = 0
                    in_run = False
                    for ch in text:
                        is_vowel = ch in "aeiou"
                        if is_vowel and not in_run:
                            runs += 1
                        in_run = is_vowel
                    return runs
                """),
            src("""
                def count_vowel_runs(text):
                    return sum(1 for ch in text.lower() if ch in "aeiou")
                """),
        ],
    ),
    Task(
        slug="rle-encode",
        entry_point="rle_encode",
        difficulty="easy",
        tags=("strings", "run-length-encoding"),
        prompt='''
            def rle_encode(text: str) -> list[tuple[str, int]]:
                """Run-length encode ``text`` as a list of ``(character, count)`` pairs.

                Each pair describes one maximal block of identical characters, in
                order. Comparison is case-sensitive, so ``"aA"`` is two blocks.

                >>> rle_encode("aaabcc")
                [('a', 3), ('b', 1), ('c', 2)]
                >>> rle_encode("")
                []
                """
            ''',
        body="""
            runs: list[tuple[str, int]] = []
            for ch in text:
                if runs and runs[-1][0] == ch:
                    runs[-1] = (ch, runs[-1][1] + 1)
                else:
                    runs.append((ch, 1))
            return runs
            """,
        public=['rle_encode("aaabcc")', 'rle_encode("")'],
        hidden=[
            ("basic", 'rle_encode("abc")'),
            ("intermediate", 'rle_encode("aAaA")'),
            ("intermediate", 'rle_encode("  x  ")'),
            ("intermediate", 'rle_encode("11122")'),
            ("complex", 'rle_encode("a" * 1000 + "b" * 999)'),
            ("complex", 'rle_encode("ab" * 40)'),
            ("edge", 'rle_encode("x")'),
            ("edge", 'rle_encode("zzzzzzzzzzzzz")'),
        ],
        wrong=[
            src("""
                def rle_encode(text):
                    runs = []
                    count = 0
                    for i, ch in enumerate(text):
                        count += 1
                        if i + 1 < len(text) and text[i + 1] != ch:
                            runs.append((ch, count))
                            count = 0
                    return runs
                """),
            src("""
                def rle_encode(text):
                    runs = []
                    for ch in text:
                        if runs and runs[-1][0].lower() == ch.lower():
                            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
                        else:
                            runs.append((ch, 1))
                    return runs
                """),
        ],
    ),
    Task(
        slug="second-largest-distinct",
        entry_point="second_largest_distinct",
        difficulty="easy",
        tags=("lists", "sorting"),
        prompt='''
            def second_largest_distinct(nums: list[int]) -> int | None:
                """Return the second largest *distinct* value in ``nums``.

                Duplicates count once, so ``[5, 5, 3]`` has second largest 3.
                Return ``None`` when ``nums`` has fewer than two distinct values.

                >>> second_largest_distinct([4, 1, 4, 3])
                3
                >>> print(second_largest_distinct([7, 7]))
                None
                """
            ''',
        body="""
            distinct = sorted(set(nums))
            return distinct[-2] if len(distinct) >= 2 else None
            """,
        public=[
            "second_largest_distinct([4, 1, 4, 3])",
            "second_largest_distinct([7, 7])",
        ],
        hidden=[
            ("basic", "second_largest_distinct([1, 2])"),
            ("intermediate", "second_largest_distinct([10, 9, 10, 8, 9])"),
            ("intermediate", "second_largest_distinct([-3, -1, -2])"),
            ("intermediate", "second_largest_distinct([5, 5, 2])"),
            ("complex", "second_largest_distinct(list(range(1000)))"),
            ("complex", "second_largest_distinct([5] * 300 + [4])"),
            ("edge", "second_largest_distinct([])"),
            ("edge", "second_largest_distinct([42])"),
            ("edge", "second_largest_distinct([-5, -5, -6])"),
            ("edge", "second_largest_distinct([0, -1])"),
        ],
        wrong=[
            src("""
                def second_largest_distinct(nums):
                    if len(nums) < 2:
                        return None
                    return sorted(nums)[-2]
                """),
            src("""
                def second_largest_distinct(nums):
                    first = second = 0
                    for n in nums:
                        if n > first:
                            first, second = n, first
                        elif first > n > second:
                            second = n
                    return second or None
                """),
        ],
    ),
    Task(
        slug="digital-root",
        entry_point="digital_root",
        difficulty="easy",
        tags=("math", "digits"),
        prompt='''
            def digital_root(n: int) -> int:
                """Return the digital root of ``abs(n)``.

                Repeatedly replace the number by the sum of its decimal digits
                until a single digit remains. The sign of ``n`` is ignored and
                ``n`` may be arbitrarily large.

                >>> digital_root(9875)
                2
                >>> digital_root(0)
                0
                """
            ''',
        body="""
            n = abs(n)
            while n >= 10:
                n = sum(int(digit) for digit in str(n))
            return n
            """,
        public=["digital_root(9875)", "digital_root(0)"],
        hidden=[
            ("basic", "digital_root(38)"),
            ("intermediate", "digital_root(10)"),
            ("intermediate", "digital_root(18)"),
            ("intermediate", "digital_root(123456789)"),
            ("intermediate", "digital_root(999999999999)"),
            ("complex", "digital_root(10**50 + 7)"),
            ("complex", "digital_root(2**200)"),
            ("edge", "digital_root(-47)"),
            ("edge", "digital_root(9)"),
            ("edge", "digital_root(-9)"),
            ("edge", "digital_root(5)"),
        ],
        wrong=[
            src("""
                def digital_root(n):
                    return abs(n) % 9
                """),
            src("""
                def digital_root(n):
                    while n >= 10:
                        n = sum(int(digit) for digit in str(n))
                    return n
                """),
        ],
    ),
    Task(
        slug="snake-to-camel",
        entry_point="snake_to_camel",
        difficulty="easy",
        tags=("strings",),
        prompt='''
            def snake_to_camel(name: str) -> str:
                """Convert a snake_case identifier to lowerCamelCase.

                Split ``name`` on underscores and ignore empty pieces (from
                leading, trailing or repeated underscores). The first piece is
                lowercased entirely; every later piece gets an uppercase first
                character and a lowercase rest. With no pieces, return ``""``.

                >>> snake_to_camel("user_id_map")
                'userIdMap'
                >>> snake_to_camel("__HTTP_status__")
                'httpStatus'
                """
            ''',
        body="""
            parts = [part for part in name.split("_") if part]
            if not parts:
                return ""
            rest = "".join(part[0].upper() + part[1:].lower() for part in parts[1:])
            return parts[0].lower() + rest
            """,
        public=['snake_to_camel("user_id_map")', 'snake_to_camel("__HTTP_status__")'],
        hidden=[
            ("basic", 'snake_to_camel("hello")'),
            ("intermediate", 'snake_to_camel("ALREADY_UPPER")'),
            ("intermediate", 'snake_to_camel("version_2_final")'),
            ("intermediate", 'snake_to_camel("a_b_c_d")'),
            ("complex", 'snake_to_camel("_".join(["part"] * 200))'),
            ("complex", 'snake_to_camel("x__" * 50)'),
            ("edge", 'snake_to_camel("_private_name")'),
            ("edge", 'snake_to_camel("___")'),
            ("edge", 'snake_to_camel("")'),
            ("edge", 'snake_to_camel("X")'),
        ],
        wrong=[
            src("""
                def snake_to_camel(name):
                    parts = name.split("_")
                    rest = "".join(p[:1].upper() + p[1:].lower() for p in parts[1:])
                    return parts[0].lower() + rest
                """),
            src("""
                def snake_to_camel(name):
                    parts = [p for p in name.split("_") if p]
                    if not parts:
                        return ""
                    return parts[0].lower() + "".join(p[0].upper() + p[1:] for p in parts[1:])
                """),
        ],
    ),
    Task(
        slug="chunk-list",
        entry_point="chunk_list",
        difficulty="easy",
        tags=("lists",),
        prompt='''
            def chunk_list(items: list, size: int) -> list[list]:
                """Split ``items`` into consecutive chunks of length ``size``.

                The last chunk holds whatever is left and may be shorter; an empty
                list gives no chunks. ``size`` is at least 1. Do not modify
                ``items``.

                >>> chunk_list([1, 2, 3, 4, 5], 2)
                [[1, 2], [3, 4], [5]]
                """
            ''',
        body="""
            return [items[i : i + size] for i in range(0, len(items), size)]
            """,
        public=["chunk_list([1, 2, 3, 4, 5], 2)", 'chunk_list(["a", "b", "c"], 3)'],
        hidden=[
            ("basic", "chunk_list([1, 2, 3, 4], 2)"),
            ("intermediate", "chunk_list([1, 2, 3], 5)"),
            ("intermediate", 'chunk_list(list("abcdefg"), 3)'),
            ("intermediate", "chunk_list([None, True, 0.5], 1)"),
            ("complex", "chunk_list(list(range(100)), 7)"),
            ("complex", "chunk_list(list(range(60)), 60)"),
            ("edge", "chunk_list([], 3)"),
            ("edge", "chunk_list([9], 1)"),
            ("edge", "chunk_list([[1], [2]], 1)"),
        ],
        wrong=[
            src("""
                def chunk_list(items, size):
                    return [items[i : i + size] for i in range(0, len(items) - size + 1, size)]
                """),
            src("""
                def chunk_list(items, size):
                    chunks, current = [], []
                    for item in items:
                        current.append(item)
                        if len(current) == size:
                            chunks.append(current)
                            current = []
                    chunks.append(current)
                    return chunks
                """),
        ],
    ),
    Task(
        slug="running-max",
        entry_point="running_max",
        difficulty="easy",
        tags=("lists", "prefix"),
        prompt='''
            def running_max(nums: list[int]) -> list[int]:
                """Return the running maximum of ``nums``.

                Position ``i`` of the result is the largest value among
                ``nums[0..i]``. The result has the same length as ``nums``.

                >>> running_max([3, 1, 4, 1, 5])
                [3, 3, 4, 4, 5]
                """
            ''',
        body="""
            result: list[int] = []
            for x in nums:
                result.append(x if not result else max(result[-1], x))
            return result
            """,
        public=["running_max([3, 1, 4, 1, 5])", "running_max([1, 2, 3])"],
        hidden=[
            ("basic", "running_max([5, 4, 3])"),
            ("intermediate", "running_max([-5, -7, -2, -9])"),
            ("intermediate", "running_max([0, -1, 3, 3, 2])"),
            ("complex", "running_max(list(range(50, 0, -1)) + list(range(60)))"),
            ("complex", "running_max([i * (-1) ** i for i in range(80)])"),
            ("edge", "running_max([])"),
            ("edge", "running_max([7])"),
            ("edge", "running_max([-1])"),
            ("edge", "running_max([2, 2, 2])"),
        ],
        wrong=[
            src("""
                def running_max(nums):
                    best = 0
                    result = []
                    for x in nums:
                        best = max(best, x)
                        result.append(best)
                    return result
                """),
        ],
    ),
    Task(
        slug="invert-mapping",
        entry_point="invert_mapping",
        difficulty="easy",
        tags=("dicts",),
        prompt='''
            def invert_mapping(mapping: dict[str, int]) -> dict[int, list[str]]:
                """Invert ``mapping`` so that each value maps to the keys that had it.

                Every value of ``mapping`` becomes a key of the result; its entry
                is the list of original keys with that value, sorted in ascending
                (plain string) order.

                >>> invert_mapping({"b": 2, "c": 1, "a": 1})
                {2: ['b'], 1: ['a', 'c']}
                """
            ''',
        body="""
            inverted: dict[int, list[str]] = {}
            for key, value in mapping.items():
                inverted.setdefault(value, []).append(key)
            return {value: sorted(keys) for value, keys in inverted.items()}
            """,
        public=['invert_mapping({"b": 2, "c": 1, "a": 1})', "invert_mapping({})"],
        hidden=[
            ("basic", 'invert_mapping({"x": 5})'),
            ("intermediate", 'invert_mapping({"z": 1, "a": 1})'),
            ("intermediate", 'invert_mapping({"x": -1, "y": -1, "w": 2})'),
            ("intermediate", 'invert_mapping({"k1": 0, "k2": 0, "k3": 0})'),
            (
                "complex",
                'invert_mapping(dict(zip("abcdefghijklmnopqrstuvwxyz", [0, 1, 2, 3] * 7)))',
            ),
            (
                "complex",
                'invert_mapping(dict(zip("zyxwvutsrqponmlkjihgfedcba", [1] * 26)))',
            ),
            ("edge", 'invert_mapping({"": 0})'),
            ("edge", 'invert_mapping({"a": 1, "A": 1})'),
        ],
        wrong=[
            src("""
                def invert_mapping(mapping):
                    inverted = {}
                    for key, value in mapping.items():
                        inverted.setdefault(value, []).append(key)
                    return inverted
                """),
            src("""
                def invert_mapping(mapping):
                    inverted = {}
                    for key, value in mapping.items():
                        inverted[value] = [key]
                    return inverted
                """),
        ],
    ),
    Task(
        slug="bit-difference",
        entry_point="bit_difference",
        difficulty="easy",
        tags=("bit-manipulation",),
        prompt='''
            def bit_difference(a: int, b: int) -> int:
                """Count the bit positions in which ``a`` and ``b`` differ.

                Both numbers are non-negative and may be arbitrarily large.

                >>> bit_difference(1, 4)
                2
                >>> bit_difference(7, 7)
                0
                """
            ''',
        body="""
            return bin(a ^ b).count("1")
            """,
        public=["bit_difference(1, 4)", "bit_difference(7, 7)"],
        hidden=[
            ("basic", "bit_difference(3, 5)"),
            ("intermediate", "bit_difference(0, 255)"),
            ("intermediate", "bit_difference(10, 5)"),
            ("intermediate", "bit_difference(1023, 512)"),
            ("complex", "bit_difference(2**64 - 1, 0)"),
            ("complex", "bit_difference(2**100, 2**99)"),
            ("complex", "bit_difference(12345678901234567890, 98765432109876543210)"),
            ("edge", "bit_difference(0, 0)"),
            ("edge", "bit_difference(1, 0)"),
        ],
        wrong=[
            src("""
                def bit_difference(a, b):
                    return abs(bin(a).count("1") - bin(b).count("1"))
                """),
            src("""
                def bit_difference(a, b):
                    return bin((a ^ b) & 0xFFFFFFFF).count("1")
                """),
        ],
    ),
    Task(
        slug="word-length-histogram",
        entry_point="word_length_histogram",
        difficulty="easy",
        tags=("strings", "dicts", "counting"),
        imports="import re",
        prompt='''
            def word_length_histogram(text: str) -> dict[int, int]:
                """Count how many words of each length occur in ``text``.

                A word is a maximal run of ASCII letters (a-z, A-Z); every other
                character, including digits, apostrophes and punctuation,
                separates words. The result maps word length to the number of
                words of that length, with keys in ascending order.

                >>> word_length_histogram("The cat sat.")
                {3: 3}
                >>> word_length_histogram("Hi, I'm fine!")
                {1: 2, 2: 1, 4: 1}
                """
            ''',
        body="""
            counts: dict[int, int] = {}
            for word in re.findall(r"[A-Za-z]+", text):
                counts[len(word)] = counts.get(len(word), 0) + 1
            return dict(sorted(counts.items()))
            """,
        public=[
            'word_length_histogram("The cat sat.")',
            'word_length_histogram("Hi, I\'m fine!")',
        ],
        hidden=[
            ("basic", 'word_length_histogram("a bb ccc bb a")'),
            ("intermediate", 'word_length_histogram("abc123def")'),
            ("intermediate", "word_length_histogram(\"it's don't\")"),
            ("intermediate", 'word_length_histogram("x,y;z")'),
            ("complex", 'word_length_histogram("word " * 300)'),
            ("complex", 'word_length_histogram("a" * 1000 + " " + "bb " * 10)'),
            ("edge", 'word_length_histogram("")'),
            ("edge", 'word_length_histogram("   ")'),
            ("edge", 'word_length_histogram("Z")'),
        ],
        wrong=[
            src("""
                def word_length_histogram(text):
                    counts = {}
                    for token in text.split():
                        word = token.strip(".,!?;:")
                        if word:
                            counts[len(word)] = counts.get(len(word), 0) + 1
                    return dict(sorted(counts.items()))
                """),
            src("""
                def word_length_histogram(text):
                    counts = {}
                    length = 0
                    for ch in text:
                        if ch.isascii() and ch.isalpha():
                            length += 1
                        elif length:
                            counts[length] = counts.get(length, 0) + 1
                            length = 0
                    return dict(sorted(counts.items()))
                """),
        ],
    ),
    Task(
        slug="longest-increasing-run",
        entry_point="longest_increasing_run",
        difficulty="easy",
        tags=("lists",),
        prompt='''
            def longest_increasing_run(nums: list[int]) -> int:
                """Return the length of the longest strictly increasing contiguous stretch.

                Equal neighbours break a run. An empty list gives 0.

                >>> longest_increasing_run([1, 2, 2, 3, 4, 1])
                3
                >>> longest_increasing_run([5, 4, 3])
                1
                """
            ''',
        body="""
            best = 0
            current = 0
            for i, x in enumerate(nums):
                current = current + 1 if i and nums[i - 1] < x else 1
                best = max(best, current)
            return best
            """,
        public=[
            "longest_increasing_run([1, 2, 2, 3, 4, 1])",
            "longest_increasing_run([5, 4, 3])",
        ],
        hidden=[
            ("basic", "longest_increasing_run([1, 2, 3])"),
            ("intermediate", "longest_increasing_run([3, 1, 2, 3, 4])"),
            ("intermediate", "longest_increasing_run([-3, -2, -1, 0])"),
            ("intermediate", "longest_increasing_run([1, 3, 2, 4, 6, 5])"),
            ("complex", "longest_increasing_run(list(range(500)) + list(range(100)))"),
            ("complex", "longest_increasing_run([1, 0] * 300)"),
            ("edge", "longest_increasing_run([])"),
            ("edge", "longest_increasing_run([9])"),
            ("edge", "longest_increasing_run([5, 5, 5])"),
        ],
        wrong=[
            src("""
                def longest_increasing_run(nums):
                    best = current = 0
                    for i, x in enumerate(nums):
                        current = current + 1 if i and nums[i - 1] <= x else 1
                        best = max(best, current)
                    return best
                """),
            src("""
                def longest_increasing_run(nums):
                    if not nums:
                        return 0
                    best = current = 1
                    for i in range(1, len(nums)):
                        if nums[i - 1] < nums[i]:
                            current += 1
                        else:
                            best = max(best, current)
                            current = 1
                    return best
                """),
        ],
    ),
    Task(
        slug="mask-email",
        entry_point="mask_email",
        difficulty="easy",
        tags=("strings",),
        prompt='''
            def mask_email(email: str) -> str:
                """Hide most of the local part (before the ``@``) of an e-mail address.

                ``email`` contains exactly one ``@`` and a non-empty local part.
                If the local part has 3 or more characters, keep its first and
                last character and replace each character in between with ``*``.
                If it has 1 or 2 characters, replace all of them with ``*``. The
                domain is left unchanged.

                >>> mask_email("john.doe@example.com")
                'j******e@example.com'
                >>> mask_email("al@x.io")
                '**@x.io'
                """
            ''',
        body="""
            local, _, domain = email.partition("@")
            if len(local) <= 2:
                masked = "*" * len(local)
            else:
                masked = local[0] + "*" * (len(local) - 2) + local[-1]
            return masked + "@" + domain
            """,
        public=['mask_email("john.doe@example.com")', 'mask_email("al@x.io")'],
        hidden=[
            ("basic", 'mask_email("abc@d.e")'),
            ("intermediate", 'mask_email("first.last+tag@mail.co.uk")'),
            ("intermediate", 'mask_email("Mixed.Case@Domain.COM")'),
            ("intermediate", 'mask_email("bob@b.org")'),
            ("complex", 'mask_email("x" * 300 + "@y.z")'),
            ("complex", 'mask_email("a.b" * 40 + "@" + "sub." * 10 + "example.org")'),
            ("edge", 'mask_email("a@b.c")'),
            ("edge", 'mask_email("zq@domain.com")'),
        ],
        wrong=[
            src("""
                def mask_email(email):
                    local, _, domain = email.partition("@")
                    return local[0] + "*" * (len(local) - 2) + local[-1] + "@" + domain
                """),
            src("""
                def mask_email(email):
                    local, _, domain = email.partition("@")
                    if len(local) <= 2:
                        return "*" * len(local) + "@" + domain
                    return local[0] + "***" + local[-1] + "@" + domain
                """),
        ],
    ),
    Task(
        slug="sum-of-multiples",
        entry_point="sum_of_multiples",
        difficulty="easy",
        tags=("math",),
        prompt='''
            def sum_of_multiples(limit: int, factors: list[int]) -> int:
                """Sum the integers ``n`` with ``1 <= n < limit`` divisible by any factor.

                Each qualifying ``n`` is counted once, even if several factors
                divide it. Factors that are zero or negative are ignored.

                >>> sum_of_multiples(10, [3, 5])
                23
                >>> sum_of_multiples(20, [0, 7])
                21
                """
            ''',
        body="""
            positive = [f for f in factors if f > 0]
            return sum(n for n in range(1, limit) if any(n % f == 0 for f in positive))
            """,
        public=["sum_of_multiples(10, [3, 5])", "sum_of_multiples(20, [0, 7])"],
        hidden=[
            ("basic", "sum_of_multiples(16, [3, 5])"),
            ("intermediate", "sum_of_multiples(100, [1])"),
            ("intermediate", "sum_of_multiples(10, [3, 3])"),
            ("intermediate", "sum_of_multiples(21, [7])"),
            ("complex", "sum_of_multiples(1000, [3, 5, 7])"),
            ("complex", "sum_of_multiples(5000, [4, 6, -2])"),
            ("edge", "sum_of_multiples(1, [1])"),
            ("edge", "sum_of_multiples(-5, [2])"),
            ("edge", "sum_of_multiples(10, [])"),
        ],
        wrong=[
            src("""
                def sum_of_multiples(limit, factors):
                    total = 0
                    for f in factors:
                        if f > 0:
                            total += sum(range(f, limit, f))
                    return total
                """),
            src("""
                def sum_of_multiples(limit, factors):
                    positive = [f for f in factors if f > 0]
                    return sum(n for n in range(1, limit + 1) if any(n % f == 0 for f in positive))
                """),
        ],
    ),
    Task(
        slug="transpose",
        entry_point="transpose",
        difficulty="easy",
        tags=("matrix", "lists"),
        prompt='''
            def transpose(matrix: list[list[int]]) -> list[list[int]]:
                """Return the transpose of a rectangular matrix as a list of lists.

                Row ``i`` of the result is column ``i`` of ``matrix``. A matrix
                with no rows, or whose rows are empty, transposes to ``[]``.

                >>> transpose([[1, 2, 3], [4, 5, 6]])
                [[1, 4], [2, 5], [3, 6]]
                """
            ''',
        body="""
            return [list(column) for column in zip(*matrix)]
            """,
        public=["transpose([[1, 2, 3], [4, 5, 6]])", "transpose([[1, 2], [3, 4]])"],
        hidden=[
            ("basic", "transpose([[1]])"),
            ("intermediate", "transpose([[1], [2], [3]])"),
            ("intermediate", "transpose([[-1, 0, 1]])"),
            ("intermediate", "transpose([[1, 2], [3, 4], [5, 6]])"),
            (
                "complex",
                "transpose([list(range(i, i + 20)) for i in range(0, 200, 20)])",
            ),
            ("complex", "transpose([[0] * 30, [1] * 30])"),
            ("edge", "transpose([])"),
            ("edge", "transpose([[], []])"),
        ],
        wrong=[
            src("""
                def transpose(matrix):
                    n = len(matrix)
                    return [[matrix[j][i] for j in range(n)] for i in range(n)]
                """),
            src("""
                def transpose(matrix):
                    return list(zip(*matrix))
                """),
        ],
    ),
    Task(
        slug="format-duration",
        entry_point="format_duration",
        difficulty="easy",
        tags=("math", "strings", "formatting"),
        prompt='''
            def format_duration(seconds: int) -> str:
                """Format a non-negative number of seconds as days, hours, minutes, seconds.

                Components are written as ``<n>d``, ``<n>h``, ``<n>m`` and
                ``<n>s`` in that order, separated by single spaces, and
                components equal to zero are left out. Zero seconds is ``"0s"``.

                >>> format_duration(3725)
                '1h 2m 5s'
                >>> format_duration(86400)
                '1d'
                """
            ''',
        body="""
            if seconds == 0:
                return "0s"
            parts: list[str] = []
            for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
                amount, seconds = divmod(seconds, size)
                if amount:
                    parts.append(f"{amount}{unit}")
            return " ".join(parts)
            """,
        public=["format_duration(3725)", "format_duration(86400)"],
        hidden=[
            ("basic", "format_duration(59)"),
            ("intermediate", "format_duration(60)"),
            ("intermediate", "format_duration(90061)"),
            ("intermediate", "format_duration(7201)"),
            ("intermediate", "format_duration(172805)"),
            ("complex", "format_duration(10**9)"),
            ("complex", "format_duration(86399)"),
            ("edge", "format_duration(0)"),
            ("edge", "format_duration(1)"),
        ],
        wrong=[
            src("""
                def format_duration(seconds):
                    d, rest = divmod(seconds, 86400)
                    h, rest = divmod(rest, 3600)
                    m, s = divmod(rest, 60)
                    return f"{d}d {h}h {m}m {s}s"
                """),
            src("""
                def format_duration(seconds):
                    parts = []
                    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
                        amount, seconds = divmod(seconds, size)
                        if amount:
                            parts.append(f"{amount}{unit}")
                    return " ".join(parts)
                """),
        ],
    ),
    Task(
        slug="trimmed-mean",
        entry_point="trimmed_mean",
        difficulty="easy",
        tags=("math", "statistics", "sorting"),
        prompt='''
            def trimmed_mean(values: list[float], trim: int) -> float | None:
                """Return the mean of ``values`` after dropping the extremes.

                Sort the values, drop the ``trim`` smallest and the ``trim``
                largest (``trim >= 0``), and return the arithmetic mean of what
                remains. Return ``None`` if nothing remains.

                >>> trimmed_mean([1.0, 2.0, 3.0, 100.0, -50.0], 1)
                2.0
                >>> print(trimmed_mean([5.0, 6.0], 1))
                None
                """
            ''',
        body="""
            ordered = sorted(values)
            kept = ordered[trim : len(ordered) - trim]
            if not kept:
                return None
            return sum(kept) / len(kept)
            """,
        public=[
            "trimmed_mean([1.0, 2.0, 3.0, 100.0, -50.0], 1)",
            "trimmed_mean([5.0, 6.0], 1)",
        ],
        hidden=[
            ("basic", "trimmed_mean([2.5], 0)"),
            ("intermediate", "trimmed_mean([1.0, 2.0, 3.0, 4.0], 0)"),
            ("intermediate", "trimmed_mean([3.0, 1.0, 2.0], 1)"),
            ("intermediate", "trimmed_mean([1.0, 2.0, 3.0, 4.0], 1)"),
            ("intermediate", "trimmed_mean([-1.5, -2.5, 10.0, 0.0], 1)"),
            ("complex", "trimmed_mean(list(range(1000)), 100)"),
            ("complex", "trimmed_mean([0.1] * 10 + [1e9, -1e9], 2)"),
            ("edge", "trimmed_mean([], 0)"),
            ("edge", "trimmed_mean([1.0] * 3, 2)"),
            ("edge", "trimmed_mean([7.0, 7.0, 7.0], 1)"),
        ],
        wrong=[
            src("""
                def trimmed_mean(values, trim):
                    kept = sorted(values)[trim:-trim]
                    if not kept:
                        return None
                    return sum(kept) / len(kept)
                """),
            src("""
                def trimmed_mean(values, trim):
                    kept = values[trim : len(values) - trim]
                    if not kept:
                        return None
                    return sum(kept) / len(kept)
                """),
        ],
    ),
]

# --------------------------------------------------------------------------
# Medium
# --------------------------------------------------------------------------

MEDIUM: list[Task] = [
    Task(
        slug="rle-decode",
        entry_point="rle_decode",
        difficulty="medium",
        tags=("strings", "parsing", "run-length-encoding"),
        prompt='''
            def rle_decode(encoded: str) -> str:
                """Expand a run-length encoded string.

                ``encoded`` is a sequence of items, each an optional decimal count
                (one or more digits 0-9, possibly 0) followed by one non-digit
                character. The item stands for that character repeated count
                times; a missing count means 1. ``encoded`` never ends with a
                digit.

                >>> rle_decode("3a2bc")
                'aaabbc'
                >>> rle_decode("12x")
                'xxxxxxxxxxxx'
                """
            ''',
        body="""
            pieces: list[str] = []
            count = ""
            for ch in encoded:
                if "0" <= ch <= "9":
                    count += ch
                else:
                    pieces.append(ch * (int(count) if count else 1))
                    count = ""
            return "".join(pieces)
            """,
        public=['rle_decode("3a2bc")', 'rle_decode("12x")'],
        hidden=[
            ("basic", 'rle_decode("abc")'),
            ("intermediate", 'rle_decode("0a3b")'),
            ("intermediate", 'rle_decode("10z")'),
            ("intermediate", 'rle_decode("2 3-")'),
            ("intermediate", 'rle_decode("1a1b1c")'),
            ("complex", 'rle_decode("100a100b")'),
            ("complex", 'rle_decode("3x" * 50 + "2y")'),
            ("edge", 'rle_decode("")'),
            ("edge", 'rle_decode("a")'),
            ("edge", 'rle_decode("01a")'),
        ],
        wrong=[
            src("""
                def rle_decode(encoded):
                    out, count = [], 1
                    for ch in encoded:
                        if ch.isdigit():
                            count = int(ch)
                        else:
                            out.append(ch * count)
                            count = 1
                    return "".join(out)
                """),
            src("""
                def rle_decode(encoded):
                    out, count = [], ""
                    for ch in encoded:
                        if ch.isdigit():
                            count += ch
                        else:
                            out.append(ch * (int(count or "1") or 1))
                            count = ""
                    return "".join(out)
                """),
        ],
    ),
    Task(
        slug="balanced-brackets",
        entry_point="balanced_brackets",
        difficulty="medium",
        tags=("strings", "stack"),
        prompt='''
            def balanced_brackets(text: str) -> bool:
                """Check that the brackets ``()``, ``[]`` and ``{}`` in ``text`` are balanced.

                Every closing bracket must match the most recent unclosed opening
                bracket of the same kind, and nothing may stay open at the end.
                All other characters are ignored.

                >>> balanced_brackets("f(a[1], {b: 2})")
                True
                >>> balanced_brackets("(]")
                False
                """
            ''',
        body="""
            pairs = {")": "(", "]": "[", "}": "{"}
            stack: list[str] = []
            for ch in text:
                if ch in "([{":
                    stack.append(ch)
                elif ch in pairs:
                    if not stack or stack.pop() != pairs[ch]:
                        return False
            return not stack
            """,
        public=['balanced_brackets("f(a[1], {b: 2})")', 'balanced_brackets("(]")'],
        hidden=[
            ("basic", 'balanced_brackets("{[()()]}")'),
            ("intermediate", 'balanced_brackets("([)]")'),
            ("intermediate", 'balanced_brackets("((")'),
            ("intermediate", 'balanced_brackets("))((")'),
            ("intermediate", 'balanced_brackets("no brackets at all")'),
            ("complex", 'balanced_brackets("(" * 500 + ")" * 500)'),
            ("complex", 'balanced_brackets("[]" * 400 + "]")'),
            ("complex", 'balanced_brackets("x" + "{" * 300 + "}" * 299)'),
            ("edge", 'balanced_brackets("")'),
            ("edge", 'balanced_brackets(")")'),
        ],
        wrong=[
            src("""
                def balanced_brackets(text):
                    for opener, closer in ("()", "[]", "{}"):
                        depth = 0
                        for ch in text:
                            if ch == opener:
                                depth += 1
                            elif ch == closer:
                                depth -= 1
                                if depth < 0:
                                    return False
                        if depth:
                            return False
                    return True
                """),
            src("""
                def balanced_brackets(text):
                    pairs = {")": "(", "]": "[", "}": "{"}
                    stack = []
                    for ch in text:
                        if ch in "([{":
                            stack.append(ch)
                        elif ch in pairs:
                            if not stack or stack.pop() != pairs[ch]:
                                return False
                    return True
                """),
        ],
    ),
    Task(
        slug="merge-intervals",
        entry_point="merge_intervals",
        difficulty="medium",
        tags=("intervals", "sorting"),
        prompt='''
            def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
                """Merge overlapping or touching closed intervals.

                Each interval is ``[start, end]`` with ``start <= end``; the input
                is in no particular order. Intervals that overlap or share an
                endpoint (``[1, 3]`` and ``[3, 5]``) merge into one, while
                ``[1, 2]`` and ``[3, 4]`` stay separate. Return the merged
                intervals as new lists, sorted by start.

                >>> merge_intervals([[5, 6], [1, 3], [2, 4]])
                [[1, 4], [5, 6]]
                """
            ''',
        body="""
            merged: list[list[int]] = []
            for start, end in sorted(intervals):
                if merged and start <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], end)
                else:
                    merged.append([start, end])
            return merged
            """,
        public=[
            "merge_intervals([[5, 6], [1, 3], [2, 4]])",
            "merge_intervals([[1, 2], [3, 4]])",
        ],
        hidden=[
            ("basic", "merge_intervals([[3, 4], [1, 2]])"),
            ("intermediate", "merge_intervals([[1, 3], [3, 5]])"),
            ("intermediate", "merge_intervals([[1, 10], [2, 3], [4, 5]])"),
            ("intermediate", "merge_intervals([[-5, -1], [-3, 2], [7, 8]])"),
            ("complex", "merge_intervals([[i, i + 1] for i in range(300)])"),
            (
                "complex",
                "merge_intervals([[i * 10, i * 10 + 5] for i in range(30, 0, -1)])",
            ),
            (
                "complex",
                "merge_intervals([[0, 100]] + [[i, i] for i in range(0, 200, 7)])",
            ),
            ("edge", "merge_intervals([])"),
            ("edge", "merge_intervals([[1, 1]])"),
            ("edge", "merge_intervals([[2, 2], [2, 2]])"),
        ],
        wrong=[
            src("""
                def merge_intervals(intervals):
                    merged = []
                    for start, end in sorted(intervals):
                        if merged and start < merged[-1][1]:
                            merged[-1][1] = max(merged[-1][1], end)
                        else:
                            merged.append([start, end])
                    return merged
                """),
            src("""
                def merge_intervals(intervals):
                    merged = []
                    for start, end in sorted(intervals):
                        if merged and start <= merged[-1][1]:
                            merged[-1][1] = end
                        else:
                            merged.append([start, end])
                    return merged
                """),
        ],
    ),
    Task(
        slug="group-anagrams",
        entry_point="group_anagrams",
        difficulty="medium",
        tags=("strings", "dicts", "hashing"),
        prompt='''
            def group_anagrams(words: list[str]) -> list[list[str]]:
                """Group words that are anagrams of each other.

                Two words are anagrams if they use the same characters the same
                number of times (case-sensitive). Groups appear in the order in
                which their first member appears in ``words``; inside a group,
                words keep their input order, duplicates included.

                >>> group_anagrams(["tea", "eat", "tan", "ate", "nat", "bat"])
                [['tea', 'eat', 'ate'], ['tan', 'nat'], ['bat']]
                """
            ''',
        body="""
            groups: dict[str, list[str]] = {}
            for word in words:
                groups.setdefault("".join(sorted(word)), []).append(word)
            return list(groups.values())
            """,
        public=[
            'group_anagrams(["tea", "eat", "tan", "ate", "nat", "bat"])',
            'group_anagrams(["ab", "ba", "ab"])',
        ],
        hidden=[
            ("basic", 'group_anagrams(["b", "a"])'),
            ("intermediate", 'group_anagrams(["aab", "abb", "bab", "aba"])'),
            ("intermediate", 'group_anagrams(["Tea", "eat", "ate"])'),
            (
                "intermediate",
                'group_anagrams(["listen", "silent", "enlist", "google", "gogole"])',
            ),
            ("complex", 'group_anagrams(["abc", "bca", "cab", "xyz"] * 50)'),
            ("complex", "group_anagrams([str(i) for i in range(100, 200)])"),
            ("edge", "group_anagrams([])"),
            ("edge", 'group_anagrams(["x"])'),
            ("edge", 'group_anagrams(["", ""])'),
        ],
        wrong=[
            src("""
                def group_anagrams(words):
                    groups = {}
                    for word in words:
                        groups.setdefault(frozenset(word), []).append(word)
                    return list(groups.values())
                """),
            src("""
                def group_anagrams(words):
                    groups = {}
                    for word in words:
                        groups.setdefault("".join(sorted(word)), []).append(word)
                    return sorted(groups.values())
                """),
        ],
    ),
    Task(
        slug="spiral-order",
        entry_point="spiral_order",
        difficulty="medium",
        tags=("matrix", "simulation"),
        prompt='''
            def spiral_order(matrix: list[list[int]]) -> list[int]:
                """Read a rectangular matrix in clockwise spiral order.

                Start at the top-left corner, go right along the top row, down
                the right column, left along the bottom row, up the left column,
                and continue inwards until every element has been read exactly
                once. An empty matrix (or one with empty rows) gives ``[]``.

                >>> spiral_order([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
                [1, 2, 3, 6, 9, 8, 7, 4, 5]
                """
            ''',
        body="""
            result: list[int] = []
            if not matrix or not matrix[0]:
                return result
            top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
            while top <= bottom and left <= right:
                for c in range(left, right + 1):
                    result.append(matrix[top][c])
                top += 1
                for r in range(top, bottom + 1):
                    result.append(matrix[r][right])
                right -= 1
                if top <= bottom:
                    for c in range(right, left - 1, -1):
                        result.append(matrix[bottom][c])
                    bottom -= 1
                if left <= right:
                    for r in range(bottom, top - 1, -1):
                        result.append(matrix[r][left])
                    left += 1
            return result
            """,
        public=[
            "spiral_order([[1, 2, 3], [4, 5, 6], [7, 8, 9]])",
            "spiral_order([[1, 2], [3, 4]])",
        ],
        hidden=[
            ("basic", "spiral_order([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])"),
            ("intermediate", "spiral_order([[1], [2], [3]])"),
            ("intermediate", "spiral_order([[1, 2, 3]])"),
            ("intermediate", "spiral_order([[1, 2], [3, 4], [5, 6]])"),
            (
                "complex",
                "spiral_order([list(range(r * 12, r * 12 + 12)) for r in range(10)])",
            ),
            (
                "complex",
                "spiral_order([list(range(r * 3, r * 3 + 3)) for r in range(15)])",
            ),
            ("edge", "spiral_order([])"),
            ("edge", "spiral_order([[]])"),
            ("edge", "spiral_order([[7]])"),
        ],
        wrong=[
            src("""
                def spiral_order(matrix):
                    result = []
                    if not matrix or not matrix[0]:
                        return result
                    top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
                    while top <= bottom and left <= right:
                        for c in range(left, right + 1):
                            result.append(matrix[top][c])
                        top += 1
                        for r in range(top, bottom + 1):
                            result.append(matrix[r][right])
                        right -= 1
                        for c in range(right, left - 1, -1):
                            result.append(matrix[bottom][c])
                        bottom -= 1
                        for r in range(bottom, top - 1, -1):
                            result.append(matrix[r][left])
                        left += 1
                    return result
                """),
        ],
    ),
    Task(
        slug="rotate-grid",
        entry_point="rotate_grid",
        difficulty="medium",
        tags=("matrix", "strings"),
        prompt='''
            def rotate_grid(grid: list[str], turns: int) -> list[str]:
                """Rotate a character grid by 90 degrees clockwise ``turns`` times.

                ``grid`` is a list of equal-length, non-empty strings (rows); an
                empty list is an empty grid. Negative ``turns`` rotate
                counter-clockwise. Return the rotated grid as a new list of rows.

                >>> rotate_grid(["ab", "cd", "ef"], 1)
                ['eca', 'fdb']
                >>> rotate_grid(["ab", "cd"], -1)
                ['bd', 'ac']
                """
            ''',
        body="""
            rows = list(grid)
            for _ in range(turns % 4):
                if not rows:
                    return []
                rows = ["".join(row[c] for row in reversed(rows)) for c in range(len(rows[0]))]
            return rows
            """,
        public=['rotate_grid(["ab", "cd", "ef"], 1)', 'rotate_grid(["ab", "cd"], -1)'],
        hidden=[
            ("basic", 'rotate_grid(["abc"], 1)'),
            ("intermediate", 'rotate_grid(["abc"], 2)'),
            ("intermediate", 'rotate_grid(["ab", "cd"], 4)'),
            ("intermediate", 'rotate_grid(["ab", "cd"], -3)'),
            ("intermediate", 'rotate_grid(["#..", "##.", "#.."], 3)'),
            (
                "complex",
                'rotate_grid(["abcdefghij", "klmnopqrst", "uvwxyz0123"], 10**9 + 1)',
            ),
            ("complex", 'rotate_grid(["0123456789"] * 12, -2)'),
            ("edge", "rotate_grid([], 3)"),
            ("edge", 'rotate_grid(["x"], 7)'),
            ("edge", 'rotate_grid(["xy"], 0)'),
        ],
        wrong=[
            src("""
                def rotate_grid(grid, turns):
                    rows = list(grid)
                    for _ in range(turns):
                        if not rows:
                            return []
                        rows = ["".join(row[c] for row in reversed(rows)) for c in range(len(rows[0]))]
                    return rows
                """),
            src("""
                def rotate_grid(grid, turns):
                    rows = list(grid)
                    for _ in range(turns % 4):
                        if not rows:
                            return []
                        rows = ["".join(row[c] for row in rows) for c in range(len(rows[0]) - 1, -1, -1)]
                    return rows
                """),
        ],
    ),
    Task(
        slug="parse-key-values",
        entry_point="parse_key_values",
        difficulty="medium",
        tags=("strings", "parsing", "dicts"),
        prompt='''
            def parse_key_values(text: str) -> dict[str, str]:
                """Parse ``key=value`` settings separated by semicolons.

                Split ``text`` on ``;``. A segment containing ``=`` is split at its
                first ``=`` into key and value, and both are stripped of
                surrounding whitespace (the value may itself contain ``=``).
                Segments without ``=``, or whose stripped key is empty, are
                skipped. A key that appears again overrides the earlier value.

                >>> parse_key_values("host = db1; port=5432;;debug")
                {'host': 'db1', 'port': '5432'}
                >>> parse_key_values("url=a=b; url = c")
                {'url': 'c'}
                """
            ''',
        body="""
            result: dict[str, str] = {}
            for segment in text.split(";"):
                key, sep, value = segment.partition("=")
                key = key.strip()
                if sep and key:
                    result[key] = value.strip()
            return result
            """,
        public=[
            'parse_key_values("host = db1; port=5432;;debug")',
            'parse_key_values("url=a=b; url = c")',
        ],
        hidden=[
            ("basic", 'parse_key_values("a=1")'),
            ("intermediate", 'parse_key_values(" a = 1 ;b= 2 ")'),
            ("intermediate", 'parse_key_values("=5;k=v")'),
            ("intermediate", 'parse_key_values("q=x=y")'),
            ("intermediate", 'parse_key_values("x=1;x=2;y=3")'),
            (
                "complex",
                'parse_key_values(";".join(str(i) + "=" + str(i * i) for i in range(60)))',
            ),
            (
                "complex",
                'parse_key_values("; ".join(["k = v"] * 300) + "; last = = =")',
            ),
            ("edge", 'parse_key_values("")'),
            ("edge", 'parse_key_values("flag")'),
            ("edge", 'parse_key_values("k=")'),
        ],
        wrong=[
            src("""
                def parse_key_values(text):
                    result = {}
                    for segment in text.split(";"):
                        if "=" in segment:
                            parts = segment.split("=")
                            key = parts[0].strip()
                            if key:
                                result[key] = parts[-1].strip()
                    return result
                """),
            src("""
                def parse_key_values(text):
                    result = {}
                    for segment in text.split(";"):
                        key, sep, value = segment.partition("=")
                        if sep:
                            result[key.strip()] = value.strip()
                    return result
                """),
        ],
    ),
    Task(
        slug="top-k-frequent",
        entry_point="top_k_frequent",
        difficulty="medium",
        tags=("dicts", "sorting", "counting"),
        prompt='''
            def top_k_frequent(words: list[str], k: int) -> list[str]:
                """Return the ``k`` most frequent distinct words.

                Order by count, highest first; words with equal counts are
                ordered by plain string comparison (so ``"B"`` comes before
                ``"a"``). If there are fewer than ``k`` distinct words, return
                them all. ``k`` is non-negative.

                >>> top_k_frequent(["b", "a", "b", "c", "a", "b"], 2)
                ['b', 'a']
                """
            ''',
        body="""
            counts: dict[str, int] = {}
            for word in words:
                counts[word] = counts.get(word, 0) + 1
            ranked = sorted(counts, key=lambda word: (-counts[word], word))
            return ranked[:k]
            """,
        public=[
            'top_k_frequent(["b", "a", "b", "c", "a", "b"], 2)',
            'top_k_frequent(["x", "y"], 5)',
        ],
        hidden=[
            ("basic", 'top_k_frequent(["a", "a", "b"], 1)'),
            ("intermediate", 'top_k_frequent(["z", "y", "x"], 2)'),
            (
                "intermediate",
                'top_k_frequent(["the", "cat", "the", "dog", "cat", "the"], 5)',
            ),
            ("intermediate", 'top_k_frequent(["B", "a", "b", "A"], 4)'),
            ("complex", 'top_k_frequent(["w" + str(i % 37) for i in range(2000)], 5)'),
            ("complex", 'top_k_frequent(list("mississippi river banks") * 20, 4)'),
            ("edge", "top_k_frequent([], 3)"),
            ("edge", 'top_k_frequent(["a"], 0)'),
        ],
        wrong=[
            src("""
                from collections import Counter

                def top_k_frequent(words, k):
                    return [word for word, _ in Counter(words).most_common(k)]
                """),
            src("""
                def top_k_frequent(words, k):
                    counts = {}
                    for word in words:
                        counts[word] = counts.get(word, 0) + 1
                    return sorted(counts, key=lambda w: (counts[w], w), reverse=True)[:k]
                """),
        ],
    ),
    Task(
        slug="shortest-path-length",
        entry_point="shortest_path_length",
        difficulty="medium",
        tags=("graphs", "bfs"),
        imports="from collections import deque",
        prompt='''
            def shortest_path_length(graph: dict[str, list[str]], start: str, goal: str) -> int:
                """Return the fewest edges on a path from ``start`` to ``goal``.

                ``graph`` maps a node to the nodes it has a directed edge to; a
                node may appear only as a target, and such a node has no outgoing
                edges. Return 0 when ``start == goal`` and -1 when ``goal``
                cannot be reached.

                >>> shortest_path_length({"a": ["b", "c"], "b": ["d"], "c": ["d"]}, "a", "d")
                2
                >>> shortest_path_length({"a": ["b"]}, "b", "a")
                -1
                """
            ''',
        body="""
            if start == goal:
                return 0
            seen = {start}
            queue = deque([(start, 0)])
            while queue:
                node, dist = queue.popleft()
                for nxt in graph.get(node, []):
                    if nxt == goal:
                        return dist + 1
                    if nxt not in seen:
                        seen.add(nxt)
                        queue.append((nxt, dist + 1))
            return -1
            """,
        public=[
            'shortest_path_length({"a": ["b", "c"], "b": ["d"], "c": ["d"]}, "a", "d")',
            'shortest_path_length({"a": ["b"]}, "b", "a")',
        ],
        hidden=[
            ("basic", 'shortest_path_length({"a": ["b"], "b": ["c"]}, "a", "c")'),
            (
                "intermediate",
                'shortest_path_length({"a": ["b", "d"], "b": ["c"], "c": ["d"]}, "a", "d")',
            ),
            (
                "intermediate",
                'shortest_path_length({"a": ["b"], "b": ["a"], "c": ["a"]}, "a", "c")',
            ),
            (
                "intermediate",
                'shortest_path_length({"s": ["s", "t"], "t": ["s"]}, "t", "t")',
            ),
            (
                "complex",
                'shortest_path_length({str(i): [str(i + 1)] for i in range(300)}, "0", "300")',
            ),
            (
                "complex",
                'shortest_path_length({str(i): [str(i + 1), str(i * 2)] for i in range(1, 600)}, "1", "599")',
            ),
            ("edge", 'shortest_path_length({}, "x", "x")'),
            ("edge", 'shortest_path_length({}, "x", "y")'),
            ("edge", 'shortest_path_length({"a": ["a"]}, "a", "b")'),
        ],
        wrong=[
            src("""
                def shortest_path_length(graph, start, goal):
                    seen = set()

                    def dfs(node, depth):
                        if node == goal:
                            return depth
                        seen.add(node)
                        for nxt in graph.get(node, []):
                            if nxt not in seen:
                                found = dfs(nxt, depth + 1)
                                if found >= 0:
                                    return found
                        return -1

                    return dfs(start, 0)
                """),
            src("""
                from collections import deque

                def shortest_path_length(graph, start, goal):
                    seen = {start}
                    queue = deque([(start, 0)])
                    while queue:
                        node, dist = queue.popleft()
                        for nxt in graph.get(node, []):
                            if nxt == goal:
                                return dist + 1
                            if nxt not in seen:
                                seen.add(nxt)
                                queue.append((nxt, dist + 1))
                    return -1
                """),
        ],
    ),
    Task(
        slug="coin-change-ways",
        entry_point="coin_change_ways",
        difficulty="medium",
        tags=("dynamic-programming", "math"),
        prompt='''
            def coin_change_ways(amount: int, coins: list[int]) -> int:
                """Count the ways to make ``amount`` from an unlimited supply of coins.

                ``coins`` holds positive denominations; a denomination listed
                more than once still counts once. Two ways are the same if they
                use the same number of coins of each denomination (order does
                not matter). An amount of 0 can be made in exactly one way; a
                negative amount in none.

                >>> coin_change_ways(5, [1, 2, 5])
                4
                >>> coin_change_ways(3, [2])
                0
                """
            ''',
        body="""
            if amount < 0:
                return 0
            ways = [1] + [0] * amount
            for coin in sorted(set(coins)):
                for total in range(coin, amount + 1):
                    ways[total] += ways[total - coin]
            return ways[amount]
            """,
        public=["coin_change_ways(5, [1, 2, 5])", "coin_change_ways(3, [2])"],
        hidden=[
            ("basic", "coin_change_ways(4, [1, 2])"),
            ("intermediate", "coin_change_ways(10, [2, 5, 3, 6])"),
            ("intermediate", "coin_change_ways(4, [1, 1])"),
            ("intermediate", "coin_change_ways(12, [5, 2, 2, 7])"),
            ("complex", "coin_change_ways(500, [1, 2, 5, 10, 20, 50, 100, 200])"),
            ("complex", "coin_change_ways(1000, [3, 7, 11])"),
            ("edge", "coin_change_ways(0, [])"),
            ("edge", "coin_change_ways(3, [])"),
            ("edge", "coin_change_ways(-1, [1])"),
            ("edge", "coin_change_ways(1, [1])"),
        ],
        wrong=[
            src("""
                def coin_change_ways(amount, coins):
                    if amount < 0:
                        return 0
                    ways = [1] + [0] * amount
                    for total in range(1, amount + 1):
                        for coin in set(coins):
                            if coin <= total:
                                ways[total] += ways[total - coin]
                    return ways[amount]
                """),
            src("""
                def coin_change_ways(amount, coins):
                    if amount < 0:
                        return 0
                    ways = [1] + [0] * amount
                    for coin in coins:
                        for total in range(coin, amount + 1):
                            ways[total] += ways[total - coin]
                    return ways[amount]
                """),
        ],
    ),
    Task(
        slug="next-greater",
        entry_point="next_greater",
        difficulty="medium",
        tags=("lists", "stack"),
        prompt='''
            def next_greater(nums: list[int]) -> list[int | None]:
                """For each element, find the first strictly greater element to its right.

                Position ``i`` of the result holds the nearest ``nums[j]`` with
                ``j > i`` and ``nums[j] > nums[i]``, or ``None`` if there is none.

                >>> next_greater([2, 7, 3, 5, 4, 6, 8])
                [7, 8, 5, 6, 6, 8, None]
                """
            ''',
        body="""
            result: list[int | None] = [None] * len(nums)
            stack: list[int] = []
            for i, x in enumerate(nums):
                while stack and nums[stack[-1]] < x:
                    result[stack.pop()] = x
                stack.append(i)
            return result
            """,
        public=["next_greater([2, 7, 3, 5, 4, 6, 8])", "next_greater([1, 2, 3])"],
        hidden=[
            ("basic", "next_greater([5, 4, 3])"),
            ("intermediate", "next_greater([3, 3])"),
            ("intermediate", "next_greater([-2, -5, -1])"),
            ("intermediate", "next_greater([4, 1, 2, 1, 5, 0])"),
            ("complex", "next_greater(list(range(200, 0, -1)) + [201])"),
            ("complex", "next_greater([1, 3, 2] * 60)"),
            ("edge", "next_greater([])"),
            ("edge", "next_greater([1])"),
            ("edge", "next_greater([2, 2, 2, 3])"),
        ],
        wrong=[
            src("""
                def next_greater(nums):
                    result = [None] * len(nums)
                    stack = []
                    for i, x in enumerate(nums):
                        while stack and nums[stack[-1]] <= x:
                            result[stack.pop()] = x
                        stack.append(i)
                    return result
                """),
            src("""
                def next_greater(nums):
                    return [max((y for y in nums[i + 1 :] if y > x), default=None) for i, x in enumerate(nums)]
                """),
        ],
    ),
    Task(
        slug="prime-factors",
        entry_point="prime_factors",
        difficulty="medium",
        tags=("math", "number-theory"),
        prompt='''
            def prime_factors(n: int) -> list[tuple[int, int]]:
                """Return the prime factorisation of ``n`` (``n >= 1``).

                The result lists ``(prime, exponent)`` pairs in ascending order of
                prime; ``1`` has no prime factors.

                >>> prime_factors(360)
                [(2, 3), (3, 2), (5, 1)]
                >>> prime_factors(17)
                [(17, 1)]
                """
            ''',
        body="""
            factors: list[tuple[int, int]] = []
            p = 2
            while p * p <= n:
                if n % p == 0:
                    exponent = 0
                    while n % p == 0:
                        n //= p
                        exponent += 1
                    factors.append((p, exponent))
                p += 1 if p == 2 else 2
            if n > 1:
                factors.append((n, 1))
            return factors
            """,
        public=["prime_factors(360)", "prime_factors(17)"],
        hidden=[
            ("basic", "prime_factors(12)"),
            ("intermediate", "prime_factors(49)"),
            ("intermediate", "prime_factors(1024)"),
            ("intermediate", "prime_factors(30030)"),
            ("intermediate", "prime_factors(14)"),
            ("complex", "prime_factors(600851475143)"),
            ("complex", "prime_factors(2147483647)"),
            ("complex", "prime_factors(2**20 * 3**10 * 1000003)"),
            ("edge", "prime_factors(1)"),
            ("edge", "prime_factors(2)"),
            ("edge", "prime_factors(9)"),
        ],
        wrong=[
            src("""
                def prime_factors(n):
                    factors = []
                    p = 2
                    while p * p <= n:
                        if n % p == 0:
                            exponent = 0
                            while n % p == 0:
                                n //= p
                                exponent += 1
                            factors.append((p, exponent))
                        p += 1
                    return factors
                """),
            src("""
                def prime_factors(n):
                    factors = []
                    p = 2
                    while p * p < n:
                        if n % p == 0:
                            exponent = 0
                            while n % p == 0:
                                n //= p
                                exponent += 1
                            factors.append((p, exponent))
                        p += 1
                    if n > 1:
                        factors.append((n, 1))
                    return factors
                """),
        ],
    ),
    Task(
        slug="sort-versions",
        entry_point="sort_versions",
        difficulty="medium",
        tags=("sorting", "strings", "parsing"),
        prompt='''
            def sort_versions(versions: list[str]) -> list[str]:
                """Sort dotted version strings in ascending numeric order.

                A version is one or more non-negative integers joined by dots
                (leading zeros allowed, so ``"01"`` equals ``"1"``). Compare part
                by part numerically; missing trailing parts count as 0, so
                ``"1.0"`` equals ``"1"``. Versions that compare equal keep their
                input order.

                >>> sort_versions(["1.10", "1.2", "1.2.1", "0.9"])
                ['0.9', '1.2', '1.2.1', '1.10']
                """
            ''',
        body="""
            def key(version: str) -> list[int]:
                parts = [int(part) for part in version.split(".")]
                while parts and parts[-1] == 0:
                    parts.pop()
                return parts

            return sorted(versions, key=key)
            """,
        public=[
            'sort_versions(["1.10", "1.2", "1.2.1", "0.9"])',
            'sort_versions(["3", "2.5", "2.10"])',
        ],
        hidden=[
            ("basic", 'sort_versions(["2", "1"])'),
            ("intermediate", 'sort_versions(["1.0", "1"])'),
            ("intermediate", 'sort_versions(["1.01", "1.1", "1.001"])'),
            ("intermediate", 'sort_versions(["10.0", "9.9.9", "10"])'),
            ("intermediate", 'sort_versions(["0.0.1", "0", "0.1"])'),
            (
                "complex",
                'sort_versions([str(i % 7) + "." + str(i % 11) for i in range(77)])',
            ),
            (
                "complex",
                'sort_versions(["1." + str(i) + ".0" for i in range(40, 0, -3)] + ["1"])',
            ),
            ("edge", "sort_versions([])"),
            ("edge", 'sort_versions(["5"])'),
        ],
        wrong=[
            src("""
                def sort_versions(versions):
                    return sorted(versions, key=lambda v: v.split("."))
                """),
            src("""
                def sort_versions(versions):
                    return sorted(versions, key=lambda v: [int(p) for p in v.split(".")])
                """),
        ],
    ),
    Task(
        slug="convert-base",
        entry_point="convert_base",
        difficulty="medium",
        tags=("math", "strings", "number-bases"),
        prompt='''
            def convert_base(digits: str, from_base: int, to_base: int) -> str:
                """Convert an integer written in ``from_base`` to ``to_base`` (bases 2-36).

                ``digits`` is an optional ``-`` followed by digits ``0-9`` and
                letters (either case, ``a`` = 10 ... ``z`` = 35) valid in
                ``from_base``. The result uses ``0-9`` and uppercase ``A-Z``, has
                no leading zeros, starts with ``-`` for negative values, and is
                ``"0"`` for zero (never ``"-0"``).

                >>> convert_base("ff", 16, 2)
                '11111111'
                >>> convert_base("-101", 2, 10)
                '-5'
                """
            ''',
        body="""
            value = int(digits, from_base)
            if value == 0:
                return "0"
            alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            sign = "-" if value < 0 else ""
            value = abs(value)
            out: list[str] = []
            while value:
                value, remainder = divmod(value, to_base)
                out.append(alphabet[remainder])
            return sign + "".join(reversed(out))
            """,
        public=['convert_base("ff", 16, 2)', 'convert_base("-101", 2, 10)'],
        hidden=[
            ("basic", 'convert_base("255", 10, 16)'),
            ("intermediate", 'convert_base("Zz", 36, 10)'),
            ("intermediate", 'convert_base("1295", 10, 36)'),
            ("intermediate", 'convert_base("777", 8, 8)'),
            ("intermediate", 'convert_base("-255", 10, 16)'),
            ("complex", 'convert_base("1" * 200, 2, 36)'),
            ("complex", 'convert_base("123456789012345678901234567890", 10, 7)'),
            ("edge", 'convert_base("0", 10, 2)'),
            ("edge", 'convert_base("-0", 8, 3)'),
            ("edge", 'convert_base("-1", 10, 2)'),
        ],
        wrong=[
            src("""
                def convert_base(digits, from_base, to_base):
                    value = int(digits, from_base)
                    if value == 0:
                        return "0"
                    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
                    sign = "-" if value < 0 else ""
                    value = abs(value)
                    out = []
                    while value:
                        value, r = divmod(value, to_base)
                        out.append(alphabet[r])
                    return sign + "".join(reversed(out))
                """),
            src("""
                def convert_base(digits, from_base, to_base):
                    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    negative = digits.startswith("-")
                    value = int(digits.lstrip("-"), from_base)
                    out = []
                    while value:
                        value, r = divmod(value, to_base)
                        out.append(alphabet[r])
                    return ("-" if negative else "") + "".join(reversed(out))
                """),
        ],
    ),
    Task(
        slug="wrap-text",
        entry_point="wrap_text",
        difficulty="medium",
        tags=("strings", "greedy"),
        prompt='''
            def wrap_text(text: str, width: int) -> list[str]:
                """Greedily wrap ``text`` into lines of at most ``width`` characters.

                Words are the pieces of ``text`` separated by whitespace. Fill
                each line with as many words as fit, joined by single spaces, so
                that its length stays at most ``width`` (``width >= 1``). A word
                longer than ``width`` goes on a line of its own, unbroken. Text
                without words gives ``[]``.

                >>> wrap_text("the quick brown fox jumps", 10)
                ['the quick', 'brown fox', 'jumps']
                """
            ''',
        body="""
            lines: list[str] = []
            current = ""
            for word in text.split():
                if not current:
                    current = word
                elif len(current) + 1 + len(word) <= width:
                    current += " " + word
                else:
                    lines.append(current)
                    current = word
            if current:
                lines.append(current)
            return lines
            """,
        public=[
            'wrap_text("the quick brown fox jumps", 10)',
            'wrap_text("a bb ccc", 3)',
        ],
        hidden=[
            ("basic", 'wrap_text("ab cd", 5)'),
            ("intermediate", 'wrap_text("ab cd", 4)'),
            ("intermediate", 'wrap_text("extraordinary x", 5)'),
            ("intermediate", call("wrap_text", "  spaced   out\ttext\nhere ", 9)),
            ("intermediate", 'wrap_text("a b c d e", 1)'),
            ("complex", 'wrap_text(" ".join(["word"] * 100), 24)'),
            ("complex", 'wrap_text("lorem ipsum dolor sit amet " * 20, 30)'),
            ("edge", 'wrap_text("", 5)'),
            ("edge", 'wrap_text("   ", 3)'),
            ("edge", 'wrap_text("solo", 1)'),
        ],
        wrong=[
            src("""
                def wrap_text(text, width):
                    lines, current = [], ""
                    for word in text.split():
                        if not current:
                            current = word
                        elif len(current) + 1 + len(word) < width:
                            current += " " + word
                        else:
                            lines.append(current)
                            current = word
                    if current:
                        lines.append(current)
                    return lines
                """),
            src("""
                def wrap_text(text, width):
                    lines, current = [], ""
                    for word in text.split():
                        candidate = (current + " " + word).strip()
                        if len(candidate) <= width:
                            current = candidate
                        else:
                            lines.append(current)
                            current = word
                    if current:
                        lines.append(current)
                    return lines
                """),
        ],
    ),
    Task(
        slug="flatten-dict",
        entry_point="flatten_dict",
        difficulty="medium",
        tags=("dicts", "recursion"),
        prompt='''
            def flatten_dict(data: dict, sep: str = ".") -> dict:
                """Flatten nested dictionaries into one level with joined keys.

                Keys are strings. A value that is a non-empty dict is replaced by
                its own flattened entries, whose keys are the path of keys joined
                with ``sep``. Any other value (including lists and empty dicts)
                is kept as it is under its joined key. Entries come out in
                depth-first order; if two paths give the same joined key, the
                later one wins.

                >>> flatten_dict({"a": 1, "b": {"c": 2, "d": {"e": 3}}})
                {'a': 1, 'b.c': 2, 'b.d.e': 3}
                >>> flatten_dict({"x": {"y": 1}}, "/")
                {'x/y': 1}
                """
            ''',
        body="""
            flat: dict = {}

            def walk(path: tuple[str, ...], node: dict) -> None:
                for key, value in node.items():
                    here = (*path, key)
                    if isinstance(value, dict) and value:
                        walk(here, value)
                    else:
                        flat[sep.join(here)] = value

            walk((), data)
            return flat
            """,
        public=[
            'flatten_dict({"a": 1, "b": {"c": 2, "d": {"e": 3}}})',
            'flatten_dict({"x": {"y": 1}}, "/")',
        ],
        hidden=[
            ("basic", 'flatten_dict({"k": "v"})'),
            ("intermediate", 'flatten_dict({"a": {}, "b": 0})'),
            ("intermediate", 'flatten_dict({"k": [1, {"n": 2}]})'),
            ("intermediate", 'flatten_dict({"a.b": 1, "a": {"b": 2}})'),
            ("intermediate", 'flatten_dict({"p": {"q": {"r": 0}}}, "__")'),
            (
                "complex",
                'flatten_dict({"root": dict(zip("abcdefghij", range(10))), "z": {"y": {"x": None}}})',
            ),
            (
                "complex",
                'flatten_dict({"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": 1}}}}}}}}, "-")',
            ),
            ("edge", "flatten_dict({})"),
            ("edge", 'flatten_dict({"": {"": 1}})'),
        ],
        wrong=[
            src("""
                def flatten_dict(data, sep="."):
                    flat = {}

                    def walk(prefix, node):
                        for key, value in node.items():
                            here = prefix + [key]
                            if isinstance(value, dict):
                                walk(here, value)
                            else:
                                flat[sep.join(here)] = value

                    walk([], data)
                    return flat
                """),
            src("""
                def flatten_dict(data, sep="."):
                    flat = {}

                    def walk(prefix, node):
                        for key, value in node.items():
                            here = prefix + [key]
                            if isinstance(value, dict) and value:
                                walk(here, value)
                            else:
                                flat[".".join(here)] = value

                    walk([], data)
                    return flat
                """),
        ],
    ),
    Task(
        slug="count-islands",
        entry_point="count_islands",
        difficulty="medium",
        tags=("graphs", "grid", "dfs"),
        prompt='''
            def count_islands(grid: list[str]) -> int:
                """Count the islands in a map.

                Each string is a row; ``#`` is land and any other character is
                water. Rows may have different lengths (missing cells are water).
                An island is a group of land cells connected horizontally or
                vertically (not diagonally).

                >>> count_islands(["##..", "#..#", "..##"])
                2
                >>> count_islands(["#.", ".#"])
                2
                """
            ''',
        body="""
            seen: set[tuple[int, int]] = set()
            islands = 0
            for r, row in enumerate(grid):
                for c, cell in enumerate(row):
                    if cell != "#" or (r, c) in seen:
                        continue
                    islands += 1
                    seen.add((r, c))
                    stack = [(r, c)]
                    while stack:
                        y, x = stack.pop()
                        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                            if (
                                0 <= ny < len(grid)
                                and 0 <= nx < len(grid[ny])
                                and grid[ny][nx] == "#"
                                and (ny, nx) not in seen
                            ):
                                seen.add((ny, nx))
                                stack.append((ny, nx))
            return islands
            """,
        public=[
            'count_islands(["##..", "#..#", "..##"])',
            'count_islands(["#.", ".#"])',
        ],
        hidden=[
            ("basic", 'count_islands(["#"])'),
            ("intermediate", 'count_islands(["###", "#.#", "###"])'),
            ("intermediate", 'count_islands(["#.#.#"])'),
            ("intermediate", 'count_islands(["..#.", "###", "#"])'),
            ("intermediate", 'count_islands(["#..", ".#.", "..#"])'),
            ("complex", 'count_islands(["#." * 50] * 50)'),
            ("complex", 'count_islands(["#." * 30, ".#" * 30] * 30)'),
            ("complex", 'count_islands(["#" * 45] * 45)'),
            ("edge", "count_islands([])"),
            ("edge", 'count_islands([""])'),
            ("edge", 'count_islands(["~~~", "..."])'),
        ],
        wrong=[
            src("""
                def count_islands(grid):
                    seen = set()
                    islands = 0
                    for r, row in enumerate(grid):
                        for c, cell in enumerate(row):
                            if cell != "#" or (r, c) in seen:
                                continue
                            islands += 1
                            seen.add((r, c))
                            stack = [(r, c)]
                            while stack:
                                y, x = stack.pop()
                                for dy in (-1, 0, 1):
                                    for dx in (-1, 0, 1):
                                        ny, nx = y + dy, x + dx
                                        if (
                                            0 <= ny < len(grid)
                                            and 0 <= nx < len(grid[ny])
                                            and grid[ny][nx] == "#"
                                            and (ny, nx) not in seen
                                        ):
                                            seen.add((ny, nx))
                                            stack.append((ny, nx))
                    return islands
                """),
            src("""
                def count_islands(grid):
                    seen = set()

                    def sink(y, x):
                        if not (0 <= y < len(grid) and 0 <= x < len(grid[y])):
                            return
                        if grid[y][x] != "#" or (y, x) in seen:
                            return
                        seen.add((y, x))
                        sink(y + 1, x)
                        sink(y - 1, x)
                        sink(y, x + 1)
                        sink(y, x - 1)

                    islands = 0
                    for r, row in enumerate(grid):
                        for c, cell in enumerate(row):
                            if cell == "#" and (r, c) not in seen:
                                islands += 1
                                sink(r, c)
                    return islands
                """),
        ],
    ),
    Task(
        slug="gray-decode",
        entry_point="gray_decode",
        difficulty="medium",
        tags=("bit-manipulation",),
        prompt='''
            def gray_decode(code: int) -> int:
                """Decode a reflected binary Gray code.

                ``code`` is a non-negative integer equal to ``n ^ (n >> 1)`` for
                some non-negative integer ``n``; return that ``n``. Inputs may be
                arbitrarily large.

                >>> gray_decode(3)
                2
                >>> gray_decode(11)
                13
                """
            ''',
        body="""
            n = 0
            while code:
                n ^= code
                code >>= 1
            return n
            """,
        public=["gray_decode(3)", "gray_decode(11)"],
        hidden=[
            ("basic", "gray_decode(1)"),
            ("intermediate", "gray_decode(2)"),
            ("intermediate", "gray_decode(7)"),
            ("intermediate", "gray_decode(255)"),
            ("complex", "gray_decode(2**100)"),
            ("complex", "gray_decode((2**64 - 1) ^ ((2**64 - 1) >> 1))"),
            (
                "complex",
                "gray_decode(12345678901234567890 ^ (12345678901234567890 >> 1))",
            ),
            ("edge", "gray_decode(0)"),
        ],
        wrong=[
            src("""
                def gray_decode(code):
                    return code ^ (code >> 1)
                """),
            src("""
                def gray_decode(code):
                    n = code
                    for shift in (1, 2, 4, 8, 16):
                        n ^= n >> shift
                    return n
                """),
        ],
    ),
]

# --------------------------------------------------------------------------
# Hard
# --------------------------------------------------------------------------

HARD: list[Task] = [
    Task(
        slug="topo-order",
        entry_point="topo_order",
        difficulty="hard",
        tags=("graphs", "topological-sort", "heap"),
        imports="import heapq",
        prompt='''
            def topo_order(graph: dict[str, list[str]]) -> list[str] | None:
                """Order the nodes of a directed graph so every edge points forward.

                ``graph`` maps a node to the nodes it must come before; nodes are
                all keys plus every listed target, and an edge may be listed more
                than once. Among all valid orders return the lexicographically
                smallest one (always take the smallest node whose predecessors
                are all placed). Return ``None`` if the graph has a cycle.

                >>> topo_order({"b": ["a"], "c": ["a"], "a": []})
                ['b', 'c', 'a']
                >>> print(topo_order({"x": ["y"], "y": ["x"]}))
                None
                """
            ''',
        body="""
            nodes = set(graph)
            for targets in graph.values():
                nodes.update(targets)
            indegree = dict.fromkeys(nodes, 0)
            for targets in graph.values():
                for target in targets:
                    indegree[target] += 1
            ready = [node for node in nodes if indegree[node] == 0]
            heapq.heapify(ready)
            order: list[str] = []
            while ready:
                node = heapq.heappop(ready)
                order.append(node)
                for target in graph.get(node, []):
                    indegree[target] -= 1
                    if indegree[target] == 0:
                        heapq.heappush(ready, target)
            return order if len(order) == len(nodes) else None
            """,
        public=[
            'topo_order({"b": ["a"], "c": ["a"], "a": []})',
            'topo_order({"x": ["y"], "y": ["x"]})',
        ],
        hidden=[
            ("basic", 'topo_order({"a": ["b"]})'),
            ("intermediate", 'topo_order({"a": ["d"], "b": ["c"]})'),
            ("intermediate", 'topo_order({"a": ["b", "b"], "c": ["b"]})'),
            (
                "intermediate",
                (
                    'topo_order({"shirt": ["tie", "belt"], "tie": ["jacket"], "pants": ["shoes", "belt"],'
                    ' "belt": ["jacket"], "socks": ["shoes"]})'
                ),
            ),
            (
                "intermediate",
                'topo_order({"a": ["b"], "b": ["c"], "c": ["b"], "d": []})',
            ),
            (
                "complex",
                'topo_order({"n" + str(1000 + i): ["n" + str(999 + i)] for i in range(1, 200)})',
            ),
            (
                "complex",
                'topo_order({"hub": list("zyxwvutsrqponmlkjihgfedcba"), "start": ["hub"]})',
            ),
            ("edge", "topo_order({})"),
            ("edge", 'topo_order({"a": ["a"]})'),
            ("edge", 'topo_order({"solo": []})'),
        ],
        wrong=[
            src("""
                from collections import deque

                def topo_order(graph):
                    nodes = set(graph)
                    for targets in graph.values():
                        nodes.update(targets)
                    indegree = dict.fromkeys(nodes, 0)
                    for targets in graph.values():
                        for t in targets:
                            indegree[t] += 1
                    queue = deque(sorted(n for n in nodes if indegree[n] == 0))
                    order = []
                    while queue:
                        node = queue.popleft()
                        order.append(node)
                        for t in graph.get(node, []):
                            indegree[t] -= 1
                            if indegree[t] == 0:
                                queue.append(t)
                    return order if len(order) == len(nodes) else None
                """),
            src("""
                import heapq

                def topo_order(graph):
                    nodes = set(graph)
                    for targets in graph.values():
                        nodes.update(targets)
                    indegree = dict.fromkeys(nodes, 0)
                    for targets in graph.values():
                        for t in set(targets):
                            indegree[t] += 1
                    ready = sorted(n for n in nodes if indegree[n] == 0)
                    order = []
                    while ready:
                        node = heapq.heappop(ready)
                        order.append(node)
                        for t in graph.get(node, []):
                            indegree[t] -= 1
                            if indegree[t] == 0:
                                heapq.heappush(ready, t)
                    return order if len(order) == len(nodes) else None
                """),
        ],
    ),
    Task(
        slug="eval-arithmetic",
        entry_point="eval_arithmetic",
        difficulty="hard",
        tags=("parsing", "recursion", "math"),
        prompt='''
            def eval_arithmetic(expr: str) -> int:
                """Evaluate an integer arithmetic expression.

                The expression contains non-negative integer literals, the binary
                operators ``+ - * /``, unary ``-`` and ``+``, parentheses and any
                amount of whitespace. ``*`` and ``/`` bind tighter than ``+`` and
                ``-``; operators of equal precedence group left to right. ``/`` is
                integer division that truncates toward zero. The input is always
                valid and never divides by zero. Do not use ``eval``.

                >>> eval_arithmetic("2 + 3 * (4 - 1)")
                11
                >>> eval_arithmetic("-7 / 2")
                -3
                """
            ''',
        body="""
            tokens: list[str] = []
            i = 0
            while i < len(expr):
                ch = expr[i]
                if ch.isspace():
                    i += 1
                elif ch.isdigit():
                    j = i
                    while j < len(expr) and expr[j].isdigit():
                        j += 1
                    tokens.append(expr[i:j])
                    i = j
                else:
                    tokens.append(ch)
                    i += 1
            pos = 0

            def peek() -> str:
                return tokens[pos] if pos < len(tokens) else ""

            def take() -> str:
                nonlocal pos
                pos += 1
                return tokens[pos - 1]

            def expression() -> int:
                value = term()
                while peek() in ("+", "-"):
                    op = take()
                    rhs = term()
                    value = value + rhs if op == "+" else value - rhs
                return value

            def term() -> int:
                value = factor()
                while peek() in ("*", "/"):
                    op = take()
                    rhs = factor()
                    if op == "*":
                        value *= rhs
                    else:
                        quotient = abs(value) // abs(rhs)
                        value = quotient if (value >= 0) == (rhs >= 0) else -quotient
                return value

            def factor() -> int:
                token = take()
                if token == "-":
                    return -factor()
                if token == "+":
                    return factor()
                if token == "(":
                    value = expression()
                    take()  # the closing parenthesis
                    return value
                return int(token)

            return expression()
            """,
        public=['eval_arithmetic("2 + 3 * (4 - 1)")', 'eval_arithmetic("-7 / 2")'],
        hidden=[
            ("basic", 'eval_arithmetic("42")'),
            ("intermediate", 'eval_arithmetic("10 - 4 - 3")'),
            ("intermediate", 'eval_arithmetic("7 / -2")'),
            ("intermediate", 'eval_arithmetic("-(-(3))")'),
            ("intermediate", 'eval_arithmetic("((1+2)*(3+4))/2")'),
            ("intermediate", 'eval_arithmetic("100/7*7")'),
            ("intermediate", 'eval_arithmetic("  8   -2*-3 ")'),
            ("complex", 'eval_arithmetic("1+" * 300 + "1")'),
            ("complex", 'eval_arithmetic("(" * 100 + "2" + ")" * 100)'),
            ("complex", 'eval_arithmetic("2*" * 60 + "1")'),
            ("complex", 'eval_arithmetic("1000000007 * 998244353 - 12345 / 7")'),
            ("edge", 'eval_arithmetic("0")'),
        ],
        wrong=[
            src("""
                def eval_arithmetic(expr):
                    return eval(expr.replace("/", "//"))
                """),
            src("""
                def eval_arithmetic(expr):
                    return int(eval(expr))
                """),
        ],
    ),
    Task(
        slug="cheapest-route",
        entry_point="cheapest_route",
        difficulty="hard",
        tags=("graphs", "dijkstra", "heap"),
        imports="import heapq",
        prompt='''
            def cheapest_route(graph: dict[str, dict[str, int]], start: str, goal: str) -> int:
                """Return the minimum total weight of a path from ``start`` to ``goal``.

                ``graph[u][v]`` is the non-negative integer weight of the directed
                edge ``u -> v``; a node may appear only as a target. Return 0 when
                ``start == goal`` and -1 when ``goal`` is unreachable.

                >>> cheapest_route({"a": {"b": 5, "c": 1}, "c": {"b": 1}}, "a", "b")
                2
                >>> cheapest_route({"a": {"b": 1}}, "b", "a")
                -1
                """
            ''',
        body="""
            best = {start: 0}
            heap = [(0, start)]
            while heap:
                cost, node = heapq.heappop(heap)
                if node == goal:
                    return cost
                if cost > best[node]:
                    continue
                for nxt, weight in graph.get(node, {}).items():
                    new_cost = cost + weight
                    if nxt not in best or new_cost < best[nxt]:
                        best[nxt] = new_cost
                        heapq.heappush(heap, (new_cost, nxt))
            return -1
            """,
        public=[
            'cheapest_route({"a": {"b": 5, "c": 1}, "c": {"b": 1}}, "a", "b")',
            'cheapest_route({"a": {"b": 1}}, "b", "a")',
        ],
        hidden=[
            ("basic", 'cheapest_route({"a": {"b": 3}}, "a", "b")'),
            (
                "intermediate",
                'cheapest_route({"a": {"g": 10, "b": 1}, "b": {"g": 1}}, "a", "g")',
            ),
            (
                "intermediate",
                'cheapest_route({"a": {"b": 0}, "b": {"c": 0}}, "a", "c")',
            ),
            (
                "intermediate",
                'cheapest_route({"a": {"b": 1}, "b": {"a": 1, "c": 5}}, "a", "c")',
            ),
            (
                "intermediate",
                'cheapest_route({"s": {"a": 4, "b": 1}, "b": {"a": 2, "t": 7}, "a": {"t": 1}}, "s", "t")',
            ),
            (
                "complex",
                'cheapest_route({str(i): {str(i + 1): 2, str(i + 2): 3} for i in range(500)}, "0", "500")',
            ),
            (
                "complex",
                'cheapest_route({str(i): {str(i + 1): 1, str(i + 2): 3} for i in range(500)}, "0", "500")',
            ),
            ("edge", 'cheapest_route({}, "a", "a")'),
            ("edge", 'cheapest_route({}, "a", "b")'),
            ("edge", 'cheapest_route({"a": {"a": 4}}, "a", "a")'),
        ],
        wrong=[
            src("""
                from collections import deque

                def cheapest_route(graph, start, goal):
                    queue = deque([(start, 0)])
                    seen = {start}
                    while queue:
                        node, cost = queue.popleft()
                        if node == goal:
                            return cost
                        for nxt, w in graph.get(node, {}).items():
                            if nxt not in seen:
                                seen.add(nxt)
                                queue.append((nxt, cost + w))
                    return -1
                """),
            src("""
                import heapq

                def cheapest_route(graph, start, goal):
                    if start == goal:
                        return 0
                    best = {start: 0}
                    heap = [(0, start)]
                    while heap:
                        cost, node = heapq.heappop(heap)
                        for nxt, w in graph.get(node, {}).items():
                            if nxt == goal:
                                return cost + w
                            if nxt not in best or cost + w < best[nxt]:
                                best[nxt] = cost + w
                                heapq.heappush(heap, (cost + w, nxt))
                    return -1
                """),
        ],
    ),
    Task(
        slug="longest-palindrome",
        entry_point="longest_palindrome",
        difficulty="hard",
        tags=("strings", "palindromes"),
        prompt='''
            def longest_palindrome(text: str) -> str:
                """Return the longest contiguous palindromic substring of ``text``.

                Comparison is case-sensitive. If several palindromes share the
                maximum length, return the leftmost one. The empty string gives
                ``""``.

                >>> longest_palindrome("banana")
                'anana'
                >>> longest_palindrome("abccbx")
                'bccb'
                """
            ''',
        body="""
            best_start, best_len = 0, 0
            n = len(text)
            for center in range(2 * n - 1):
                lo = center // 2
                hi = lo + center % 2
                while lo >= 0 and hi < n and text[lo] == text[hi]:
                    lo -= 1
                    hi += 1
                if hi - lo - 1 > best_len:
                    best_start, best_len = lo + 1, hi - lo - 1
            return text[best_start : best_start + best_len]
            """,
        public=['longest_palindrome("banana")', 'longest_palindrome("abccbx")'],
        hidden=[
            ("basic", 'longest_palindrome("racecar")'),
            ("intermediate", 'longest_palindrome("abc")'),
            ("intermediate", 'longest_palindrome("Aa")'),
            ("intermediate", 'longest_palindrome("xyzzyabcba")'),
            ("intermediate", 'longest_palindrome("noon at the level")'),
            ("complex", 'longest_palindrome("ab" * 150)'),
            ("complex", 'longest_palindrome("abcdefghij" * 30)'),
            ("complex", 'longest_palindrome("x" * 120 + "y" + "x" * 90 + "qq")'),
            ("edge", 'longest_palindrome("")'),
            ("edge", 'longest_palindrome("z")'),
            ("edge", 'longest_palindrome("aabb")'),
        ],
        wrong=[
            src("""
                def longest_palindrome(text):
                    best = ""
                    for center in range(len(text)):
                        lo = hi = center
                        while lo >= 0 and hi < len(text) and text[lo] == text[hi]:
                            lo -= 1
                            hi += 1
                        if hi - lo - 1 > len(best):
                            best = text[lo + 1 : hi]
                    return best
                """),
            src("""
                def longest_palindrome(text):
                    best_start, best_len = 0, 0
                    n = len(text)
                    for center in range(2 * n - 1):
                        lo = center // 2
                        hi = lo + center % 2
                        while lo >= 0 and hi < n and text[lo] == text[hi]:
                            lo -= 1
                            hi += 1
                        if hi - lo - 1 >= best_len:
                            best_start, best_len = lo + 1, hi - lo - 1
                    return text[best_start : best_start + best_len]
                """),
        ],
    ),
    Task(
        slug="common-free-slots",
        entry_point="common_free_slots",
        difficulty="hard",
        tags=("intervals", "sorting", "scheduling"),
        prompt='''
            def common_free_slots(
                schedules: list[list[tuple[int, int]]], day_start: int, day_end: int, min_length: int
            ) -> list[tuple[int, int]]:
                """Find the time slots in a day when nobody is busy.

                ``schedules`` holds one list of busy intervals per person; an
                interval ``(s, e)`` is half-open, ``s <= t < e``. Intervals come in
                any order, may overlap and may reach outside the day. Return the
                maximal free intervals ``(start, end)`` inside
                ``[day_start, day_end)`` whose length ``end - start`` is at least
                ``min_length`` (``min_length >= 1``), sorted by start.

                >>> common_free_slots([[(9, 10), (12, 13)], [(9, 11)]], 8, 14, 1)
                [(8, 9), (11, 12), (13, 14)]
                """
            ''',
        body="""
            busy = sorted(
                (max(s, day_start), min(e, day_end))
                for person in schedules
                for s, e in person
                if min(e, day_end) > max(s, day_start)
            )
            slots: list[tuple[int, int]] = []
            cursor = day_start
            for s, e in busy:
                if s - cursor >= min_length:
                    slots.append((cursor, s))
                cursor = max(cursor, e)
            if day_end - cursor >= min_length:
                slots.append((cursor, day_end))
            return slots
            """,
        public=[
            "common_free_slots([[(9, 10), (12, 13)], [(9, 11)]], 8, 14, 1)",
            "common_free_slots([[(0, 24)]], 8, 18, 1)",
        ],
        hidden=[
            ("basic", "common_free_slots([], 0, 10, 1)"),
            ("intermediate", "common_free_slots([[(5, 9)], [(17, 20)]], 8, 18, 1)"),
            ("intermediate", "common_free_slots([[(9, 17), (10, 11)]], 8, 18, 1)"),
            ("intermediate", "common_free_slots([[(9, 10), (10, 11)]], 8, 12, 1)"),
            ("intermediate", "common_free_slots([[(10, 12)], [(14, 15)]], 8, 18, 2)"),
            ("intermediate", "common_free_slots([[(20, 25)]], 8, 18, 1)"),
            (
                "complex",
                "common_free_slots([[(i, i + 1)] for i in range(0, 100, 2)], 0, 100, 1)",
            ),
            (
                "complex",
                (
                    "common_free_slots([[(i, i + 3) for i in range(0, 300, 10)],"
                    " [(i + 2, i + 5) for i in range(0, 300, 10)]], 1, 299, 3)"
                ),
            ),
            ("edge", "common_free_slots([[]], 0, 10, 11)"),
            ("edge", "common_free_slots([[(3, 4)]], 5, 5, 1)"),
        ],
        wrong=[
            src("""
                def common_free_slots(schedules, day_start, day_end, min_length):
                    busy = sorted(iv for person in schedules for iv in person)
                    slots = []
                    cursor = day_start
                    for s, e in busy:
                        if s - cursor >= min_length:
                            slots.append((cursor, s))
                        cursor = max(cursor, e)
                    if day_end - cursor >= min_length:
                        slots.append((cursor, day_end))
                    return slots
                """),
            src("""
                def common_free_slots(schedules, day_start, day_end, min_length):
                    busy = sorted(
                        (max(s, day_start), min(e, day_end))
                        for person in schedules
                        for s, e in person
                        if min(e, day_end) > max(s, day_start)
                    )
                    slots = []
                    cursor = day_start
                    for s, e in busy:
                        if s - cursor > min_length:
                            slots.append((cursor, s))
                        cursor = max(cursor, e)
                    if day_end - cursor > min_length:
                        slots.append((cursor, day_end))
                    return slots
                """),
            src("""
                def common_free_slots(schedules, day_start, day_end, min_length):
                    busy = sorted(
                        (max(s, day_start), min(e, day_end))
                        for person in schedules
                        for s, e in person
                        if min(e, day_end) > max(s, day_start)
                    )
                    slots = []
                    cursor = day_start
                    for s, e in busy:
                        if s - cursor >= min_length:
                            slots.append((cursor, s))
                        cursor = e
                    if day_end - cursor >= min_length:
                        slots.append((cursor, day_end))
                    return slots
                """),
        ],
    ),
    Task(
        slug="weighted-edit-distance",
        entry_point="weighted_edit_distance",
        difficulty="hard",
        tags=("dynamic-programming", "strings"),
        prompt='''
            def weighted_edit_distance(
                source: str, target: str, insert_cost: int, delete_cost: int, replace_cost: int
            ) -> int:
                """Return the cheapest cost of editing ``source`` into ``target``.

                Allowed edits are inserting one character (``insert_cost``),
                deleting one character (``delete_cost``) and replacing one
                character by a different one (``replace_cost``). All costs are
                non-negative integers; characters that already match cost nothing.

                >>> weighted_edit_distance("kitten", "sitting", 1, 1, 1)
                3
                >>> weighted_edit_distance("abc", "abd", 1, 1, 5)
                2
                """
            ''',
        body="""
            previous = [j * insert_cost for j in range(len(target) + 1)]
            for i in range(1, len(source) + 1):
                current = [i * delete_cost] + [0] * len(target)
                for j in range(1, len(target) + 1):
                    if source[i - 1] == target[j - 1]:
                        diagonal = previous[j - 1]
                    else:
                        diagonal = previous[j - 1] + replace_cost
                    current[j] = min(
                        diagonal,
                        previous[j] + delete_cost,
                        current[j - 1] + insert_cost,
                    )
                previous = current
            return previous[-1]
            """,
        public=[
            'weighted_edit_distance("kitten", "sitting", 1, 1, 1)',
            'weighted_edit_distance("abc", "abd", 1, 1, 5)',
        ],
        hidden=[
            ("basic", 'weighted_edit_distance("abc", "abc", 3, 3, 3)'),
            ("intermediate", 'weighted_edit_distance("", "abc", 2, 7, 1)'),
            ("intermediate", 'weighted_edit_distance("abc", "", 2, 7, 1)'),
            ("intermediate", 'weighted_edit_distance("flaw", "lawn", 1, 1, 1)'),
            ("intermediate", 'weighted_edit_distance("sunday", "saturday", 1, 2, 3)'),
            ("intermediate", 'weighted_edit_distance("aaaa", "bbbb", 1, 1, 3)'),
            (
                "complex",
                'weighted_edit_distance("abcdefghij" * 10, "acegikmoqs" * 10, 1, 2, 2)',
            ),
            ("complex", 'weighted_edit_distance("x" * 120, "y" * 80, 3, 1, 2)'),
            ("edge", 'weighted_edit_distance("", "", 5, 5, 5)'),
            ("edge", 'weighted_edit_distance("a", "", 1, 4, 1)'),
        ],
        wrong=[
            src("""
                def weighted_edit_distance(source, target, insert_cost, delete_cost, replace_cost):
                    prev = [j * delete_cost for j in range(len(target) + 1)]
                    for i in range(1, len(source) + 1):
                        cur = [i * insert_cost] + [0] * len(target)
                        for j in range(1, len(target) + 1):
                            same = source[i - 1] == target[j - 1]
                            cur[j] = min(
                                prev[j - 1] + (0 if same else replace_cost),
                                prev[j] + insert_cost,
                                cur[j - 1] + delete_cost,
                            )
                        prev = cur
                    return prev[-1]
                """),
            src("""
                def weighted_edit_distance(source, target, insert_cost, delete_cost, replace_cost):
                    prev = [j * insert_cost for j in range(len(target) + 1)]
                    for i in range(1, len(source) + 1):
                        cur = [i * delete_cost] + [0] * len(target)
                        for j in range(1, len(target) + 1):
                            cur[j] = min(
                                prev[j - 1] + replace_cost,
                                prev[j] + delete_cost,
                                cur[j - 1] + insert_cost,
                            )
                        prev = cur
                    return prev[-1]
                """),
        ],
    ),
    Task(
        slug="pattern-match",
        entry_point="pattern_match",
        difficulty="hard",
        tags=("dynamic-programming", "strings", "pattern-matching"),
        prompt='''
            def pattern_match(pattern: str, text: str) -> bool:
                """Report whether ``pattern`` matches the whole of ``text``.

                In the pattern, ``.`` matches any single character, ``*`` means
                zero or more repetitions of the element just before it, and ``?``
                means zero or one repetition of the element just before it (an
                element is a literal character or ``.``). Every other character
                matches itself. ``*`` and ``?`` never start the pattern and never
                follow another ``*`` or ``?``.

                >>> pattern_match("a.c*", "abccc")
                True
                >>> pattern_match("colou?r", "color")
                True
                """
            ''',
        body="""
            elements: list[tuple[str, str]] = []
            for ch in pattern:
                if ch in "*?":
                    elements[-1] = (elements[-1][0], ch)
                else:
                    elements.append((ch, ""))
            n = len(text)
            # reach[j] is True when the elements so far can match text[:j].
            reach = [True] + [False] * n
            for ch, quantifier in elements:
                nxt = [False] * (n + 1)
                for j in range(n + 1):
                    if not reach[j]:
                        continue
                    if quantifier != "":
                        nxt[j] = True
                    if j < n and ch in (".", text[j]):
                        nxt[j + 1] = True
                if quantifier == "*":
                    for j in range(n):
                        if nxt[j] and ch in (".", text[j]):
                            nxt[j + 1] = True
                reach = nxt
            return reach[n]
            """,
        public=['pattern_match("a.c*", "abccc")', 'pattern_match("colou?r", "color")'],
        hidden=[
            ("basic", 'pattern_match("abc", "abc")'),
            ("intermediate", 'pattern_match("ab", "abc")'),
            ("intermediate", 'pattern_match("a*a", "aaa")'),
            ("intermediate", 'pattern_match(".*", "")'),
            ("intermediate", 'pattern_match("a?a?a", "a")'),
            ("intermediate", 'pattern_match("c*a*b", "aab")'),
            ("intermediate", 'pattern_match("colou?r", "colouur")'),
            ("complex", 'pattern_match("a*" * 15 + "b", "a" * 40)'),
            ("complex", 'pattern_match(".*x.*y.*z", "q" * 100 + "xyz")'),
            ("complex", 'pattern_match("a?" * 30 + "a" * 30, "a" * 30)'),
            ("edge", 'pattern_match("", "")'),
            ("edge", 'pattern_match("", "a")'),
        ],
        wrong=[
            src("""
                def pattern_match(pattern, text):
                    i = j = 0
                    while i < len(pattern):
                        ch = pattern[i]
                        quant = pattern[i + 1] if i + 1 < len(pattern) and pattern[i + 1] in "*?" else ""
                        if quant == "*":
                            while j < len(text) and ch in (".", text[j]):
                                j += 1
                            i += 2
                        elif quant == "?":
                            if j < len(text) and ch in (".", text[j]):
                                j += 1
                            i += 2
                        else:
                            if j >= len(text) or ch not in (".", text[j]):
                                return False
                            j += 1
                            i += 1
                    return j == len(text)
                """),
            src("""
                def pattern_match(pattern, text):
                    elements = []
                    for ch in pattern:
                        if ch in "*?":
                            elements[-1] = (elements[-1][0], ch)
                        else:
                            elements.append((ch, ""))
                    n = len(text)
                    reach = [True] + [False] * n
                    for ch, q in elements:
                        nxt = [False] * (n + 1)
                        for j in range(n + 1):
                            if not reach[j]:
                                continue
                            if q:
                                nxt[j] = True
                            if j < n and ch in (".", text[j]):
                                nxt[j + 1] = True
                        if q == "*":
                            for j in range(n):
                                if nxt[j] and ch in (".", text[j]):
                                    nxt[j + 1] = True
                        reach = nxt
                    return any(reach)
                """),
        ],
    ),
    Task(
        slug="project-duration",
        entry_point="project_duration",
        difficulty="hard",
        tags=("graphs", "topological-sort", "scheduling", "dynamic-programming"),
        prompt='''
            def project_duration(tasks: dict[str, tuple[int, list[str]]]) -> int:
                """Return the earliest time at which every task can be finished.

                ``tasks`` maps a task name to ``(duration, prerequisites)``, with
                ``duration >= 0``. Work starts at time 0, any number of tasks may
                run at once, and a task may start only when all of its
                prerequisites have finished. Return 0 for no tasks, and -1 if a
                prerequisite is not a task or the prerequisites form a cycle.

                >>> project_duration({"design": (3, []), "build": (5, ["design"]),
                ...                   "docs": (2, ["design"]), "ship": (1, ["build", "docs"])})
                9
                >>> project_duration({"a": (1, ["b"]), "b": (1, ["a"])})
                -1
                """
            ''',
        body="""
            dependents: dict[str, list[str]] = {name: [] for name in tasks}
            waiting: dict[str, int] = {}
            for name, (_, prerequisites) in tasks.items():
                waiting[name] = len(prerequisites)
                for prerequisite in prerequisites:
                    if prerequisite not in tasks:
                        return -1
                    dependents[prerequisite].append(name)
            earliest_start = dict.fromkeys(tasks, 0)
            ready = [name for name, count in waiting.items() if count == 0]
            finished = 0
            makespan = 0
            while ready:
                name = ready.pop()
                finished += 1
                end = earliest_start[name] + tasks[name][0]
                makespan = max(makespan, end)
                for dependent in dependents[name]:
                    earliest_start[dependent] = max(earliest_start[dependent], end)
                    waiting[dependent] -= 1
                    if waiting[dependent] == 0:
                        ready.append(dependent)
            return makespan if finished == len(tasks) else -1
            """,
        public=[
            (
                'project_duration({"design": (3, []), "build": (5, ["design"]),'
                ' "docs": (2, ["design"]), "ship": (1, ["build", "docs"])})'
            ),
            "project_duration({})",
        ],
        hidden=[
            ("basic", 'project_duration({"a": (4, [])})'),
            (
                "intermediate",
                'project_duration({"a": (1, []), "b": (10, []), "c": (2, ["a", "b"])})',
            ),
            ("intermediate", 'project_duration({"x": (3, []), "y": (8, [])})'),
            ("intermediate", 'project_duration({"a": (1, ["b"]), "b": (1, ["a"])})'),
            ("intermediate", 'project_duration({"a": (1, ["ghost"])})'),
            (
                "intermediate",
                'project_duration({"a": (2, []), "b": (3, ["a", "a"]), "c": (0, ["b"])})',
            ),
            (
                "complex",
                'project_duration({"t" + str(i): (i % 5, ["t" + str(i - 1)] if i else []) for i in range(300)})',
            ),
            (
                "complex",
                (
                    'project_duration(dict([("s", (2, []))] + [("w" + str(i), (i, ["s"])) for i in range(100)]'
                    ' + [("end", (1, ["w" + str(i) for i in range(100)]))]))'
                ),
            ),
            ("edge", 'project_duration({"a": (1, ["a"])})'),
            ("edge", 'project_duration({"z": (0, [])})'),
        ],
        wrong=[
            src("""
                def project_duration(tasks):
                    return sum(duration for duration, _ in tasks.values())
                """),
            src("""
                def project_duration(tasks):
                    def finish(name):
                        duration, prerequisites = tasks[name]
                        return duration + (finish(prerequisites[0]) if prerequisites else 0)

                    try:
                        return max((finish(name) for name in tasks), default=0)
                    except (KeyError, RecursionError):
                        return -1
                """),
        ],
    ),
    Task(
        slug="lis-stats",
        entry_point="lis_stats",
        difficulty="hard",
        tags=("dynamic-programming", "lists", "counting"),
        prompt='''
            def lis_stats(nums: list[int]) -> tuple[int, int]:
                """Return the length and count of longest strictly increasing subsequences.

                A subsequence keeps elements in their original order but may skip
                some. Return ``(length, count)`` where ``length`` is the longest
                possible strictly increasing subsequence and ``count`` is how many
                distinct choices of index positions achieve it. An empty list
                gives ``(0, 0)``.

                >>> lis_stats([1, 3, 5, 4, 7])
                (4, 2)
                >>> lis_stats([2, 2, 2])
                (1, 3)
                """
            ''',
        body="""
            if not nums:
                return (0, 0)
            length = [1] * len(nums)
            count = [1] * len(nums)
            for i, x in enumerate(nums):
                for j in range(i):
                    if nums[j] < x:
                        if length[j] + 1 > length[i]:
                            length[i] = length[j] + 1
                            count[i] = count[j]
                        elif length[j] + 1 == length[i]:
                            count[i] += count[j]
            best = max(length)
            return (best, sum(c for n, c in zip(length, count) if n == best))
            """,
        public=["lis_stats([1, 3, 5, 4, 7])", "lis_stats([2, 2, 2])"],
        hidden=[
            ("basic", "lis_stats([1, 2, 3])"),
            ("intermediate", "lis_stats([5, 4, 3, 2, 1])"),
            ("intermediate", "lis_stats([1, 2, 4, 3, 5, 4, 7, 2])"),
            ("intermediate", "lis_stats([-1, -3, 0, -2, 1])"),
            ("complex", "lis_stats(list(range(300)))"),
            ("complex", "lis_stats([3, 2, 1] * 100)"),
            ("complex", "lis_stats([i % 10 for i in range(250)])"),
            ("edge", "lis_stats([])"),
            ("edge", "lis_stats([42])"),
            ("edge", "lis_stats([1, 1, 2, 2])"),
        ],
        wrong=[
            src("""
                def lis_stats(nums):
                    if not nums:
                        return (0, 0)
                    length = [1] * len(nums)
                    count = [1] * len(nums)
                    for i, x in enumerate(nums):
                        for j in range(i):
                            if nums[j] <= x:
                                if length[j] + 1 > length[i]:
                                    length[i] = length[j] + 1
                                    count[i] = count[j]
                                elif length[j] + 1 == length[i]:
                                    count[i] += count[j]
                    best = max(length)
                    return (best, sum(c for n, c in zip(length, count) if n == best))
                """),
            src("""
                def lis_stats(nums):
                    if not nums:
                        return (0, 0)
                    length = [1] * len(nums)
                    count = [1] * len(nums)
                    for i, x in enumerate(nums):
                        for j in range(i):
                            if nums[j] < x and length[j] + 1 >= length[i]:
                                length[i] = length[j] + 1
                                count[i] = count[j]
                    best = max(length)
                    return (best, sum(c for n, c in zip(length, count) if n == best))
                """),
        ],
    ),
    Task(
        slug="parse-csv-line",
        entry_point="parse_csv_line",
        difficulty="hard",
        tags=("parsing", "strings", "state-machine"),
        prompt='''
            def parse_csv_line(line: str) -> list[str]:
                """Split one line of comma-separated values into its fields.

                Fields are separated by commas. A field that starts with a double
                quote is quoted: it runs to the matching closing quote, commas
                inside it are literal, and two double quotes in a row inside it
                stand for one double quote. A quote anywhere else is an ordinary
                character, and unquoted fields are taken exactly as written
                (spaces included). After a closing quote comes a comma or the end
                of the line. An empty line has one empty field.

                >>> parse_csv_line('a,"b,c",d')
                ['a', 'b,c', 'd']
                >>> parse_csv_line('"a ""b"" c",d')
                ['a "b" c', 'd']
                """
            ''',
        body="""
            fields: list[str] = []
            i, n = 0, len(line)
            while True:
                if i < n and line[i] == '"':
                    i += 1
                    chars: list[str] = []
                    while i < n:
                        if line[i] != '"':
                            chars.append(line[i])
                            i += 1
                        elif i + 1 < n and line[i + 1] == '"':
                            chars.append('"')
                            i += 2
                        else:
                            i += 1  # closing quote
                            break
                    fields.append("".join(chars))
                else:
                    comma = line.find(",", i)
                    end = n if comma == -1 else comma
                    fields.append(line[i:end])
                    i = end
                if i >= n:
                    return fields
                i += 1  # skip the comma; a trailing comma yields one more empty field
            """,
        public=[
            call("parse_csv_line", 'a,"b,c",d'),
            call("parse_csv_line", '"a ""b"" c",d'),
        ],
        hidden=[
            ("basic", call("parse_csv_line", "x,y,z")),
            ("intermediate", call("parse_csv_line", " x , y ")),
            ("intermediate", call("parse_csv_line", 'ab"c,d')),
            ("intermediate", call("parse_csv_line", '"""",x')),
            ("intermediate", call("parse_csv_line", '"a,b"')),
            ("intermediate", call("parse_csv_line", "1,,3,")),
            (
                "complex",
                call("parse_csv_line", ",".join(f'"q,{i}"' for i in range(60))),
            ),
            (
                "complex",
                call("parse_csv_line", '"' + '""' * 100 + '",' + "plain " * 20),
            ),
            ("edge", call("parse_csv_line", "")),
            ("edge", call("parse_csv_line", '""')),
            ("edge", call("parse_csv_line", ",")),
        ],
        wrong=[
            src("""
                def parse_csv_line(line):
                    fields, chars, quoted = [], [], False
                    for ch in line:
                        if ch == '"':
                            quoted = not quoted
                        elif ch == "," and not quoted:
                            fields.append("".join(chars))
                            chars = []
                        else:
                            chars.append(ch)
                    fields.append("".join(chars))
                    return fields
                """),
            src("""
                import csv

                def parse_csv_line(line):
                    rows = list(csv.reader([line], skipinitialspace=True))
                    return [field.strip() for field in rows[0]] if rows and rows[0] else [""]
                """),
        ],
    ),
    Task(
        slug="two-coloring",
        entry_point="two_coloring",
        difficulty="hard",
        tags=("graphs", "bipartite", "dfs"),
        prompt='''
            def two_coloring(graph: dict[int, list[int]]) -> tuple[list[int], list[int]] | None:
                """Split an undirected graph into two sides so every edge crosses sides.

                ``graph`` lists edges as adjacency; an edge may be listed from one
                end only, and nodes are all keys plus every listed neighbour. In
                each connected component the smallest node goes to side 0, and
                the rest of the component follows from that. Return
                ``(sorted side-0 nodes, sorted side-1 nodes)``, or ``None`` if no
                such split exists (for example an odd cycle or a self-loop).

                >>> two_coloring({1: [2], 2: [3], 3: []})
                ([1, 3], [2])
                >>> print(two_coloring({1: [2, 3], 2: [3]}))
                None
                """
            ''',
        body="""
            adjacency: dict[int, set[int]] = {}
            for node, neighbours in graph.items():
                adjacency.setdefault(node, set())
                for other in neighbours:
                    adjacency[node].add(other)
                    adjacency.setdefault(other, set()).add(node)
            side: dict[int, int] = {}
            for root in sorted(adjacency):
                if root in side:
                    continue
                side[root] = 0
                stack = [root]
                while stack:
                    node = stack.pop()
                    for other in adjacency[node]:
                        if other not in side:
                            side[other] = 1 - side[node]
                            stack.append(other)
                        elif side[other] == side[node]:
                            return None
            zero = sorted(node for node, s in side.items() if s == 0)
            one = sorted(node for node, s in side.items() if s == 1)
            return (zero, one)
            """,
        public=[
            "two_coloring({1: [2], 2: [3], 3: []})",
            "two_coloring({1: [2, 3], 2: [3]})",
        ],
        hidden=[
            ("basic", "two_coloring({0: []})"),
            ("intermediate", "two_coloring({1: [], 2: [1]})"),
            ("intermediate", "two_coloring({5: [1]})"),
            ("intermediate", "two_coloring({1: [2], 2: [3], 3: [4], 4: [1]})"),
            ("intermediate", "two_coloring({1: [2], 2: [3], 3: [4], 4: [5], 5: [1]})"),
            ("intermediate", "two_coloring({10: [11], 3: [4]})"),
            ("complex", "two_coloring({i: [i + 1] for i in range(299)})"),
            ("complex", "two_coloring({0: list(range(1, 200)), 150: [199]})"),
            ("edge", "two_coloring({})"),
            ("edge", "two_coloring({1: [1]})"),
            ("edge", "two_coloring({-1: [-2]})"),
        ],
        wrong=[
            src("""
                def two_coloring(graph):
                    nodes = set(graph)
                    for neighbours in graph.values():
                        nodes.update(neighbours)
                    side = {}
                    for root in sorted(nodes):
                        if root in side:
                            continue
                        side[root] = 0
                        stack = [root]
                        while stack:
                            node = stack.pop()
                            for other in graph.get(node, []):
                                if other not in side:
                                    side[other] = 1 - side[node]
                                    stack.append(other)
                                elif side[other] == side[node]:
                                    return None
                    return (
                        sorted(n for n, s in side.items() if s == 0),
                        sorted(n for n, s in side.items() if s == 1),
                    )
                """),
            src("""
                def two_coloring(graph):
                    adjacency = {}
                    for node, neighbours in graph.items():
                        adjacency.setdefault(node, set())
                        for other in neighbours:
                            adjacency[node].add(other)
                            adjacency.setdefault(other, set()).add(node)
                    side = {}
                    for root in adjacency:
                        if root in side:
                            continue
                        side[root] = 0
                        stack = [root]
                        while stack:
                            node = stack.pop()
                            for other in adjacency[node]:
                                if other not in side:
                                    side[other] = 1 - side[node]
                                    stack.append(other)
                                elif side[other] == side[node]:
                                    return None
                    return (
                        sorted(n for n, s in side.items() if s == 0),
                        sorted(n for n, s in side.items() if s == 1),
                    )
                """),
        ],
    ),
    Task(
        slug="max-weight-schedule",
        entry_point="max_weight_schedule",
        difficulty="hard",
        tags=("dynamic-programming", "intervals", "binary-search"),
        imports="import bisect",
        prompt='''
            def max_weight_schedule(jobs: list[tuple[int, int, int]]) -> int:
                """Choose non-overlapping jobs with the largest total weight.

                Each job is ``(start, end, weight)`` with ``start < end`` and
                ``weight >= 0``, occupying the half-open time range
                ``[start, end)``; a job ending at ``t`` is compatible with one
                starting at ``t``. Return the best total weight (0 for no jobs).

                >>> max_weight_schedule([(1, 3, 5), (2, 5, 6), (4, 6, 5), (6, 7, 4)])
                14
                """
            ''',
        body="""
            ordered = sorted(jobs, key=lambda job: job[1])
            ends = [job[1] for job in ordered]
            best = [0] * (len(ordered) + 1)
            for i, (start, _, weight) in enumerate(ordered, 1):
                compatible = bisect.bisect_right(ends, start, 0, i - 1)
                best[i] = max(best[i - 1], best[compatible] + weight)
            return best[-1]
            """,
        public=[
            "max_weight_schedule([(1, 3, 5), (2, 5, 6), (4, 6, 5), (6, 7, 4)])",
            "max_weight_schedule([])",
        ],
        hidden=[
            ("basic", "max_weight_schedule([(0, 5, 3)])"),
            (
                "intermediate",
                "max_weight_schedule([(0, 10, 100), (0, 1, 1), (1, 2, 1)])",
            ),
            ("intermediate", "max_weight_schedule([(1, 2, 5), (2, 3, 5)])"),
            (
                "intermediate",
                "max_weight_schedule([(1, 4, 3), (2, 6, 5), (4, 7, 4), (6, 8, 2)])",
            ),
            ("intermediate", "max_weight_schedule([(0, 3, 4), (0, 3, 6)])"),
            (
                "complex",
                "max_weight_schedule([(i, i + 3, i % 7 + 1) for i in range(500)])",
            ),
            (
                "complex",
                "max_weight_schedule([(i, i + 1, 1) for i in range(999, -1, -1)])",
            ),
            ("edge", "max_weight_schedule([(5, 6, 0)])"),
            ("edge", "max_weight_schedule([(3, 4, 2), (3, 4, 2)])"),
        ],
        wrong=[
            src("""
                def max_weight_schedule(jobs):
                    total, free_at = 0, None
                    for start, end, weight in sorted(jobs, key=lambda job: job[1]):
                        if free_at is None or start >= free_at:
                            total += weight
                            free_at = end
                    return total
                """),
            src("""
                import bisect

                def max_weight_schedule(jobs):
                    ordered = sorted(jobs, key=lambda job: job[1])
                    ends = [job[1] for job in ordered]
                    best = [0] * (len(ordered) + 1)
                    for i, (start, _, weight) in enumerate(ordered, 1):
                        k = bisect.bisect_left(ends, start, 0, i - 1)
                        best[i] = max(best[i - 1], best[k] + weight)
                    return best[-1]
                """),
        ],
    ),
    Task(
        slug="decode-nested",
        entry_point="decode_nested",
        difficulty="hard",
        tags=("strings", "stack", "parsing"),
        prompt='''
            def decode_nested(encoded: str) -> str:
                """Expand nested repeat groups.

                ``encoded`` consists of letters and groups ``k[...]``, where ``k``
                is a positive decimal number (possibly several digits) and the
                brackets hold another encoded string, repeated ``k`` times.
                Groups may nest. The input is always well formed.

                >>> decode_nested("3[ab]c")
                'abababc'
                >>> decode_nested("2[x2[y]]")
                'xyyxyy'
                """
            ''',
        body="""
            stack: list[tuple[list[str], int]] = []
            current: list[str] = []
            count = 0
            for ch in encoded:
                if "0" <= ch <= "9":
                    count = count * 10 + int(ch)
                elif ch == "[":
                    stack.append((current, count))
                    current, count = [], 0
                elif ch == "]":
                    outer, repeat = stack.pop()
                    outer.append("".join(current) * repeat)
                    current = outer
                else:
                    current.append(ch)
            return "".join(current)
            """,
        public=['decode_nested("3[ab]c")', 'decode_nested("2[x2[y]]")'],
        hidden=[
            ("basic", 'decode_nested("abc")'),
            ("intermediate", 'decode_nested("10[z]")'),
            ("intermediate", 'decode_nested("2[a]2[b]")'),
            ("intermediate", 'decode_nested("3[a2[c]]")'),
            ("intermediate", 'decode_nested("2[2[2[q]]]x")'),
            ("complex", 'decode_nested("100[ab]")'),
            ("complex", 'decode_nested("5[4[3[2[x]y]z]w]")'),
            ("complex", 'decode_nested("2[" * 8 + "k" + "]" * 8)'),
            ("edge", 'decode_nested("")'),
            ("edge", 'decode_nested("1[a]")'),
        ],
        wrong=[
            src("""
                def decode_nested(encoded):
                    stack, current, count = [], [], 0
                    for ch in encoded:
                        if ch.isdigit():
                            count = int(ch)
                        elif ch == "[":
                            stack.append((current, count))
                            current, count = [], 0
                        elif ch == "]":
                            outer, repeat = stack.pop()
                            outer.append("".join(current) * repeat)
                            current = outer
                        else:
                            current.append(ch)
                    return "".join(current)
                """),
            src(r"""
                import re

                def decode_nested(encoded):
                    return re.sub(r"(\d+)\[([a-z]*)\]", lambda m: m.group(2) * int(m.group(1)), encoded)
                """),
        ],
    ),
]

TASKS: list[Task] = EASY + MEDIUM + HARD


# --------------------------------------------------------------------------
# Verification
# --------------------------------------------------------------------------


class VerificationError(Exception):
    """A task definition failed one of the build checks."""


class _Timeout(Exception):
    pass


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``_Timeout`` inside the block after ``seconds`` of wall time."""

    def on_alarm(signum: int, frame: object) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def to_literal(value: object) -> str:
    """Python source for ``value``; sets are written sorted so output is stable."""
    if isinstance(value, (set, frozenset)):
        items = sorted((to_literal(item) for item in value), key=str)
        body = "{" + ", ".join(items) + "}" if items else ""
        if isinstance(value, frozenset):
            return f"frozenset({body})"
        return body or "set()"
    if isinstance(value, list):
        return "[" + ", ".join(to_literal(item) for item in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(to_literal(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        pairs = (f"{to_literal(k)}: {to_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return repr(value)
    raise VerificationError(f"unsupported value type {type(value).__name__}")


def render_assert(call_expr: str, expected: object) -> str:
    """One assert statement comparing ``call_expr`` with ``expected``."""
    if expected is None or isinstance(expected, bool):
        return f"assert {call_expr} is {expected!r}"
    if isinstance(expected, float):
        return f"assert abs({call_expr} - {expected!r}) < 1e-9"
    return f"assert {call_expr} == {to_literal(expected)}"


def load(source: str, entry_point: str) -> dict:
    """Exec ``source`` in a fresh namespace and check it defines ``entry_point``."""
    namespace: dict = {"__name__": "codegym_task"}
    exec(compile(source, "<task>", "exec"), namespace)
    if not callable(namespace.get(entry_point)):
        raise VerificationError(f"source does not define {entry_point}()")
    return namespace


def passes(source: str, entry_point: str, assertion: str, timeout: float) -> bool:
    """Whether ``assertion`` holds for ``source``, run in a fresh namespace."""
    try:
        with time_limit(timeout):
            namespace = load(source, entry_point)
            exec(assertion, namespace)
    except Exception:  # any failure, timeout included, means "fails"
        return False
    return True


def check_prompt(task: Task) -> None:
    """The prompt must be only imports plus a signature with a docstring."""
    prompt = src(task.prompt)
    if not prompt.endswith("\n"):
        raise VerificationError("prompt must end with a newline")
    tree = ast.parse(prompt)
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    others = [node for node in tree.body if not isinstance(node, (ast.FunctionDef, ast.Import, ast.ImportFrom))]
    if len(functions) != 1 or others or functions[0].name != task.entry_point:
        raise VerificationError("prompt must define exactly the entry point")
    body = functions[0].body
    if len(body) != 1 or ast.get_docstring(functions[0]) is None:
        raise VerificationError("prompt function must contain only a docstring")
    if ">>>" not in prompt:
        raise VerificationError("prompt docstring needs at least one >>> example")


def check_doctests(task: Task) -> None:
    """Run the docstring examples of the prompt against the reference."""
    namespace = load(task.reference, task.entry_point)
    docstring = namespace[task.entry_point].__doc__ or ""
    test = doctest.DocTestParser().get_doctest(docstring, namespace, task.slug, None, 0)
    output = io.StringIO()
    result = doctest.DocTestRunner(verbose=False).run(test, out=output.write)
    if result.attempted == 0 or result.failed:
        raise VerificationError(f"docstring examples fail:\n{output.getvalue()}")


def build_tests(task: Task) -> list[dict]:
    """Compute expected values with the reference and render the test records."""
    specs = [(call_expr, "basic", False) for call_expr in task.public]
    specs += [(call_expr, tier, True) for tier, call_expr in task.hidden]
    if not MIN_TESTS <= len(specs) <= MAX_TESTS:
        raise VerificationError(f"{len(specs)} tests; need {MIN_TESTS}..{MAX_TESTS}")
    if not 2 <= len(task.public) <= 3:
        raise VerificationError("need 2 or 3 public tests")
    hidden_tiers = {tier for tier, _ in task.hidden}
    if hidden_tiers != set(TIERS):
        raise VerificationError(f"hidden tiers {sorted(hidden_tiers)} must be {list(TIERS)}")

    namespace = load(task.reference, task.entry_point)
    tests = []
    for call_expr, tier, hidden in specs:
        expected = eval(call_expr, dict(namespace))
        literal = to_literal(expected)
        roundtrip = eval(literal)
        if roundtrip != expected or type(roundtrip) is not type(expected):
            raise VerificationError(f"expected value of {call_expr} does not round-trip")
        code = render_assert(call_expr, expected)
        statements = ast.parse(code).body
        if len(statements) != 1 or not isinstance(statements[0], ast.Assert):
            raise VerificationError(f"not a single assert: {code}")
        tests.append({"code": code, "tier": tier, "hidden": hidden})
    codes = [test["code"] for test in tests]
    if len(set(codes)) != len(codes):
        raise VerificationError("duplicate tests")
    return tests


def check_tests(task: Task, tests: list[dict]) -> float:
    """Reference passes every test, each in a fresh namespace and in time (best of 3 runs)."""
    slowest = 0.0
    for test in tests:
        elapsed = float("inf")
        for _ in range(3):
            began = time.perf_counter()
            ok = passes(task.reference, task.entry_point, test["code"], MAX_TEST_SECONDS * 4)
            elapsed = min(elapsed, time.perf_counter() - began)
            if not ok:
                raise VerificationError(f"reference fails or times out on its own test: {test['code'][:200]}")
            if elapsed <= MAX_TEST_SECONDS:
                break
        if elapsed > MAX_TEST_SECONDS:
            raise VerificationError(f"test too slow ({elapsed * 1000:.1f} ms): {test['code'][:200]}")
        slowest = max(slowest, elapsed)
    return slowest


def check_wrong_solutions(task: Task, tests: list[dict]) -> None:
    """Each wrong implementation fails a hidden test (but not all tests); a None stub fails."""
    if not task.wrong:
        raise VerificationError("at least one wrong implementation is required")
    for index, wrong in enumerate(task.wrong):
        results = [
            (
                test["hidden"],
                passes(wrong, task.entry_point, test["code"], WRONG_TIMEOUT_SECONDS),
            )
            for test in tests
        ]
        if all(ok for hidden, ok in results if hidden):
            raise VerificationError(f"wrong implementation #{index} passes every hidden test")
        if not any(ok for _, ok in results):
            # A "wrong" solution that fails everything is probably just broken.
            raise VerificationError(f"wrong implementation #{index} fails every test")
    stub = src(task.prompt) + "    return None\n"
    if all(passes(stub, task.entry_point, test["code"], WRONG_TIMEOUT_SECONDS) for test in tests):
        raise VerificationError("a `return None` stub passes every test")


def build_record(number: int, task: Task) -> tuple[dict, float]:
    """Verify one task and return its JSONL record and slowest test time."""
    if task.difficulty not in DIFFICULTIES:
        raise VerificationError(f"unknown difficulty {task.difficulty!r}")
    if not task.tags:
        raise VerificationError("at least one tag is required")
    check_prompt(task)
    check_doctests(task)
    tests = build_tests(task)
    slowest = check_tests(task, tests)
    check_wrong_solutions(task, tests)
    record = {
        "task_id": f"{TASK_PREFIX}/{number:03d}-{task.slug}",
        "entry_point": task.entry_point,
        "prompt": src(task.prompt),
        "reference": task.reference,
        "difficulty": task.difficulty,
        "tags": list(task.tags),
        "tests": tests,
    }
    return record, slowest


def verify(tasks: list[Task]) -> list[dict]:
    """Verify all tasks; raise ``SystemExit`` listing every failure."""
    failures: list[str] = []
    records: list[dict] = []
    slowest = 0.0
    for number, task in enumerate(tasks, 1):
        try:
            record, task_slowest = build_record(number, task)
        except VerificationError as error:
            failures.append(f"{task.slug}: {error}")
            continue
        except Exception as error:  # report it and keep checking the rest
            failures.append(f"{task.slug}: {type(error).__name__}: {error}")
            continue
        records.append(record)
        slowest = max(slowest, task_slowest)
    for name in ("slug", "entry_point"):
        values = [getattr(task, name) for task in tasks]
        if len(set(values)) != len(values):
            failures.append(f"duplicate {name} values")
    if failures:
        print("verification FAILED:", file=sys.stderr)
        for failure in failures:
            print(f"  - {failure}", file=sys.stderr)
        raise SystemExit(1)
    print(f"verification passed; slowest reference test {slowest * 1000:.1f} ms")
    return records


def write(records: list[dict], path: Path) -> None:
    """Write one JSON object per line."""
    lines = [json.dumps(record, ensure_ascii=False) + "\n" for record in records]
    path.write_text("".join(lines), encoding="utf-8")


def main() -> int:
    records = verify(TASKS)
    write(records, OUT_PATH)
    counts = {level: sum(r["difficulty"] == level for r in records) for level in DIFFICULTIES}
    total_tests = sum(len(r["tests"]) for r in records)
    hidden_tests = sum(t["hidden"] for r in records for t in r["tests"])
    print(
        f"wrote {len(records)} tasks to {OUT_PATH}: "
        + ", ".join(f"{level} {count}" for level, count in counts.items())
        + f"; {total_tests} tests ({hidden_tests} hidden)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
