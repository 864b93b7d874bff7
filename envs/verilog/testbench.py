"""Self-checking testbenches: generated for bundled problems, adapted for VerilogEval ones.

A generated testbench drives ``RefModule`` and ``TopModule`` with the same vectors (directed
ones, then seeded random ones; a reset phase first for clocked designs), each through its own
copy of every input so nothing the design does to its inputs reaches the reference, and
compares every output with ``!==`` (an ``x`` or ``z`` where the reference has a value is a
mismatch). The vectors are constants in the testbench's code (one ``apply`` call each), so
the simulation needs no file. At the end it prints one line per phase and per (output, phase), each tagged
``@@<nonce>@@``, where the nonce comes from a ``+codegym_nonce=`` plusarg of that run: the
design cannot read plusargs (the gate forbids it), so it cannot print a line the grader
would read.

Timing (1 ns units): a combinational vector is applied at ``10 i`` and sampled at ``10 i + 5``.
A clocked vector is applied at ``10 i`` with the clock low, sampled at ``10 i + 4`` (before
the edge: Mealy outputs), the clock rises at ``10 i + 5`` and it is sampled again at
``10 i + 9`` (after the edge). In the reset phase only the after-edge sample counts, so
uninitialised state before the first edge is never compared.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from codegym.envs.verilog.gate import Port

PHASES = ("reset", "directed", "random")
NONCE_PLUSARG = "codegym_nonce"


@dataclass(frozen=True)
class Stimulus:
    """How a bundled problem is exercised.

    Attributes:
        clock: The clock input, or None for a combinational design.
        reset: ``{"port": name, "active": 0|1, "cycles": n}`` for a reset phase.
        directed: Hand-written vectors (input name -> value; missing inputs are 0, and the
            reset input is inactive).
        random: How many seeded random vectors follow.
        distributions: Per input: ``{"p1": p}`` (a 1-bit input is 1 with probability p),
            ``{"values": [...]}`` (one of these), ``{"max": m}`` (uniform 0..m); otherwise
            uniform over the input's width (a reset input stays inactive).
        seed: Seed of the random vectors.
    """

    clock: str | None = None
    reset: Mapping[str, Any] | None = None
    directed: Sequence[Mapping[str, int]] = ()
    random: int = 100
    distributions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    seed: int = 0

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Stimulus:
        return cls(
            clock=data.get("clock"),
            reset=data.get("reset"),
            directed=tuple(data.get("directed", ())),
            random=int(data.get("random", 100)),
            distributions=dict(data.get("distributions", {})),
            seed=int(data.get("seed", 0)),
        )


@dataclass(frozen=True)
class Bench:
    """A generated testbench and what a complete run of it must report.

    Attributes:
        source: The testbench module ``tb`` followed by the reference.
        inputs: The driven inputs (the clock excluded), in vector bit order (first = MSB).
        outputs: The compared outputs.
        vectors: Every applied vector (the inputs concatenated).
        phases: The phase of every vector.
        expected: Samples each phase must report.
    """

    source: str
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    vectors: tuple[int, ...]
    phases: tuple[str, ...]
    expected: Mapping[str, int]

    def inputs_of(self, index: int) -> dict[str, int]:
        """The inputs of vector ``index`` by name."""
        value, out = self.vectors[index], {}
        for port in reversed(self.inputs):
            out[port.name] = value & ((1 << port.width) - 1)
            value >>= port.width
        return dict(reversed(out.items()))


def vectors(ports: Sequence[Port], stimulus: Stimulus) -> tuple[list[dict[str, int]], list[str]]:
    """The input vectors of every phase, and the phase of each."""
    inputs = [p for p in ports if p.direction == "input" and p.name != stimulus.clock]
    reset = stimulus.reset or {}
    inactive = {reset["port"]: 1 - int(reset.get("active", 1))} if reset else {}
    out: list[dict[str, int]] = []
    phases: list[str] = []
    for _ in range(int(reset.get("cycles", 0))):
        out.append({p.name: 0 for p in inputs} | {reset["port"]: int(reset.get("active", 1))})
        phases.append("reset")
    for vector in stimulus.directed:
        unknown = set(vector) - {p.name for p in inputs}
        if unknown:
            raise ValueError(f"directed vector {vector} names unknown inputs {sorted(unknown)}")
        out.append({p.name: 0 for p in inputs} | inactive | {k: int(v) for k, v in vector.items()})
        phases.append("directed")
    rng = np.random.default_rng(stimulus.seed)
    for _ in range(stimulus.random):
        out.append({p.name: _draw(rng, p, stimulus.distributions.get(p.name), inactive) for p in inputs})
        phases.append("random")
    return out, phases


def _draw(rng: np.random.Generator, port: Port, rule: Mapping[str, Any] | None, inactive: Mapping[str, int]) -> int:
    if rule is None and port.name in inactive:
        return inactive[port.name]
    if rule and "p1" in rule:
        return int(rng.random() < float(rule["p1"]))
    if rule and "values" in rule:
        return int(rule["values"][int(rng.integers(len(rule["values"])))])
    top = int(rule["max"]) if rule and "max" in rule else (1 << port.width) - 1
    return int(rng.integers(0, top + 1, dtype=np.uint64)) if top < (1 << 63) else _wide(rng, port.width)


def _wide(rng: np.random.Generator, width: int) -> int:
    value = 0
    for _ in range(0, width, 32):
        value = (value << 32) | int(rng.integers(0, 1 << 32))
    return value & ((1 << width) - 1)


def build(reference: str, ports: Sequence[Port], stimulus: Stimulus) -> Bench:
    """The testbench of a bundled problem."""
    inputs = tuple(p for p in ports if p.direction == "input" and p.name != stimulus.clock)
    outputs = tuple(p for p in ports if p.direction == "output")
    if not outputs:
        raise ValueError("a problem needs at least one output to compare")
    rows, phases = vectors(ports, stimulus)
    packed = tuple(_pack(row, inputs) for row in rows)
    clocked = stimulus.clock is not None
    expected = {
        phase: sum(1 for p in phases if p == phase) * (2 if clocked and phase != "reset" else 1) for phase in PHASES
    }
    source = _render(inputs, outputs, packed, phases, stimulus.clock) + "\n" + reference
    return Bench(source, inputs, outputs, packed, tuple(phases), expected)


def _pack(row: Mapping[str, int], inputs: Sequence[Port]) -> int:
    value = 0
    for port in inputs:
        value = (value << port.width) | (row[port.name] & ((1 << port.width) - 1))
    return value


def _decl(port: Port) -> str:
    return f"[{port.width - 1}:0] " if port.width > 1 else ""


def _render(
    inputs: Sequence[Port], outputs: Sequence[Port], packed: Sequence[int], phases: Sequence[str], clock: str | None
) -> str:
    width = max(sum(p.width for p in inputs), 1)
    ends = [sum(1 for p in phases if PHASES.index(p) <= k) for k in range(len(PHASES))]
    lines = ["`timescale 1ns/1ps", "module tb;", f"  localparam integer W = {width};"]
    lines += _declarations(inputs, outputs, clock)
    lines += _sample_task(outputs)
    lines += _apply_task(inputs, clock, ends)
    lines += _main(outputs, [f"apply({width}'h{value:x});" for value in packed])
    return "\n".join(lines)


def _declarations(inputs: Sequence[Port], outputs: Sequence[Port], clock: str | None) -> list[str]:
    lines = ["  integer i, p, samples[0:2], errors[0:2];", "  string nonce;"]
    lines += [f"  reg {_decl(port)}{port.name}_ref, {port.name}_dut;" for port in inputs]
    if clock:
        lines.append(f"  reg {clock}_ref = 0, {clock}_dut = 0;")
    for port in outputs:
        lines.append(f"  wire {_decl(port)}{port.name}_ref, {port.name}_dut;")
        lines.append(f"  reg {_decl(port)}{port.name}_exp[0:2], {port.name}_got[0:2];")
        lines.append(f"  integer {port.name}_errors[0:2], {port.name}_time[0:2], {port.name}_vector[0:2];")
    everything = ([clock] if clock else []) + [p.name for p in inputs] + [p.name for p in outputs]
    for module, suffix in (("RefModule", "ref"), ("TopModule", "dut")):
        connections = ", ".join(f".{name}({name}_{suffix})" for name in everything)
        lines.append(f"  {module} {suffix}_i ({connections});")
    return lines


def _sample_task(outputs: Sequence[Port]) -> list[str]:
    """``sample``: compare every output once, counting per phase and per output."""
    lines = ["  task sample;", "    reg bad;", "    begin", "      bad = 0;", "      samples[p] = samples[p] + 1;"]
    for port in outputs:
        n = port.name
        lines += [
            f"      if ({n}_ref !== {n}_dut) begin",
            "        bad = 1;",
            f"        if ({n}_errors[p] == 0) begin {n}_time[p] = $time; {n}_vector[p] = i; "
            f"{n}_exp[p] = {n}_ref; {n}_got[p] = {n}_dut; end",
            f"        {n}_errors[p] = {n}_errors[p] + 1;",
            "      end",
        ]
    return [*lines, "      if (bad) errors[p] = errors[p] + 1;", "    end", "  endtask"]


def _apply_task(inputs: Sequence[Port], clock: str | None, ends: Sequence[int]) -> list[str]:
    """``apply``: drive one vector into both copies of the inputs, clock it, sample.

    One call per vector in straight-line code: indexing one huge vector constant instead
    costs the simulator time quadratic in the number of vectors.
    """
    phase = f"      p = (i < {ends[0]}) ? 0 : (i < {ends[1]}) ? 1 : 2;"
    lines = ["  task apply(input [W-1:0] v);", "    begin", phase]
    if inputs:
        lines.append(f"      {{{', '.join(f'{p.name}_ref' for p in inputs)}}} = v;")
        lines.append(f"      {{{', '.join(f'{p.name}_dut' for p in inputs)}}} = v;")
    if clock:
        lines += [
            "      #4 if (p != 0) sample;",
            f"      #1 {clock}_ref = 1; {clock}_dut = 1;",
            "      #4 sample;",
            f"      #1 {clock}_ref = 0; {clock}_dut = 0;",
        ]
    else:
        lines += ["      #5 sample;", "      #5;"]
    return [*lines, "      i = i + 1;", "    end", "  endtask"]


def _main(outputs: Sequence[Port], calls: Sequence[str]) -> list[str]:
    lines = [
        "  initial begin",
        f'    if (!$value$plusargs("{NONCE_PLUSARG}=%s", nonce)) nonce = "";',
        "    for (p = 0; p < 3; p = p + 1) begin",
        "      samples[p] = 0; errors[p] = 0;",
        *[f"      {o.name}_errors[p] = 0; {o.name}_time[p] = -1; {o.name}_vector[p] = -1;" for o in outputs],
        "    end",
        "    i = 0;",
        *["    " + " ".join(calls[k : k + 8]) for k in range(0, len(calls), 8)],
        "    for (p = 0; p < 3; p = p + 1) begin",
        '      $display("@@%s@@ phase %0d %0d %0d", nonce, p, samples[p], errors[p]);',
    ]
    for port in outputs:
        n = port.name
        lines.append(
            f'      $display("@@%s@@ output {n} %0d %0d %0d %0d %b %b", nonce, p, {n}_errors[p], {n}_time[p], '
            f"{n}_vector[p], {n}_exp[p], {n}_got[p]);"
        )
    return [*lines, "    end", '    $display("@@%s@@ done", nonce);', "    $finish;", "  end", "endmodule", ""]


def interface_bench(ports: Sequence[Port]) -> str:
    """A public testbench ``tb`` built from the interface alone: it connects every port of
    ``TopModule`` by name, holds the inputs at 0 and prints the outputs after 10 ns. It
    checks that a design fits the interface, not what it computes (no reference, no
    expected values)."""
    lines = ["`timescale 1ns/1ps", "module tb;"]
    for port in ports:
        kind, start = ("reg", " = 0") if port.direction == "input" else ("wire", "")
        lines.append(f"  {kind} {_decl(port)}{port.name}{start};")
    lines.append(f"  TopModule dut_i ({', '.join(f'.{p.name}({p.name})' for p in ports)});")
    shown = [p.name for p in ports if p.direction != "input"]
    values = "".join(f" {name}=%b" for name in shown)
    arguments = "".join(f", {name}" for name in shown)
    display = f'    $display("outputs after 10 ns with every input 0:{values}"{arguments});'
    return "\n".join([*lines, "  initial begin", "    #10;", display, "    $finish;", "  end", "endmodule", ""])


# --- external (VerilogEval) testbenches -------------------------------------------------------

_TB_HEADER = re.compile(r"\bmodule\s+tb\b[^;]*;")
_DISPLAY = re.compile(r"\$display\s*\(\s*\"")


def tag_external(test: str) -> str:
    """A VerilogEval testbench whose module ``tb`` prints every line tagged with the nonce.

    The ``tb`` module reads the ``+codegym_nonce=`` plusarg at time 0 and every ``$display``
    in it gets the ``@@<nonce>@@`` prefix; nothing else of the testbench changes.
    """
    header = _TB_HEADER.search(test)
    if header is None:
        raise ValueError("the testbench has no `module tb`")
    end = test.find("endmodule", header.end())
    if end < 0:
        raise ValueError("the testbench's `module tb` has no endmodule")
    body = test[header.end() : end]
    prologue = (
        f'\n  string codegym_nonce;\n  initial if (!$value$plusargs("{NONCE_PLUSARG}=%s", codegym_nonce))'
        ' codegym_nonce = "";\n'
    )
    return test[: header.end()] + prologue + _tag_displays(body) + test[end:]


def _tag_displays(body: str) -> str:
    out, last = [], 0
    for match in _DISPLAY.finditer(body):
        close = _string_end(body, match.end())
        out.append(body[last : match.end()] + "@@%s@@ " + body[match.end() : close + 1] + ", codegym_nonce")
        last = close + 1
    out.append(body[last:])
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    i = start
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    if i >= len(text):
        raise ValueError("unterminated string in a $display of the testbench")
    return i


def undefine_macros(source: str) -> str:
    """``\\`undef`` lines for every macro ``source`` defines, so none leaks into the design."""
    names = sorted(set(re.findall(r"`define\s+([A-Za-z_][A-Za-z0-9_$]*)", source)))
    return "".join(f"`undef {name}\n" for name in names)
