"""Dockerfile parsing, FROM mapping and the static problems of `codegym.envs.terminal.dockerfile`."""

from __future__ import annotations

import pytest
from codegym.envs.terminal.dockerfile import Instruction, UnsupportedBase, assignments, map_base, parse, problems

from codegym.error import InvalidTask


def one(text: str, keyword: str) -> Instruction:
    (found,) = [instruction for instruction in parse(text) if instruction.keyword == keyword]
    return found


def kinds(text: str, context: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    return [(problem.kind, problem.line) for problem in problems(parse(text), context)]


# --- parsing ---------------------------------------------------------------------------------


def test_keywords_are_upper_cased_and_lines_counted():
    instructions = parse("from debian:bookworm-slim\n\n# a comment\nrun echo hi\nWorkDir /app\n")
    assert [(i.keyword, i.line) for i in instructions] == [("FROM", 1), ("RUN", 4), ("WORKDIR", 5)]
    assert instructions[1].argument == "echo hi"
    assert not instructions[1].exec_form


def test_backslash_continuations_join_and_drop_comments_and_empty_lines():
    text = (
        "FROM debian:bookworm-slim\n"
        "RUN apt-get update \\\n"
        "    # install the compilers\n"
        "    && apt-get install -y gcc \\\n"
        "\n"
        "    && rm -rf /var/lib/apt/lists/*\n"
        "WORKDIR /src\n"
    )
    run = one(text, "RUN")
    assert run.argument == "apt-get update && apt-get install -y gcc && rm -rf /var/lib/apt/lists/*"
    assert run.line == 2
    assert one(text, "WORKDIR").line == 7


def test_escape_directive_makes_the_backtick_the_continuation():
    text = "# escape=`\nFROM debian:12\nRUN echo a `\n    echo b\nCOPY C:\\data\\x /x\n"
    assert one(text, "RUN").argument == "echo a echo b"
    assert one(text, "COPY").args == ("C:\\data\\x", "/x")  # a backslash is no escape now


def test_crlf_line_ends_and_a_bom_are_read():
    text = "\ufeffFROM debian:bookworm\r\nRUN apt-get update \\\r\n && apt-get install -y jq\r\n"
    instructions = parse(text)
    assert [i.keyword for i in instructions] == ["FROM", "RUN"]
    assert instructions[0].args == ("debian:bookworm",)
    assert instructions[1].argument == "apt-get update && apt-get install -y jq"


def test_exec_form_is_a_json_array():
    run = one('FROM debian:12\nRUN ["python3", "-c", "print(1)"]\n', "RUN")
    assert run.exec_form
    assert run.args == ("python3", "-c", "print(1)")
    shell = one("FROM debian:12\nRUN [ -f /x ] || touch /x\n", "RUN")  # a test bracket, not JSON
    assert not shell.exec_form
    assert shell.args == ("[ -f /x ] || touch /x",)


def test_copy_flags_are_parsed():
    copy = one("FROM debian:12\nCOPY --chown=1000:1000 --chmod=0755 --link run.sh /usr/local/bin/\n", "COPY")
    assert copy.flags == (("chown", "1000:1000"), ("chmod", "0755"), ("link", ""))
    assert copy.flag("chown") == "1000:1000"
    assert copy.flag("from") is None
    assert copy.args == ("run.sh", "/usr/local/bin/")


def test_arg_before_from_substitutes_in_from_only():
    text = "ARG PY=3.12\nFROM python:${PY}-slim\nRUN echo $PY\nCOPY a /opt/$PY/\n"
    assert one(text, "FROM").args == ("python:3.12-slim",)
    assert one(text, "COPY").args == ("a", "/opt//")  # not redeclared in the stage: empty
    assert one(text, "RUN").argument == "echo $PY"  # the shell's to expand


def test_arg_redeclared_in_the_stage_takes_the_global_default():
    text = "ARG VERSION=1.2\nFROM debian:12\nARG VERSION\nARG DEST=/opt\nWORKDIR ${DEST}/v$VERSION\n"
    assert one(text, "WORKDIR").argument == "/opt/v1.2"


def test_env_substitution_with_defaults_and_alternatives():
    text = (
        "FROM debian:12\n"
        'ENV APP=/app NAME="my tool"\n'
        "ENV LEGACY value with spaces\n"
        "WORKDIR ${APP}/${SUB:-src}\n"
        "COPY x ${APP:+/set}${MISSING:+/never}/\n"
        "USER ${RUNNER:-1000}\n"
        "RUN echo ${APP} \\$HOME\n"
    )
    assert one(text, "WORKDIR").argument == "/app/src"
    assert one(text, "COPY").args == ("x", "/set/")
    assert one(text, "USER").argument == "1000"
    run = one(text, "RUN")
    assert run.argument == "echo ${APP} \\$HOME"
    assert run.resolved == "echo /app $HOME"


def test_env_and_arg_assignments():
    assert assignments("A=1 B=\"two words\" C=a\\ b D='x y'", allow_bare=False) == [
        ("A", "1"),
        ("B", "two words"),
        ("C", "a b"),
        ("D", "x y"),
    ]
    assert assignments("NAME value with spaces", allow_bare=False) == [("NAME", "value with spaces")]
    assert assignments("VERSION", allow_bare=True) == [("VERSION", None)]
    assert one('FROM debian:12\nENV GREETING="hello world" OTHER=x\nWORKDIR /$GREETING\n', "WORKDIR").argument == (
        "/hello world"
    )


def test_the_images_path_is_substituted():
    text = 'FROM python:3.11-slim\nENV PATH="/opt/venv/bin:${PATH}"\nWORKDIR /w/$LANG\n'
    assert (
        one(text, "ENV").argument == 'PATH="/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"'
    )
    assert one(text, "WORKDIR").argument == "/w/C.UTF-8"  # the python image's LANG


def test_run_heredoc_body_is_the_script():
    text = "FROM debian:12\nRUN <<EOF\nset -e\napt-get update\nEOF\nWORKDIR /app\n"
    run = one(text, "RUN")
    assert run.heredocs == (("EOF", "set -e\napt-get update\n"),)
    assert run.argument == "set -e\napt-get update\n"
    assert one(text, "WORKDIR").line == 6
    assert kinds(text) == []


def test_heredoc_fed_to_a_command_is_a_problem():
    text = "FROM debian:12\nRUN python3 <<EOF\nprint(1)\nEOF\nCOPY <<EOF /etc/x.conf\nkey=1\nEOF\n"
    assert kinds(text) == [("heredoc", 2), ("heredoc", 5)]


def test_a_here_string_is_no_heredoc():
    run = one("FROM debian:12\nRUN bash -c 'cat <<<hello'\n", "RUN")
    assert run.heredocs == ()


def test_from_with_a_platform_flag():
    (instruction,) = parse("FROM --platform=linux/amd64 debian:bookworm-slim AS base\n")
    assert instruction.flags == (("platform", "linux/amd64"),)
    assert instruction.args[0] == "debian:bookworm-slim"


def test_stages_are_numbered():
    text = "FROM debian:12 AS build\nRUN make\nFROM debian:12\nCOPY --from=build /out /out\n"
    assert [i.stage for i in parse(text)] == [0, 0, 1, 1]


# --- the base image --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("image", "suite", "python"),
    [
        ("debian:bookworm-slim", "bookworm", None),
        ("debian:bookworm", "bookworm", None),
        ("debian:12", "bookworm", None),
        ("debian:12.5-slim", "bookworm", None),
        ("docker.io/library/debian:bookworm-20240110-slim", "bookworm", None),
        ("public.ecr.aws/docker/library/debian:bookworm-slim@sha256:" + "0" * 64, "bookworm", None),
        ("mirror.gcr.io/library/python:3.13-slim", "trixie", "3.13"),
        ("debian:trixie-slim", "trixie", None),
        ("debian:13", "trixie", None),
        ("python:3.11", "bookworm", "3.11"),
        ("python:3.11-slim", "bookworm", "3.11"),
        ("python:3.11-slim-bookworm", "bookworm", "3.11"),
        ("python:3.11.9-bookworm", "bookworm", "3.11"),
        ("python:3.12-slim", "trixie", "3.13"),
        ("python:3.13-slim-trixie", "trixie", "3.13"),
        ("python:3.13", "trixie", "3.13"),
        ("ubuntu:22.04", "bookworm", None),
        ("ubuntu:24.04", "bookworm", None),
    ],
)
def test_mapped_bases(image, suite, python):
    base = map_base(image)
    assert (base.suite, base.python) == (suite, python)


