"""Each bundled problem's declared interface (what the prompt shows and the gate checks) is
the one its reference implements, read by two independent parsers: pyslang (the gate's) and
pyverilog (a Verilog-2001 parser; every bundled reference stays within Verilog-2001)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codegym.envs.verilog import gate
from codegym.envs.verilog.tasks import DATA

PROBLEMS = json.loads((DATA / "problems.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pyverilog_parser(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from pyverilog.vparser.parser import VerilogParser

    return VerilogParser(outputdir=str(tmp_path_factory.mktemp("pyverilog")), debug=False)


def pyverilog_ports(parser: Any, source: str, module: str) -> list[tuple[str, str, int]]:
    from pyverilog.vparser import ast

    description = parser.parse(source).description
    definition = next(d for d in description.definitions if isinstance(d, ast.ModuleDef) and d.name == module)
    ports = []
    for port in definition.portlist.ports:
        declaration = port.first if isinstance(port, ast.Ioport) else port
        width = declaration.width
        bits = 1 if width is None else abs(int(width.msb.value) - int(width.lsb.value)) + 1
        ports.append((declaration.name, type(declaration).__name__.lower(), bits))
    return ports


def declared(problem: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(p["name"], p["direction"], p["width"]) for p in problem["ports"]]


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p["id"] for p in PROBLEMS])
def test_declared_interface_matches_both_parsers(pyverilog_parser: Any, problem: dict[str, Any]) -> None:
    by_pyslang = [(p.name, p.direction, p.width) for p in gate.module_ports(problem["reference"], "RefModule")]
    assert by_pyslang == declared(problem)
    assert pyverilog_ports(pyverilog_parser, problem["reference"], "RefModule") == declared(problem)


def test_a_wrong_declaration_is_caught(pyverilog_parser: Any) -> None:
    source = "module RefModule(input [3:0] a, output reg y);\n  always @* y = ^a;\nendmodule\n"
    assert pyverilog_ports(pyverilog_parser, source, "RefModule") == [("a", "input", 4), ("y", "output", 1)]
    assert pyverilog_ports(pyverilog_parser, source, "RefModule") != [("a", "input", 3), ("y", "output", 1)]


def test_problem_data_lives_in_the_package() -> None:
    assert Path(DATA, "problems.json").is_file() and len(PROBLEMS) >= 30
