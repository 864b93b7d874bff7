"""A Dockerfile read the way ``docker build`` reads it, its ``FROM`` mapped to a Debian root, and
what in it cannot be built offline here.

`parse` turns the text into `Instruction` values: continuations joined (backslash, or the
character an ``# escape=`` directive names), comment lines inside a continuation dropped,
``$VAR``, ``${VAR}``, ``${VAR:-default}`` and ``${VAR:+alt}`` substituted from ``ARG`` and
``ENV`` in the instructions where Docker substitutes (``FROM``, ``COPY``, ``ADD``, ``ENV``,
``ARG``, ``WORKDIR``, ``USER``, ...; never in ``RUN``, ``CMD`` and ``ENTRYPOINT``, whose shell
does it), and ``RUN <<EOF`` heredocs read. `map_base` maps a ``FROM`` image onto the Debian
suites codegym builds with debootstrap, and `problems` lists what stops a build here or what
the builder does differently (a ``RUN`` that fetches a URL or clones a repository, a missing
context file, ``COPY --from``, several stages, ...), each a `Problem` with its line.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from codegym.error import InvalidTask

__all__ = [
    "BLOCKING",
    "DEFAULT_PATH",
    "NOTES",
    "Base",
    "Instruction",
    "Problem",
    "UnsupportedBase",
    "assignments",
    "map_base",
    "parse",
    "problems",
    "substitute",
]

# Instructions whose arguments Docker substitutes variables in (the builder's "replaceEnvAllowed").
_SUBSTITUTED = frozenset({"ADD", "ARG", "COPY", "ENV", "EXPOSE", "FROM", "LABEL", "STOPSIGNAL", "USER", "VOLUME",
                          "WORKDIR", "ONBUILD"})  # fmt: skip
# The PATH every mapped image sets (Docker substitutes it in `ENV PATH=/opt/bin:$PATH`).
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# What the builder executes; the rest are run-time settings a build here has no use for.
BUILT = frozenset({"FROM", "RUN", "COPY", "ADD", "WORKDIR", "ENV", "ARG", "USER", "SHELL"})
IGNORED = frozenset({"CMD", "ENTRYPOINT", "EXPOSE", "LABEL", "VOLUME", "STOPSIGNAL", "HEALTHCHECK", "MAINTAINER"})
_FLAG = re.compile(r"--([a-z][a-z-]*)(?:=(\S*))?")
_HEREDOC = re.compile(r"(?<!<)<<(?!<)(-?)([\"']?)([A-Za-z_][A-Za-z0-9_]*)\2")
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:[-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")

# Problem kinds. A blocking one means the task does not build here; a note is how it differs.
BLOCKING = frozenset({"base", "fetch", "clone", "missing_context", "copy_from", "multi_stage", "unsupported",
                      "heredoc", "no_from"})  # fmt: skip
NOTES = frozenset({"served", "ignored", "mapped"})


class UnsupportedBase(InvalidTask):
    """A ``FROM`` image that no Debian root built here stands for (alpine, CUDA, a private
    registry, ...). The message names the image and the images that can be mapped."""


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction.

    Attributes:
        keyword: the instruction, upper-cased (``RUN``, ``COPY``, ...).
        raw: the text after the keyword as written (continuations joined with a space, comment
            lines inside them dropped; flags and variables untouched).
        argument: the text after the flags, with variables substituted where Docker substitutes
            (``RUN``, ``CMD`` and ``ENTRYPOINT`` keep theirs for the shell); for ``RUN <<EOF``
            with nothing else on the line, the heredoc's body (the script Docker runs).
        args: the exec form's JSON array, or else the argument split on white space (for
            ``RUN`` in shell form, the argument alone).
        exec_form: whether the argument is a JSON array (``RUN ["a", "b"]``).
        flags: ``(name, value)`` pairs of the leading ``--name=value`` flags (``--chown``,
            ``--chmod``, ``--from``, ``--link``; a bare flag has value ``""``).
        line: the 1-based line the instruction starts on.
        stage: the 0-based build stage (one per ``FROM``; instructions before the first are
            stage -1, which only ``ARG`` may be in).
        resolved: the argument with every variable substituted, ``RUN`` too (what the static
            checks read).
        heredocs: ``(name, body)`` of each heredoc the instruction carries.
    """

    keyword: str
    raw: str
    argument: str
    args: tuple[str, ...]
    exec_form: bool
    flags: tuple[tuple[str, str], ...]
    line: int
    stage: int
    resolved: str
    heredocs: tuple[tuple[str, str], ...] = ()

    def flag(self, name: str) -> str | None:
        """The value of flag ``--name``, or None when the instruction has no such flag."""
        return next((value for key, value in self.flags if key == name), None)