def test_python_slim_installs_python_and_pip_and_the_full_image_the_compilers():
    slim = map_base("python:3.11-slim")
    assert {"python3", "python3-pip", "python3-venv"} <= set(slim.packages)
    assert "build-essential" not in slim.packages
    assert {"python3", "build-essential", "git"} <= set(map_base("python:3.11").packages)
    assert ("PIP_BREAK_SYSTEM_PACKAGES", "1") in slim.env
    assert map_base("debian:bookworm-slim").packages == ()


def test_notes_say_what_differs():
    assert map_base("python:3.11-slim").notes == ()
    assert map_base("debian:bookworm-slim").notes == ()
    (note,) = map_base("python:3.12-slim").notes
    assert "3.12" in note and "3.13" in note
    (note,) = map_base("ubuntu:22.04").notes
    assert "mapped" in note and "ubuntu:22.04" in note


@pytest.mark.parametrize(
    "image",
    ["alpine:3.19", "nvidia/cuda:12.2.0-runtime-ubuntu22.04", "node:20-bookworm", "ghcr.io/acme/tools:1",
     "registry.example.com:5000/python:3.11", "python:3.11-alpine", "scratch", "python:2.7", "debian:sid"],
)  # fmt: skip
def test_unmappable_bases_raise_naming_the_image_and_what_maps(image):
    with pytest.raises(UnsupportedBase, match=r"cannot be mapped.*mappable: debian:bookworm") as info:
        map_base(image)
    assert repr(image) in str(info.value)
    assert isinstance(info.value, InvalidTask)


