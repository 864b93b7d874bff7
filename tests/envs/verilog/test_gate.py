"""The static gate on its own: what passes, what is HACK, what is CE, and the interface check."""

from __future__ import annotations

import subprocess
import sys

import pytest
from codegym.envs.verilog.gate import MAX_SOURCE_BYTES, Port, check, declared_modules, module_ports

from codegym.grade import Status

PORTS = (Port("clk", "input", 1), Port("d", "input", 8), Port("q", "output", 8))
HARNESS = frozenset({"tb", "RefModule", "stimulus_gen"})
GOOD = "module TopModule(input clk, input [7:0] d, output reg [7:0] q);\n  always @(posedge clk) q <= d;\nendmodule\n"


def gate(code: str):
    return check(code, PORTS, HARNESS)


PASSING = {
    "plain Verilog": GOOD,
    "SystemVerilog": "module TopModule(input logic clk, input logic [7:0] d, output logic [7:0] q);\n"
    "  typedef enum logic [1:0] {A, B} s_t;\n  s_t s;\n  always_ff @(posedge clk) begin q <= d; s <= A; end\nendmodule\n",
    "a flat macro": "`define W 8\nmodule TopModule(input clk, input [`W-1:0] d, output reg [`W-1:0] q);\n"
    "  always @(posedge clk) q <= d;\nendmodule\n",
    "directives in comments and strings": '// `include "tb.sv" would be refused\n'
    + GOOD.replace("endmodule", '  initial $display("a `backtick and $finish in a string");\nendmodule'),
    "helpers and a downward hierarchical name": "module TopModule(input clk, input [7:0] d, output [7:0] q);\n"
    "  Reg r(.clk(clk), .d(d), .q(q));\n  wire [7:0] peek = r.q;\nendmodule\n"
    "module Reg(input clk, input [7:0] d, output reg [7:0] q);\n  always @(posedge clk) q <= d;\nendmodule\n",
    "arithmetic system functions": "module TopModule(input clk, input [7:0] d, output [7:0] q);\n"
    "  localparam N = $clog2(256);\n  assign q = $signed(d) >>> (N - 8) + $countones(d) * 0;\nendmodule\n",
    "timescale and default_nettype": "`timescale 1ns/1ps\n`default_nettype none\n" + GOOD,
}


@pytest.mark.parametrize("name", list(PASSING))
def test_designs_that_pass(name: str) -> None:
    report = gate(PASSING[name])
    assert report.passed, report.diagnostics


REFUSED = {
    "a syntax error": (
        "module TopModule(input clk, input [7:0] d, output [7:0] q)\n  assign q = d;\nendmodule\n",
        Status.CE,
    ),
    "an unknown module": (GOOD.replace("endmodule", "  Missing m();\nendmodule"), Status.CE),
    "an unknown identifier": (GOOD.replace("q <= d", "q <= e"), Status.CE),
    "a class": (GOOD + "class C;\nendclass\n", Status.CE),
    "an interface": (GOOD + "interface I;\nendinterface\n", Status.CE),
    "an unsupported system task": (GOOD.replace("endmodule", "  initial $printtimescale;\nendmodule"), Status.HACK),
    "an unlisted system function": (GOOD.replace("q <= d", "q <= $countdrivers(d)"), Status.CE),
    "an undefined macro": (GOOD.replace("q <= d", "q <= `D"), Status.CE),
    "a line directive": ('`line 1 "tb.sv" 0\n' + GOOD, Status.CE),
    "a harness module name from the testbench": (GOOD + "module stimulus_gen;\nendmodule\n", Status.HACK),
    "a procedural assign": (GOOD.replace("q <= d;", "assign q = d;"), Status.CE),
    "writing an input in a procedure": (
        GOOD.replace("q <= d;", "begin q <= d; end\n  always @* d[0] = 1'b0;"),
        Status.CE,
    ),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_designs_that_are_refused(name: str) -> None:
    code, status = REFUSED[name]
    report = gate(code)
    assert report.status is status, report.diagnostics
    assert report.diagnostics and all(d.file == "solution.sv" for d in report.diagnostics)


def test_refusals_point_at_the_line_and_column() -> None:
    report = gate(GOOD.replace("endmodule", "  initial\n    $finish;\nendmodule"))
    (diagnostic,) = report.diagnostics
    assert (diagnostic.line, diagnostic.column, diagnostic.code) == (4, 5, "system-task")


RESOURCE_BOMBS = {
    "deeply nested parentheses": ("assign q = " + "(" * 20000 + "d" + ")" * 20000 + ";", "limit"),
    "deeply nested blocks": ("initial " + "begin " * 9000 + "end " * 9000, "limit"),
    "an endless constant function": (
        "function integer f(input integer n); integer k; begin k = 0; "
        "while (1) k = k + 1; f = k; end endfunction\n  localparam P = f(1);",
        "ConstEvalExceededMaxSteps",
    ),
    "a huge generate loop": (
        "genvar i; for (i = 0; i < 100000000; i = i + 1) begin : g wire w; end",
        "MaxGenerateStepsExceeded",
    ),
    "a huge vector": ("wire [2**30:0] w = 0;", "PackedTypeTooLarge"),
}


@pytest.mark.parametrize("name", list(RESOURCE_BOMBS))
def test_elaboration_bombs_are_ce_quickly(name: str) -> None:
    snippet, code_name = RESOURCE_BOMBS[name]
    report = gate(GOOD.replace("endmodule", snippet + "\nendmodule"))
    assert report.status is Status.CE
    assert code_name in [d.code for d in report.diagnostics], report.diagnostics


def test_an_oversized_design_is_ce_without_parsing() -> None:
    report = gate(GOOD + "//" + "x" * MAX_SOURCE_BYTES)
    assert report.status is Status.CE and "KiB" in report.message


def test_top_module_must_be_a_top() -> None:
    wrapped = (
        GOOD
        + "module Wrapper(input clk, input [7:0] d, output [7:0] q);\n  TopModule t(.clk(clk), .d(d), .q(q));\nendmodule\n"
    )
    report = gate(wrapped)
    assert report.status is Status.CE and "no top-level module named TopModule" in report.diagnostics[0].message
    assert gate("module Other;\nendmodule\n").message == "interface mismatch"


def test_declared_modules_and_ports() -> None:
    source = "module a(); endmodule\n// module commented();\nprimitive p(output o, input i); table 0:0; 1:1; endtable endprimitive\npackage pk; endpackage\n"
    assert declared_modules(source) == {"a", "p", "pk"}
    assert module_ports(GOOD.replace("TopModule", "RefModule"), "RefModule") == PORTS
    with pytest.raises(ValueError, match="does not elaborate"):
        module_ports("module RefModule(input a, output b); assign b = a + ; endmodule", "RefModule")
    with pytest.raises(ValueError, match="no top-level module 'RefModule'"):
        module_ports(GOOD, "RefModule")


def test_import_codegym_does_not_import_pyslang() -> None:
    code = "import sys, codegym, gymnasium; gymnasium.spec('codegym/Verilog-v1'); print('pyslang' in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "False"


def test_a_harness_name_in_an_unrelated_error_is_only_ce() -> None:
    own = GOOD.replace("endmodule", "  wire [7:0] tb = 0;\n  wire w = tb.bit;\nendmodule")
    assert gate(own).status is Status.CE  # the design's own signal named tb: a mistake, not an attack
    assert gate(GOOD.replace("q <= d", "q <= tb.d")).status is Status.HACK