@dataclass(frozen=True)
class Base:
    """A ``FROM`` image mapped onto a Debian root that debootstrap builds.

    Attributes:
        image: the image as written in the Dockerfile (after ``ARG`` substitution).
        suite: the Debian suite, ``"bookworm"`` (12) or ``"trixie"`` (13).
        python: the Python version the mapped root has (``"3.11"``, ``"3.13"``) where the image
            is a ``python`` image, else None.
        packages: Debian packages installed on top of the base so the root has what the image
            ships (``python3``, ``pip``, ``venv``; a full image's compilers too).
        env: environment the image sets that the root gets too.
        notes: how the mapping differs from the image (an Ubuntu image, another Python minor).
    """

    image: str
    suite: str
    python: str | None = None
    packages: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Problem:
    """Something in a Dockerfile a build here cannot do, or does differently.

    Attributes:
        kind: one of `BLOCKING` (``base``, ``fetch``, ``clone``, ``missing_context``,
            ``copy_from``, ``multi_stage``, ``unsupported``, ``heredoc``, ``no_from``) or of
            `NOTES` (``served``: the uv installer, served offline; ``ignored``: an instruction
            with no effect on the files; ``mapped``: a base image mapped to Debian with a note).
        line: the 1-based Dockerfile line (0 for the file as a whole).
        detail: what was found and, for a blocking kind, what to change.
    """

    kind: str
    line: int
    detail: str

    @property
    def blocking(self) -> bool:
        """Whether the task cannot be built here because of it."""
        return self.kind in BLOCKING


# ---------------------------------------------------------------------------------------------
# Parsing


def parse(text: str) -> tuple[Instruction, ...]:
    """Reads a Dockerfile.

    Args:
        text: the Dockerfile (a leading BOM and CRLF line ends are accepted).

    Returns:
        Its instructions in order, variables substituted as `Instruction` describes.
    """
    lines = text.removeprefix("\ufeff").splitlines()
    escape = _escape_directive(lines)
    instructions: list[Instruction] = []
    scope = _Scope()
    for line_no, keyword, raw, heredocs in _logical_lines(lines, escape):
        if keyword == "FROM":
            scope.new_stage()
        instruction = _instruction(keyword, raw, line_no, scope, heredocs, escape)
        scope.apply(instruction)
        instructions.append(instruction)
    return tuple(instructions)


def _escape_directive(lines: Sequence[str]) -> str:
    """The escape character a leading ``# escape=`` parser directive names (backslash else)."""
    for line in lines:
        match = re.fullmatch(r"\s*#\s*([A-Za-z]+)\s*=\s*(\S*)\s*", line)
        if not match:
            break
        if match.group(1).lower() == "escape" and match.group(2) in ("\\", "`"):
            return match.group(2)
    return "\\"


def _logical_lines(lines: Sequence[str], escape: str) -> Iterable[tuple[int, str, str, tuple[tuple[str, str], ...]]]:
    """Yields ``(line, KEYWORD, text after it, heredocs)`` for each instruction."""
    index = 0
    while index < len(lines):
        text = lines[index].strip()
        start = index + 1
        index += 1
        if not text or text.startswith("#"):
            continue
        parts: list[str] = []
        while _continues(text, escape):
            parts.append(text.rstrip()[:-1].strip())
            # Comment lines and empty lines inside a continuation are dropped; the continuation goes on.
            while index < len(lines) and (not lines[index].strip() or lines[index].strip().startswith("#")):
                index += 1
            if index == len(lines):
                text = ""
                break
            text = lines[index].strip()
            index += 1
        parts.append(text)
        joined = " ".join(part for part in parts if part)
        keyword, _, rest = joined.partition(" ")
        keyword = keyword.upper()
        heredocs: tuple[tuple[str, str], ...] = ()
        if keyword in ("RUN", "COPY", "ADD"):
            heredocs, index = _read_heredocs(rest, lines, index)
        yield start, keyword, rest.strip(), heredocs