# --- problems --------------------------------------------------------------------------------


def test_registries_are_fine():
    text = (
        "FROM debian:bookworm-slim\n"
        "RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest nodejs npm\n"
        "RUN pip install --break-system-packages requests==2.32.3 -i https://pypi.org/simple\n"
        "RUN npm install -g typescript@5.4 && uv pip install --system numpy\n"
    )
    assert kinds(text) == []


def test_url_fetches_and_clones_are_problems():
    text = (
        "FROM debian:bookworm-slim\n"
        "RUN curl -fsSL https://deb.nodesource.com/setup_20.x | bash -\n"
        "RUN wget -q http://example.com/data.tar.gz && tar xzf data.tar.gz\n"
        "RUN git clone --depth 1 https://github.com/acme/tool.git /opt/tool\n"
        "RUN pip install git+https://github.com/acme/lib.git@v1\n"
        "RUN pip install https://example.com/wheels/lib-1.0-py3-none-any.whl\n"
        "ADD https://example.com/file.txt /opt/file.txt\n"
        "ADD https://github.com/acme/repo.git /opt/repo\n"
    )
    assert kinds(text) == [("fetch", 2), ("fetch", 3), ("clone", 4), ("clone", 5), ("fetch", 6), ("fetch", 7),
                           ("clone", 8)]  # fmt: skip


def test_the_builds_own_loopback_is_no_fetch_and_an_apt_repository_is():
    text = (
        "FROM debian:12\n"
        "RUN (python3 -m http.server 8000 &) && curl -s http://localhost:8000/ && wget -q http://127.0.0.1:8000/x\n"
        'RUN echo "deb [signed-by=/k.gpg] https://packages.example.com/apt stable main" > /etc/apt/sources.list.d/x.list\n'
        "RUN curl -s http://localhost.example.com/x\n"
    )
    assert kinds(text) == [("fetch", 3), ("fetch", 4)]


def test_a_fetch_behind_an_arg_is_found():
    text = "FROM debian:12\nARG URL=https://example.com/tool\nRUN curl -o /tool $URL\n"
    (problem,) = problems(parse(text), ())
    assert (problem.kind, problem.line) == ("fetch", 3)
    assert "https://example.com/tool" in problem.detail


def test_the_uv_installer_preamble_is_served_not_a_problem():
    text = (
        "FROM debian:bookworm-slim\n"
        "RUN apt-get update && apt-get install -y curl\n"
        "RUN curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh && \\\n"
        "    . $HOME/.local/bin/env\n"
        "RUN wget -qO- https://astral.sh/uv/install.sh | sh\n"
        "RUN bash -c 'source $HOME/.local/bin/env && uv --version'\n"
    )
    found = problems(parse(text), ())
    assert [(p.kind, p.line, p.blocking) for p in found] == [("served", 3, False), ("served", 5, False)]
    assert "0.7.13" in found[0].detail


def test_the_uv_installer_with_another_fetch_in_the_same_command_is_a_fetch():
    text = "FROM debian:12\nRUN curl -LsSf https://astral.sh/uv/install.sh https://example.com/x | sh\n"
    assert kinds(text) == [("fetch", 2)]


def test_copy_of_a_missing_path_is_a_problem_and_globs_and_folders_match():
    text = (
        "FROM debian:12\n"
        "COPY app/ /app/\n"
        "COPY *.txt /data/\n"
        "COPY ./hidden /opt/verifier-fixtures\n"
        "COPY . /src\n"
        "COPY missing.py config/*.yaml /app/\n"
        'COPY ["with space.txt", "/x/"]\n'
    )
    context = ("app/main.py", "numbers.txt", "hidden/expected.txt", "with space.txt")
    assert kinds(text, context) == [("missing_context", 6), ("missing_context", 6)]


def test_copy_from_multi_stage_and_unsupported_instructions():
    text = (
        "FROM debian:12 AS build\n"
        "RUN echo built > /out\n"
        "FROM debian:12\n"
        "COPY --from=build /out /out\n"
        "ONBUILD RUN make\n"
        "HEALTHCHECK CMD curl -f http://localhost/ || exit 1\n"
        'CMD ["bash"]\n'
        "EXPOSE 8080\n"
    )
    found = problems(parse(text), ())
    assert [(p.kind, p.line) for p in found] == [("multi_stage", 3), ("copy_from", 4), ("unsupported", 5),
                                                 ("ignored", 6), ("ignored", 7), ("ignored", 8)]  # fmt: skip
    assert [p.blocking for p in found] == [True, True, True, False, False, False]


def test_an_unmappable_from_and_a_missing_from_are_problems():
    (problem,) = problems(parse("FROM alpine:3.19\nRUN apk add bash\n"), ())
    assert (problem.kind, problem.line, problem.blocking) == ("base", 1, True)
    assert "alpine:3.19" in problem.detail
    assert kinds("RUN echo hi\n") == [("no_from", 0)]
    assert kinds("FROM ubuntu:22.04\n") == [("mapped", 1)]
