"""What a bash command does to files, as far as its words tell: the files it writes and
removes, whether it runs tests, whether it starts background jobs (for the trace features of
`codegym.episodes.features`).

The command is split as bash would split it (quotes, ``&&``/``||``/``;``/``|``/``&``/newlines,
redirections, here-documents, ``#`` comments) and each simple command is recognised by its
program among a documented list; ``cd`` moves the folder relative paths are read from. A
program that writes files by itself (``python -c "open(...)"``) is not seen, and paths with a
variable or ``~`` in them are kept as written, never judged outside the work folder.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

SCRATCH = ("/tmp", "/var/tmp", "/dev")  # writes there are scratch, never "outside"


@dataclass(frozen=True)
class Place:
    """A path a command names: as a path relative to the work folder where it is inside it
    (else absolute), and whether it is outside it (never for scratch or unjudged paths)."""

    path: str
    outside: bool


@dataclass(frozen=True)
class Shell:
    """What one bash command does, as far as its words tell.

    Attributes:
        changes: The files it writes (redirections, ``tee``, ``sed -i``, ``cp``/``mv``
            destinations, ``touch``...; scratch ones included) and removes (``rm``,
            ``unlink``, ``git rm``, ``mv`` sources), in its order: ``(place, removed)``.
        edits: Whether it changes the work's files: a write or removal outside the scratch
            folders and the tools' ``.codegym/``, or a program that rewrites the tree
            (``patch``, ``git apply``/``checkout``/``restore``/``reset``/``stash``...).
        tests: Whether it runs tests (see `codegym.episodes.features.EpisodeFeatures`).
        tests_last: Whether a test run comes after its last edit.
        background: Jobs it starts in the background (``&``, ``setsid -f``).
    """

    changes: tuple[tuple[Place, bool], ...] = ()
    edits: bool = False
    tests: bool = False
    tests_last: bool = False
    background: int = 0

    @property
    def places(self) -> tuple[Place, ...]:
        """Every file it writes or removes."""
        return tuple(place for place, _ in self.changes)


_SEPARATORS = set(";&|\n()")
_WRITERS = frozenset({"tee", "touch", "truncate"})
_REMOVERS = frozenset({"rm", "unlink", "shred"})
_COPIERS = frozenset({"cp", "install", "ln"})
_GIT_EDITS = frozenset({"apply", "am", "checkout", "restore", "reset", "stash", "clean", "mv", "rm"})
_PREFIXES = frozenset({"sudo", "command", "exec", "time", "env", "nice", "nohup", "setsid", "timeout", "xargs"})
_TEST_PROGRAMS = frozenset({"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ctest", "rspec",
                            "phpunit", "bats", "run_tests", "pytest-3"})  # fmt: skip
_TEST_VERBS = {"go": "test", "cargo": "test", "npm": "test", "yarn": "test", "pnpm": "test", "dotnet": "test",
               "mix": "test", "cabal": "test", "stack": "test", "gradle": "test", "gradlew": "test"}  # fmt: skip
_HEREDOC = re.compile(r"(?<!<)<<(-?)\s*(['\"]?)([A-Za-z_][\w.-]*)\2")


def read_shell(command: str, workdir: str | None) -> Shell:
    """What ``command`` does (see `Shell`), its relative paths read from ``workdir``, the
    folder a call starts in (None: unknown, relative paths are not judged)."""
    changes: list[tuple[Place, bool]] = []
    edits = tests = tests_last = False
    background = 0
    cwd = workdir
    for words, targets, backgrounded in _simple_commands(command):
        background += backgrounded
        argv = _program(words)
        background += bool(words) and words[0] == "setsid" and bool({"-f", "--fork"} & set(words[1:3]))
        if argv and argv[0] == "cd":
            cwd = _cd(argv[1:], cwd, workdir)
            continue
        written, removed, rewrites = _effects(argv)
        places = [locate(target, cwd, workdir) for target in (*targets, *written)]
        gone = [locate(target, cwd, workdir) for target in removed]
        changes += [(place, True) for place in gone if place.path]  # (mv: the source goes first)
        changes += [(place, False) for place in places if place.path]
        changed = rewrites or any(changes_files(place) for place in (*places, *gone))
        edits = edits or changed
        runs = _runs_tests(argv, cwd, workdir)
        tests = tests or runs
        tests_last = runs or (tests_last and not changed)
    return Shell(tuple(changes), edits, tests, tests_last, background)


def _simple_commands(command: str) -> Iterator[tuple[list[str], list[str], bool]]:
    """Each simple command's words (redirections left out), the files its output is
    redirected to, and whether a ``&`` puts it in the background."""
    lexer = shlex.shlex(_without_heredocs(command), posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace, lexer.whitespace_split, lexer.commenters = " \t\r", True, ""
    try:
        tokens = list(lexer)
    except ValueError:  # (unbalanced quotes: bash would refuse it too)
        return
    words: list[str] = []
    targets: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token and set(token) <= _SEPARATORS:
            yield _uncommented(words), targets, re.search(r"(?<![&|>])&(?!&)", token) is not None
            words, targets = [], []
        elif ">" in token or "<" in token:
            if words and words[-1].isdigit():  # (2>: the descriptor's number is no word)
                words.pop()
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            if ">" in token and following and not (following.isdigit() or following == "-"):
                targets.append(following)
            index += 1  # (the redirection's file or descriptor)
        else:
            words.append(token)
        index += 1
    yield _uncommented(words), targets, False


def _without_heredocs(command: str) -> str:
    """``command`` with the bodies of its here-documents left out (their text is data)."""
    kept: list[str] = []
    ending: list[tuple[str, bool]] = []
    for line in command.split("\n"):
        if ending:
            delimiter, tabs = ending[0]
            if (line.lstrip("\t") if tabs else line) == delimiter:
                ending.pop(0)
            continue
        kept.append(line)
        ending += [(match[3], match[1] == "-") for match in _HEREDOC.finditer(line)]
    return "\n".join(kept)


def _uncommented(words: list[str]) -> list[str]:
    for index, word in enumerate(words):
        if word.startswith("#"):
            return words[:index]
    return words


def _program(words: list[str]) -> list[str]:
    """The words from the program on: variable assignments and wrappers (``sudo``,
    ``env``, ``timeout 5``...) left out."""
    index = 0
    while index < len(words):
        word = words[index]
        if re.fullmatch(r"[A-Za-z_]\w*=.*", word, re.DOTALL) or word.startswith("-"):
            index += 1
        elif word in _PREFIXES:
            index += 1
            if word == "timeout" and index < len(words) and re.fullmatch(r"[\d.]+[smhd]?", words[index]):
                index += 1
        else:
            break
    argv = words[index:]
    return [posixpath.basename(argv[0]), *argv[1:]] if argv else []


def _effects(argv: list[str]) -> tuple[list[str], list[str], bool]:
    """The files a program writes and removes, and whether it rewrites the tree in ways its
    words do not name (``patch``, ``git apply``...)."""
    if not argv:
        return [], [], False
    name, arguments = argv[0], _operands(argv[1:])
    if name in _WRITERS:
        return arguments, [], False
    if name in _REMOVERS:
        return [], arguments, False
    if name in _COPIERS and len(arguments) >= 2:
        return arguments[-1:], [], False
    if name == "mv" and len(arguments) >= 2:
        return arguments[-1:], arguments[:-1], False
    if name in ("sed", "perl") and any(re.fullmatch(r"-[a-zA-Z]*i.*|--in-place.*", word) for word in argv[1:]):
        return _edited_in_place(argv[1:]), [], False
    if name == "git" and arguments and arguments[0] in _GIT_EDITS:
        removed = arguments[1:] if arguments[0] == "rm" else []
        return [], removed, arguments[0] != "rm"
    return [], [], name == "patch"


def _edited_in_place(words: list[str]) -> list[str]:
    """The files of ``sed -i``/``perl -i``: the operands but the script (given with ``-e``
    or ``-f``, or else the first operand)."""
    operands: list[str] = []
    scripted = False
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("--expression", "--file") or re.fullmatch(r"-[a-zA-Z]*[ef]", word):
            scripted, index = True, index + 1  # (its script is the next word)
        elif not word.startswith("-"):
            operands.append(word)
        index += 1
    return operands if scripted else operands[1:]


def _operands(words: list[str]) -> list[str]:
    """The words that are not options (all of them after ``--``)."""
    if "--" in words:
        at = words.index("--")
        return [word for word in words[:at] if not word.startswith("-")] + words[at + 1 :]
    return [word for word in words if not word.startswith("-")]


def _runs_tests(argv: list[str], cwd: str | None, workdir: str | None) -> bool:
    if not argv:
        return False
    name, rest = argv[0], argv[1:]
    if name in _TEST_PROGRAMS:
        return True
    if _TEST_VERBS.get(name) in rest[:2] or (name in ("npm", "yarn", "pnpm") and rest[:2] == ["run", "test"]):
        return True
    if name in ("make", "gmake", "mvn", "mvnw"):
        return any(word in ("test", "check", "verify", "tests") for word in rest)
    if re.fullmatch(r"python[\d.]*|pypy[\d.]*", name):
        if "-m" in rest and rest.index("-m") + 1 < len(rest):
            return rest[rest.index("-m") + 1] in ("pytest", "unittest", "nose2", "tox")
        script = next((word for word in rest if not word.startswith("-")), None)
        return script is not None and is_test_path(locate(script, cwd, workdir).path)
    return False


def _cd(arguments: list[str], cwd: str | None, workdir: str | None) -> str | None:
    """The folder after ``cd`` (None where it cannot be told: ``cd -``, a variable)."""
    target = next((word for word in arguments if not word.startswith("-") or word == "-"), None)
    if target is None:
        return workdir  # (cd alone goes home: the work folder, in a workspace)
    if cwd is None or "$" in target or target.startswith("~") or target == "-":
        return None
    return posixpath.normpath(posixpath.join(cwd, target))


def locate(path: str, cwd: str | None, workdir: str | None) -> Place:
    """Where ``path`` is, seen from ``cwd`` (see `Place`); an unjudged path (a variable,
    ``~``, a relative path from an unknown folder) keeps its words and is never outside."""
    if not path or "$" in path or path.startswith("~") or (cwd is None and not posixpath.isabs(path)):
        return Place(path, False)
    full = posixpath.normpath(posixpath.join(cwd or "/", path))
    if full.startswith("//"):
        full = full[1:]
    if any(full == scratch or full.startswith(scratch + "/") for scratch in SCRATCH):
        return Place(full, False)
    if workdir is None:
        return Place(full, False)
    if full == workdir or full.startswith(workdir.rstrip("/") + "/"):
        return Place(posixpath.relpath(full, workdir), False)
    return Place(full, True)


def changes_files(place: Place) -> bool:
    """Whether a write there changes the episode's files (scratch writes do not)."""
    return bool(place.path) and not any(
        place.path == scratch or place.path.startswith(scratch + "/") for scratch in SCRATCH
    ) and not place.path.startswith(".codegym/")  # fmt: skip


_TEST_FOLDER = re.compile(r"(^|/)(tests?|testing|spec|__tests__)(/|$)")
_TEST_FILE = re.compile(
    r"(^|/)(test_[^/]*|[^/]*_test\.[^/]+|[^/]*\.(test|spec)\.[^/]+|[^/]*Tests?\.java|[^/]*_spec\.rb|conftest\.py|"
    r"run_tests)$"
)


def is_test_path(path: str) -> bool:
    """Whether ``path`` names a test file or folder (see `EpisodeFeatures.test_edits`)."""
    return bool(path) and (_TEST_FOLDER.search(path) is not None or _TEST_FILE.search(path) is not None)