def _continues(text: str, escape: str) -> bool:
    return text.rstrip().endswith(escape)


def _read_heredocs(rest: str, lines: Sequence[str], index: int) -> tuple[tuple[tuple[str, str], ...], int]:
    """Reads the bodies of the heredocs ``rest`` opens, from ``lines[index:]``."""
    bodies: list[tuple[str, str]] = []
    for match in _HEREDOC.finditer(rest):
        dash, name = match.group(1), match.group(3)
        body: list[str] = []
        while index < len(lines) and lines[index].strip() != name:
            body.append(lines[index].lstrip("\t") if dash else lines[index])
            index += 1
        index += 1  # the terminator
        bodies.append((name, "\n".join(body) + "\n"))
    return tuple(bodies), index


class _Scope:
    """The ``ARG`` and ``ENV`` values in force at a point of the file."""

    def __init__(self) -> None:
        self.global_args: dict[str, str] = {}
        self.values: dict[str, str] = {}
        self.stage = -1

    def new_stage(self) -> None:
        self.stage += 1
        self.values = {}

    def lookup(self, keyword: str) -> Mapping[str, str]:
        # Only FROM (and ARGs before it) see the global ARGs; a stage sees one again after `ARG NAME`.
        return self.global_args if keyword == "FROM" or self.stage < 0 else self.values

    def apply(self, instruction: Instruction) -> None:
        if instruction.keyword == "FROM":  # the image's own ENV, which `${PATH}` and the like read
            self.values = {"PATH": DEFAULT_PATH, **dict(_image_env(instruction))}
        elif instruction.keyword == "ARG":
            for name, value in assignments(instruction.argument, allow_bare=True):
                self._arg(name, value)
        elif instruction.keyword == "ENV":
            for name, value in assignments(instruction.argument, allow_bare=False):
                self.values[name] = value or ""

    def _arg(self, name: str, value: str | None) -> None:
        if self.stage < 0:
            self.global_args[name] = value or ""
        elif name not in self.values:
            self.values[name] = value if value is not None else self.global_args.get(name, "")


def _image_env(instruction: Instruction) -> tuple[tuple[str, str], ...]:
    try:
        return map_base(instruction.args[0]).env if instruction.args else ()
    except UnsupportedBase:
        return ()


def _instruction(keyword: str, raw: str, line: int, scope: _Scope, heredocs: tuple[tuple[str, str], ...],
                 escape: str) -> Instruction:  # fmt: skip
    flags, rest = _split_flags(raw) if keyword in ("COPY", "ADD", "RUN", "FROM") else ((), raw)
    variables = scope.lookup(keyword)
    argument = substitute(rest, variables, escape) if keyword in _SUBSTITUTED else rest
    resolved = substitute(rest, variables, escape)
    if keyword == "RUN" and heredocs and _HEREDOC.fullmatch(rest.strip()):
        argument = resolved = heredocs[0][1]
    exec_form, args = _args(keyword, argument)
    return Instruction(keyword, raw, argument, args, exec_form, flags, line, scope.stage, resolved, heredocs)


def _split_flags(text: str) -> tuple[tuple[tuple[str, str], ...], str]:
    flags: list[tuple[str, str]] = []
    rest = text
    while True:
        match = _FLAG.match(rest)
        if not match:
            return tuple(flags), rest
        flags.append((match.group(1), match.group(2) or ""))
        rest = rest[match.end() :].lstrip()


def _args(keyword: str, argument: str) -> tuple[bool, tuple[str, ...]]:
    if argument.startswith("["):
        try:
            value = json.loads(argument)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return True, tuple(value)
    if keyword in ("RUN", "CMD", "ENTRYPOINT", "HEALTHCHECK"):
        return False, (argument,)
    return False, tuple(argument.split())


def substitute(text: str, variables: Mapping[str, str], escape: str = "\\") -> str:
    """Substitutes ``$VAR``, ``${VAR}``, ``${VAR:-default}`` and ``${VAR:+alt}`` the way the
    Docker builder does: an unset variable is empty; an escaped ``$`` stays a ``$``."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == escape and index + 1 < len(text) and text[index + 1] == "$":
            out.append("$")
            index += 2
            continue
        match = _VAR.match(text, index) if char == "$" else None
        if not match:
            out.append(char)
            index += 1
            continue
        name = match.group(1) or match.group(4)
        value = variables.get(name)
        if match.group(2) == ":-":
            value = value if value else substitute(match.group(3), variables, escape)
        elif match.group(2) == ":+":
            value = substitute(match.group(3), variables, escape) if value else ""
        out.append(value or "")
        index = match.end()
    return "".join(out)


def assignments(argument: str, *, allow_bare: bool) -> list[tuple[str, str | None]]:
    """The ``(NAME, value)`` pairs of an ``ENV`` or ``ARG`` argument (quotes and escapes removed):
    ``A=1 B="two words"``, the legacy ``ENV NAME value with spaces``, and (``allow_bare``, for
    ``ARG``) a bare ``NAME``, whose value is None."""
    words = _shell_words(argument)
    if not words:
        return []
    if "=" not in words[0]:
        if allow_bare:
            return [(word, None) for word in words]
        name, _, value = argument.partition(" ")  # the legacy `ENV NAME value with spaces`
        return [(name, value.strip())]
    pairs: list[tuple[str, str | None]] = []
    for word in words:
        name, sep, value = word.partition("=")
        pairs.append((name, value if sep else None))
    return pairs


_assignments = assignments  # the name build.py first used


def _shell_words(text: str) -> list[str]:
    """Splits on unquoted white space and removes the quotes (what ``ENV a="b c"`` needs)."""
    words: list[str] = []
    current: list[str] = []
    quote = ""
    started = False
    escaped = False
    for char in text:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
            else:
                current.append(char)
        elif char in "\"'":
            quote, started = char, True
        elif char.isspace():
            if started or current:
                words.append("".join(current))
            current, started = [], False
        else:
            current.append(char)
    if started or current:
        words.append("".join(current))
    return words


# ---------------------------------------------------------------------------------------------
# The base image

BOOKWORM_PYTHON = "3.11"
TRIXIE_PYTHON = "3.13"
_SUITES = {"bookworm": "bookworm", "12": "bookworm", "trixie": "trixie", "13": "trixie", "stable": "trixie",
           "latest": "trixie"}  # fmt: skip
_OLD_DEBIAN = ("bullseye", "11", "buster", "10")
_SLIM_PACKAGES = ("python3", "python3-pip", "python3-venv", "python-is-python3")
# The full python images are built on buildpack-deps: compilers, headers, git, curl.
_FULL_PACKAGES = (*_SLIM_PACKAGES, "python3-dev", "build-essential", "pkg-config", "git", "curl", "wget",
                  "ca-certificates", "libffi-dev", "libssl-dev", "zlib1g-dev")  # fmt: skip
# The python images' pip installs system-wide (no PEP 668 marker); the Debian pip needs this to do the same.
_PYTHON_ENV = (("LANG", "C.UTF-8"), ("PIP_BREAK_SYSTEM_PACKAGES", "1"))
# Docker Hub's official images under the names registries and mirrors give them.
_HUB_MIRRORS = ("docker.io/library/", "index.docker.io/library/", "registry-1.docker.io/library/",
                "public.ecr.aws/docker/library/", "mirror.gcr.io/library/", "docker.io/", "library/")  # fmt: skip
MAPPABLE = (
    "debian:bookworm, debian:bookworm-slim, debian:12 (bookworm); debian:trixie, debian:13 (trixie); "
    "python:3.X with -slim, -bookworm or -trixie (3.11 and older on bookworm, 3.12 and newer on trixie); "
    "ubuntu:* (mapped to bookworm)"
)


def map_base(image: str) -> Base:
    """Maps a ``FROM`` image onto the Debian root built here.

    Args:
        image: the image reference (``python:3.11-slim``, ``docker.io/library/debian:12``, ...;
            a ``@sha256:`` digest is dropped with a note).

    Returns:
        The `Base`: suite, Python version, extra packages and notes.

    Raises:
        UnsupportedBase: for any other image (alpine, nvidia/cuda, node, scratch, another
            registry); the message says what can be mapped.
    """
    name, tag, notes = _split_image(image)
    if name == "debian":
        return _debian(image, tag, notes)
    if name == "python":
        return _python(image, tag, notes)
    if name == "ubuntu":
        note = f"{image} mapped to debian bookworm (Debian packages, not Ubuntu's)"
        return Base(image, "bookworm", notes=(*notes, note))
    raise _unsupported(image)


def _split_image(image: str) -> tuple[str, str, tuple[str, ...]]:
    reference, _, digest = image.strip().partition("@")
    notes = (f"{image}: the digest {digest[:19]}... is not checked (the root is built from Debian)",) if digest else ()
    for prefix in _HUB_MIRRORS:
        reference = reference.removeprefix(prefix)
    name, _, tag = reference.partition(":")
    if "/" in name:  # another registry or an organisation's image
        raise _unsupported(image)
    return name.lower(), (tag or "latest").lower(), notes


def _unsupported(image: str) -> UnsupportedBase:
    return UnsupportedBase(
        f"the base image {image!r} cannot be mapped to a Debian root built here; mappable: {MAPPABLE}. "
        "Rewrite the Dockerfile's FROM to one of them (installing what the image had with apt-get) to import the task"
    )


def _debian(image: str, tag: str, notes: tuple[str, ...]) -> Base:
    release = tag.removesuffix("-slim")
    release = re.sub(r"^(\d+)(\.\d+)*$", r"\1", release)
    release = re.sub(r"-\d{8}$", "", release)  # dated tags: bookworm-20240110
    if release in _SUITES:
        suite = _SUITES[release]
        extra = (f"{image}: 'latest' is Debian 13 (trixie)",) if release in ("latest", "stable") else ()
        return Base(image, suite, notes=(*notes, *extra))
    if release in _OLD_DEBIAN:
        return Base(image, "bookworm", notes=(*notes, f"{image} mapped to debian bookworm (a newer release)"))
    raise _unsupported(image)


def _python(image: str, tag: str, notes: tuple[str, ...]) -> Base:
    match = re.fullmatch(r"(3(?:\.(\d+))?(?:\.\d+)?(?:(?:a|b|rc)\d+)?)?-?(.*)", tag)
    if not match:
        raise _unsupported(image)
    version, minor, variant = match.group(1), match.group(2), match.group(3)
    if version is None and variant == "latest":
        variant = ""
    variant_parts = [part for part in variant.split("-") if part]
    if any(part not in ("slim", "bookworm", "trixie", "bullseye", "buster") for part in variant_parts):
        raise _unsupported(image)  # alpine, windowsservercore, ...
    requested = int(minor) if minor is not None else None
    suite = "bookworm" if requested is not None and requested <= 11 else "trixie"
    python = BOOKWORM_PYTHON if suite == "bookworm" else TRIXIE_PYTHON
    extra: list[str] = []
    if requested is not None and f"3.{requested}" != python:
        extra.append(f"{image}: Python 3.{requested} requested; the Debian {suite} root has Python {python}")
    if requested is None:
        extra.append(f"{image}: no Python minor pinned; the Debian trixie root has Python {python}")
    named = next((part for part in variant_parts if part != "slim"), None)
    if named is not None and named != suite:
        extra.append(f"{image}: built on Debian {suite} instead of {named} (its Python is {python})")
    packages = _SLIM_PACKAGES if "slim" in variant_parts else _FULL_PACKAGES
    return Base(image, suite, python, packages, _PYTHON_ENV, (*notes, *extra))


# ---------------------------------------------------------------------------------------------
# Static problems

# A URL off this machine (the loopback is the build's own: a server it started).
_URL = re.compile(
    r"\b(?:https?|ftp)://(?!(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])[:/\s'\"]|(?:localhost|127\.\d+\.\d+\.\d+)$)[^\s'\"|;&)]+"
)
_APT_SOURCE = re.compile(r"\badd-apt-repository\b|\bdeb\s+(?:\[[^\]]*\]\s+)?(?:https?|ftp)://|sources\.list")
_UV_INSTALLER = re.compile(r"https?://astral\.sh/uv/(?:([0-9][\w.]*)/)?install\.sh")
_CLONE = re.compile(r"\bgit\s+(?:-\S+\s+)*(?:clone|fetch|pull|submodule\s+update)\b")
_FETCHERS = re.compile(r"(?:^|[\s;&|(])(curl|wget|aria2c)\b")
_PIP_INSTALL = re.compile(r"\b(?:pip3?|python3?\s+-m\s+pip|uv\s+pip)\s+install\b")
_NPM_INSTALL = re.compile(r"\b(?:npm|yarn|pnpm)\s+(?:install|i|add)\b")
_VCS_SPEC = re.compile(
    r"(?:^|\s)(?:git\+|hg\+|svn\+|bzr\+|github:|gitlab:|bitbucket:)\S+|(?:^|\s)\S+\.git(?:[#@]\S*)?(?:\s|$)"
)
_SEGMENTS = re.compile(r"&&|\|\||;|\n")


def problems(instructions: Sequence[Instruction], context_files: Collection[str]) -> tuple[Problem, ...]:
    """Lists what stops a build here, and how the build differs from Docker's.

    Args:
        instructions: the Dockerfile's instructions (from `parse`).
        context_files: the build context's files, as paths relative to its root (``/``
            separators); folders are implied by the files in them.

    Returns:
        The `Problem` values in line order: `Problem.blocking` ones mean the task cannot be built.
    """
    found: list[Problem] = []
    files = {path.strip("/") for path in context_files}
    if not any(instruction.keyword == "FROM" for instruction in instructions):
        found.append(Problem("no_from", 0, "the Dockerfile has no FROM; start it with e.g. FROM debian:bookworm-slim"))
    stages = [instruction for instruction in instructions if instruction.keyword == "FROM"]
    if len(stages) > 1:
        lines = ", ".join(str(stage.line) for stage in stages)
        found.append(Problem("multi_stage", stages[1].line, f"{len(stages)} build stages (FROM on lines {lines}); "
                             "only single-stage Dockerfiles are built here: merge the stages into one"))  # fmt: skip
    for instruction in instructions:
        found.extend(_instruction_problems(instruction, files))
    unique = dict.fromkeys(found)  # a heredoc script is read as the RUN's argument and as its body
    return tuple(sorted(unique, key=lambda problem: problem.line))


def _instruction_problems(instruction: Instruction, files: set[str]) -> list[Problem]:
    keyword, line = instruction.keyword, instruction.line
    if keyword == "FROM":
        return _base_problems(instruction)
    if keyword == "RUN":
        return _run_problems(instruction)
    if keyword in ("COPY", "ADD"):
        return _copy_problems(instruction, files)
    if keyword in IGNORED:
        return [Problem("ignored", line, f"{keyword} has no effect on the environment's files and is ignored")]
    if keyword in BUILT:
        return []
    return [Problem("unsupported", line, f"{keyword} is not supported here (built: {', '.join(sorted(BUILT))}); "
                    "remove it or rewrite it as RUN lines")]  # fmt: skip


def _base_problems(instruction: Instruction) -> list[Problem]:
    image = instruction.args[0] if instruction.args else ""
    try:
        base = map_base(image)
    except UnsupportedBase as error:
        return [Problem("base", instruction.line, str(error))]
    return [Problem("mapped", instruction.line, note) for note in base.notes]


def _run_problems(instruction: Instruction) -> list[Problem]:
    texts = [instruction.resolved, *(body for _, body in instruction.heredocs)]
    if instruction.exec_form:
        texts[0] = " ".join(instruction.args)
    found: list[Problem] = []
    for text in texts:
        for segment in _segments(text):
            found.extend(_segment_problems(segment, instruction.line))
    found.extend(_heredoc_problems(instruction))
    return found


def _segments(script: str) -> list[str]:
    """Splits a shell script into its simple commands (a pipeline stays one segment)."""
    return [segment.strip() for segment in _SEGMENTS.split(script) if segment.strip()]


def _segment_problems(segment: str, line: int) -> list[Problem]:
    uv = _UV_INSTALLER.search(segment)
    fetcher = _FETCHERS.search(segment)
    url = _URL.search(segment)
    if uv and fetcher and len(_URL.findall(segment)) == 1:
        version = uv.group(1) or "latest"
        return [Problem("served", line, f"the uv installer ({version}) is served offline: uv from PyPI")]
    if fetcher and url:
        return [Problem("fetch", line, f"RUN fetches {url.group(0)}; nothing but the package registries is reachable "
                        "while building: add the file to the build context and COPY it")]  # fmt: skip
    if _APT_SOURCE.search(segment) and url:
        return [Problem("fetch", line, f"RUN adds an apt repository ({_short(segment)}); only Debian's own archive is "
                        "reachable while building: install Debian's package instead")]  # fmt: skip
    if _CLONE.search(segment):
        return [Problem("clone", line, f"RUN clones a repository ({_short(segment)}); add the repository's files to "
                        "the build context and COPY them")]  # fmt: skip
    kind = _remote_spec(segment) if _PIP_INSTALL.search(segment) or _NPM_INSTALL.search(segment) else None
    if kind is not None:
        return [Problem(kind, line, f"RUN installs from a {'repository' if kind == 'clone' else 'URL'} "
                        f"({_short(segment)}); install a released version from the registry instead")]  # fmt: skip
    return []


def _remote_spec(segment: str) -> str | None:
    """``"clone"`` where a pip/npm install names a VCS repository, ``"fetch"`` where it names a URL
    (an index URL is fine), else None."""
    words = segment.split()
    for index, word in enumerate(words):
        previous = words[index - 1] if index else ""
        if previous in ("-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--registry"):
            continue
        if word.startswith(("--index-url=", "--extra-index-url=", "--find-links=", "--registry=")):
            continue
        if _VCS_SPEC.search(f" {word} "):
            return "clone"
        if _URL.match(word) or _URL.match(word.split("@", 1)[-1].strip()):
            return "fetch"
    return None


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _heredoc_problems(instruction: Instruction) -> list[Problem]:
    if not instruction.heredocs:
        return []
    whole = _HEREDOC.fullmatch(instruction.raw.strip())
    body = instruction.heredocs[0][1]
    if whole and len(instruction.heredocs) == 1 and not body.startswith("#!"):
        return []  # RUN <<EOF: the body is the script, which `argument` holds
    return [Problem("heredoc", instruction.line, f"{instruction.keyword} {_short(instruction.raw, 40)}: only a "
                    "plain `RUN <<EOF` script (no shebang, no command before it) is supported; write the "
                    "file into the build context and COPY it")]  # fmt: skip


def _copy_problems(instruction: Instruction, files: set[str]) -> list[Problem]:
    keyword, line = instruction.keyword, instruction.line
    if instruction.flag("from") is not None:
        return [Problem("copy_from", line, f"{keyword} --from={instruction.flag('from')} copies from another stage "
                        "or image; only the build context is copied here: add the files to the context")]  # fmt: skip
    if instruction.heredocs:
        return _heredoc_problems(instruction)
    sources = instruction.args[:-1]
    found: list[Problem] = []
    for source in sources:
        if keyword == "ADD" and _URL.match(source):
            kind = "clone" if source.endswith(".git") else "fetch"
            found.append(Problem(kind, line, f"ADD {source} downloads while building; add the file to the build "
                                 "context and ADD or COPY it from there"))  # fmt: skip
        elif keyword == "ADD" and source.startswith("git@"):
            found.append(
                Problem("clone", line, f"ADD {source} clones a repository; add its files to the build context")
            )
        elif not _in_context(source, files):
            found.append(Problem("missing_context", line, f"{keyword} {source}: no such file or folder in the build "
                                 "context (environment/); add it or fix the path"))  # fmt: skip
    if not sources:
        found.append(Problem("unsupported", line, f"{keyword} needs a source and a destination"))
    return found


def _in_context(source: str, files: set[str]) -> bool:
    path = source.strip()
    while path.startswith("./"):
        path = path[2:]
    path = path.strip("/")
    if path in ("", "."):
        return True  # the whole context, even an empty one
    if any(char in path for char in "*?["):
        return any(fnmatch.fnmatchcase(name, path) or _under_match(name, path) for name in files)
    return path in files or any(name.startswith(path + "/") for name in files)


def _under_match(name: str, pattern: str) -> bool:
    """Whether ``name`` lies in a folder that ``pattern`` matches."""
    parts = name.split("/")
    return any(fnmatch.fnmatchcase("/".join(parts[:depth]), pattern) for depth in range(1, len(parts)))
