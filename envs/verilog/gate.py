"""The static gate: what a design may contain before anything of it runs.

The design under test and the testbench necessarily share one simulator process, so the
first line of defence is a check of the source, on the host, with `pyslang` (a full
SystemVerilog front end, fast enough to run on every step):

* Preprocessor: a lexical scan (outside comments and strings) rejects `` `include `` (it
  would read files of whoever parses it, including this host), and any directive but a
  small allow-list. Macro bodies may not contain a backtick, so expansion cannot nest and a
  "macro bomb" is bounded by a budget on the expanded size.
* System tasks and functions: an allow-list (`ALLOWED_SYSTEM_CALLS`: arithmetic helpers,
  `$time`, printing). Anything that ends, pauses or resets the simulation, touches files or
  plusargs, or draws from the simulator's shared random generator is an attack on the
  testbench (`HACK`); anything else is unsupported here (`CE`). Plain ``$display`` is
  allowed: the verdict is read only from lines tagged with a nonce the design cannot know,
  so what a design prints never makes it pass (and a printed line imitating the report is
  flagged `HACK` by the grader).
* Constructs: ``bind``, DPI, ``defparam``, ``force``/``release``, ``$root``, and declaring a
  module (or package, primitive) named like one of the harness's (``RefModule``, ``tb``, ...)
  are `HACK`; classes, programs, interfaces, checkers and configs are `CE` (not needed for
  RTL, and each widens what the design could reach).
* Elaboration of the design alone: any error is `CE`, except a reference to a harness name
  (instantiating ``RefModule``, reading ``tb.x``), which is `HACK`. A hierarchical name that
  resolves without the testbench stays inside the design; one that needs the testbench
  cannot resolve and is rejected.
* Driving an input port (a continuous or procedural assignment, or an output of a child
  instance connected to it) is `HACK`: in a shared simulation it could change the stimulus
  the reference sees. (The bundled testbench also gives the design its own copy of every
  input, so this is defence in depth.)
* Interface: ``TopModule`` must have exactly the task's ports (names, directions, widths);
  otherwise `CE` with an "interface mismatch" diagnostic per difference.
* Resources: the source is capped at `MAX_SOURCE_BYTES`; slang's own limits (nesting depth,
  generate and constant-evaluation steps, type sizes, recursive instantiation) turn
  elaboration bombs into `CE` in milliseconds.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from codegym.error import DependencyNotInstalled
from codegym.grade import Diagnostic, Status

SOURCE_FILE = "solution.sv"
TOP = "TopModule"
MAX_SOURCE_BYTES = 128 * 1024
MACRO_BUDGET_CHARS = 1 << 20  # expanded size of every macro use together


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


ALLOWED_SYSTEM_CALLS = _names(
    """$signed $unsigned $clog2 $bits $size $left $right $low $high $increment $dimensions
    $unpacked_dimensions $countones $countbits $onehot $onehot0 $isunknown $rtoi $itor $realtobits
    $bitstoreal $shortrealtobits $bitstoshortreal $floor $ceil $sqrt $pow $ln $log10 $exp
    $time $stime $realtime $display $displayb $displayh $displayo $write $writeb $writeh $writeo
    $strobe $strobeb $strobeh $strobeo $monitor $monitorb $monitorh $monitoro $monitoron $monitoroff
    $info $warning $error"""
)
# Calls that end, pause or reset the run, touch files, plusargs or the shared random state, or
# poke the simulator: an attack on the testbench rather than a design mistake.
HACK_SYSTEM_CALLS = _names(
    """$finish $stop $exit $fatal $reset $restart $save $incsave $input $key $nokey $log $nolog
    $scope $list $system $fopen $fclose $fflush $fwrite $fwriteb $fwriteh $fwriteo $fdisplay
    $fdisplayb $fdisplayh $fdisplayo $fstrobe $fstrobeb $fstrobeh $fstrobeo $fmonitor $fmonitorb
    $fmonitorh $fmonitoro $fscanf $sscanf $fgets $fgetc $ungetc $fread $fseek $ftell $rewind $feof
    $ferror $readmemb $readmemh $writememb $writememh $sreadmemb $sreadmemh $dumpfile $dumpvars
    $dumpon $dumpoff $dumpall $dumpflush $dumplimit $dumpports $value$plusargs $test$plusargs
    $random $urandom $urandom_range $dist_uniform $dist_normal $dist_exponential $dist_poisson
    $dist_chi_square $dist_t $dist_erlang $get_initial_random_seed $deposit
    $printtimescale $showvars $showscopes"""
)
ALLOWED_DIRECTIVES = _names(
    "define undef ifdef ifndef elsif else endif timescale default_nettype resetall celldefine endcelldefine"
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


@dataclass(frozen=True)
class Port:
    """One port of a module's interface."""

    name: str
    direction: str  # "input", "output" or "inout"
    width: int

    def render(self) -> str:
        bits = f" [{self.width - 1}:0]" if self.width > 1 else ""
        return f"{self.direction}{bits} {self.name}"


@dataclass(frozen=True)
class GateReport:
    """What the gate found. ``status`` is None when the design may be compiled and run."""

    status: Status | None
    message: str = ""
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status is None


def _pyslang() -> Any:
    try:
        import pyslang
    except ImportError as e:
        raise DependencyNotInstalled(
            "the Verilog family checks designs with pyslang: pip install 'codegym[verilog]'"
        ) from e
    return pyslang


def check(code: str, interface: Iterable[Port], harness_names: Iterable[str]) -> GateReport:
    """Check ``code`` (the design) against the rules above and ``interface`` (``TopModule``'s
    ports); ``harness_names`` are the modules the testbench owns. Reports are cached."""
    if len(code.encode()) > MAX_SOURCE_BYTES:
        return _reject(Status.CE, f"the design is over {MAX_SOURCE_BYTES // 1024} KiB", [])
    return _check(code, tuple(interface), frozenset(harness_names) | {"tb", "RefModule"})


@functools.lru_cache(maxsize=1024)  # an env asks about the same design up to three times a step
def _check(code: str, interface: tuple[Port, ...], harness: frozenset[str]) -> GateReport:
    report = _scan_directives(code)
    if report is not None:
        return report
    pyslang = _pyslang()
    try:
        return _elaborate(pyslang, code, interface, harness)
    except RuntimeError as e:  # slang's own guards (nesting depth, ...) raise a bare RuntimeError
        detail = f" ({e})" if str(e) else ""
        message = f"the design is too deeply nested or too large to elaborate{detail}"
        return _reject(Status.CE, message, [Diagnostic(message, SOURCE_FILE, code="limit")])


def _elaborate(pyslang: Any, code: str, interface: tuple[Port, ...], harness: frozenset[str]) -> GateReport:
    tree = pyslang.syntax.SyntaxTree.fromText(code, SOURCE_FILE)
    compilation = pyslang.ast.Compilation()
    compilation.addSyntaxTree(tree)
    source_manager = compilation.sourceManager
    forbidden = _syntax_findings(pyslang, tree, source_manager, harness)
    if forbidden:
        status = Status.HACK if any(s is Status.HACK for s, _ in forbidden) else Status.CE
        return _reject(status, forbidden[0][1].message, [d for _, d in forbidden])
    diagnostics = _slang_diagnostics(pyslang, compilation, source_manager)
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        hack = [d for d in errors if d.code in _LOOKUP_FAILURES and _names_harness(d.message, harness)]
        if hack:
            return _reject(Status.HACK, f"the design reaches into the testbench: {hack[0].message}", diagnostics)
        return _reject(Status.CE, f"{len(errors)} error(s) in the design", diagnostics)
    root = compilation.getRoot()
    writes = _input_writes(pyslang, root, source_manager)
    if writes:
        return _reject(Status.HACK, writes[0].message, writes)
    mismatches = _interface_mismatches(pyslang, root, interface)
    if mismatches:
        return _reject(Status.CE, "interface mismatch", [*mismatches, *diagnostics])
    return GateReport(None, diagnostics=tuple(diagnostics))


def module_ports(source: str, name: str) -> tuple[Port, ...]:
    """The ports of module ``name`` in ``source`` (a reference), in declaration order."""
    pyslang = _pyslang()
    compilation = pyslang.ast.Compilation()
    compilation.addSyntaxTree(pyslang.syntax.SyntaxTree.fromText(source, "reference.sv"))
    errors = [d for d in compilation.getAllDiagnostics() if d.isError()]
    if errors:
        engine = pyslang.DiagnosticEngine(compilation.sourceManager)
        raise ValueError(f"the reference does not elaborate: {engine.formatMessage(errors[0])}")
    ports = _ports_of(pyslang, compilation.getRoot(), name)
    if ports is None:
        raise ValueError(f"the reference declares no top-level module {name!r}")
    return ports


def declared_modules(source: str) -> frozenset[str]:
    """Names of the modules, packages and primitives ``source`` declares (harness files)."""
    return frozenset(
        m.group(2)
        for m in re.finditer(
            r"\b(module|macromodule|package|primitive|interface|program)\s+(?:automatic\s+|static\s+)?([A-Za-z_][A-Za-z0-9_$]*)",
            _strip(source),
        )
    )


def _reject(status: Status, message: str, diagnostics: Iterable[Diagnostic]) -> GateReport:
    return GateReport(status, message, tuple(diagnostics))


# Name look-ups that fail when the design reaches for something of the testbench's.
_LOOKUP_FAILURES = frozenset(
    {"UndeclaredIdentifier", "UnknownModule", "CouldNotResolveHierarchicalPath", "UnknownPackage",
     "UnknownClassOrPackage", "UnknownPrimitive", "UnknownInterface"}
)  # fmt: skip


def _names_harness(message: str, harness: frozenset[str]) -> bool:
    return any(re.search(rf"'{re.escape(name)}'", message) for name in harness) or "$root" in message


# --- the preprocessor scan ------------------------------------------------------------------


def _strip(code: str) -> str:
    """``code`` with comments and string literals blanked out (newlines kept)."""
    out, i, n = [], 0, len(code)
    while i < n:
        c = code[i]
        if code.startswith("//", i):
            end = code.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif code.startswith("/*", i):
            end = code.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", code[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and code[j] not in '"\n':
                j += 2 if code[j] == "\\" else 1
            j = min(j + 1, n)
            out.append('"' + " " * max(j - i - 2, 0) + ('"' if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _scan_directives(code: str) -> GateReport | None:
    text = _strip(code)
    bodies: dict[str, int] = {}
    uses: list[str] = []
    for match in re.finditer(r"`", text):
        line = text.count("\n", 0, match.start()) + 1
        name_match = _IDENT.match(text, match.end())
        if name_match is None:
            return _directive_error(
                Status.CE, "a stray backtick (token pasting and stringification are not allowed)", line
            )
        name = name_match.group()
        if name == "include":
            return _directive_error(Status.HACK, "`include is not allowed: a design is one self-contained source", line)
        if name == "define":
            body = _define_body(text, name_match.end())
            macro = _IDENT.search(body)
            rest = body[macro.end() :] if macro else ""
            if "`" in rest:
                return _directive_error(Status.CE, "a macro body may not use other macros or directives", line)
            if macro:
                bodies[macro.group()] = len(rest)
        elif name not in ALLOWED_DIRECTIVES:
            uses.append(name)
    for name in uses:
        if name not in bodies:
            return _directive_error(
                Status.CE, f"`{name} is not a macro defined in the design nor an allowed directive", None
            )
    if sum(bodies[name] for name in uses) > MACRO_BUDGET_CHARS:
        return _directive_error(Status.CE, "macro expansion is too large", None)
    return None


def _define_body(text: str, start: int) -> str:
    end = start
    while True:
        newline = text.find("\n", end)
        if newline < 0:
            return text[start:]
        if not text[start:newline].rstrip().endswith("\\"):
            return text[start:newline]
        end = newline + 1


def _directive_error(status: Status, message: str, line: int | None) -> GateReport:
    return _reject(status, message, [Diagnostic(message, file=SOURCE_FILE, line=line, code="directive")])


# --- the syntax walk ------------------------------------------------------------------------

_FORBIDDEN_KINDS = {
    "BindDirective": (Status.HACK, "bind is not allowed in a design"),
    "DPIImport": (Status.HACK, "DPI imports are not allowed"),
    "DPIExport": (Status.HACK, "DPI exports are not allowed"),
    "DefParam": (Status.HACK, "defparam is not allowed in a design"),
    "ProceduralForceStatement": (Status.HACK, "force is not allowed in a design"),
    "ProceduralReleaseStatement": (Status.HACK, "release is not allowed in a design"),
    "RootScope": (Status.HACK, "$root is not allowed: a design may not name the testbench's hierarchy"),
    "ProceduralAssignStatement": (Status.CE, "procedural assign/deassign is not supported"),
    "ProceduralDeassignStatement": (Status.CE, "procedural assign/deassign is not supported"),
    "ClassDeclaration": (Status.CE, "classes are not supported in designs here"),
    "ProgramDeclaration": (Status.CE, "programs are not supported in designs here"),
    "InterfaceDeclaration": (Status.CE, "interfaces are not supported in designs here"),
    "CheckerDeclaration": (Status.CE, "checkers are not supported in designs here"),
    "ConfigDeclaration": (Status.CE, "configurations are not supported"),
    "LibraryDeclaration": (Status.CE, "library declarations are not supported"),
    "ExternModuleDecl": (Status.CE, "extern modules are not supported"),
}
_DECLARATIONS = ("ModuleDeclaration", "PackageDeclaration", "UdpDeclaration")


def _syntax_findings(
    pyslang: Any, tree: Any, source_manager: Any, harness: frozenset[str]
) -> list[tuple[Status, Diagnostic]]:
    kinds = pyslang.syntax.SyntaxKind
    findings: list[tuple[Status, Diagnostic]] = []

    def at(node: Any, status: Status, message: str, code: str) -> None:
        location = node.getFirstToken().location
        line, column = source_manager.getLineNumber(location), source_manager.getColumnNumber(location)
        findings.append((status, Diagnostic(message, SOURCE_FILE, line, column, "error", code)))

    def forbidden(node: Any) -> None:
        status, message = _FORBIDDEN_KINDS[node.kind.name]
        at(node, status, message, "forbidden")

    def declaration(node: Any) -> None:
        name = node.header.name.valueText if node.kind.name != "UdpDeclaration" else node.name.valueText
        if name in harness:
            at(
                node,
                Status.HACK,
                f"the design may not declare {name!r}: that name belongs to the testbench",
                "harness-name",
            )

    def system_name(node: Any) -> None:
        name = node.systemIdentifier.valueText
        if name in ALLOWED_SYSTEM_CALLS:
            return
        if name in HACK_SYSTEM_CALLS:
            at(
                node,
                Status.HACK,
                f"{name} is not allowed in a design: it could end or steer the testbench",
                "system-task",
            )
        else:
            at(node, Status.CE, f"{name} is not supported in designs here", "system-task")

    table = {getattr(kinds, kind): forbidden for kind in _FORBIDDEN_KINDS}
    table |= {getattr(kinds, kind): declaration for kind in _DECLARATIONS}
    table[kinds.SystemName] = system_name
    tree.root.visit(lookup_table=table)
    findings.sort(key=lambda f: (f[0] is not Status.HACK, f[1].line or 0, f[1].column or 0))
    return findings


def _slang_diagnostics(pyslang: Any, compilation: Any, source_manager: Any) -> list[Diagnostic]:
    engine = pyslang.DiagnosticEngine(source_manager)
    out = []
    for diag in compilation.getAllDiagnostics():
        severity = "error" if diag.isError() else "warning"
        line = source_manager.getLineNumber(diag.location) or None
        column = source_manager.getColumnNumber(diag.location) or None
        out.append(Diagnostic(engine.formatMessage(diag), SOURCE_FILE, line, column, severity, _code_name(diag.code)))
    return out


def _code_name(code: Any) -> str:
    text = str(code)
    match = re.fullmatch(r"DiagCode\((\w+)\)", text)
    return match.group(1) if match else text


# --- the elaborated design --------------------------------------------------------------------


def _input_writes(pyslang: Any, root: Any, source_manager: Any) -> list[Diagnostic]:
    """Assignments (of any kind) whose target is an input port of the design's modules."""
    ast = pyslang.ast
    inputs: set[tuple[str, int]] = set()

    def collect(node: Any) -> None:
        for port in node.body.portList:
            if isinstance(port, ast.PortSymbol) and port.direction == ast.ArgumentDirection.In and port.internalSymbol:
                inputs.add(_key(port.internalSymbol))

    found: list[Diagnostic] = []

    def assignment(node: Any) -> None:
        for symbol in _lvalue_roots(ast, node.left):
            if _key(symbol) in inputs:
                location = node.sourceRange.start
                line, column = source_manager.getLineNumber(location), source_manager.getColumnNumber(location)
                message = f"the design drives its input port {symbol.name!r}"
                found.append(Diagnostic(message, SOURCE_FILE, line, column, "error", "input-driven"))

    root.visit(lookup_table={ast.SymbolKind.Instance: collect})
    root.visit(lookup_table={ast.ExpressionKind.Assignment: assignment})
    return found


def _key(symbol: Any) -> tuple[str, int]:
    return symbol.name, int(symbol.location.offset)


def _lvalue_roots(ast: Any, expression: Any) -> list[Any]:
    kind = expression.kind.name
    if kind in ("NamedValue", "HierarchicalValue"):
        return [expression.symbol]
    if kind in ("ElementSelect", "RangeSelect", "MemberAccess"):
        return _lvalue_roots(ast, expression.value)
    if kind in ("Concatenation", "SimpleAssignmentPattern", "StructuredAssignmentPattern"):
        return [s for operand in getattr(expression, "operands", ()) for s in _lvalue_roots(ast, operand)]
    if kind == "Conversion":
        return _lvalue_roots(ast, expression.operand)
    return []


def _ports_of(pyslang: Any, root: Any, name: str) -> tuple[Port, ...] | None:
    ast = pyslang.ast
    for instance in root.topInstances:
        if instance.name != name:
            continue
        ports = []
        for port in instance.body.portList:
            if not isinstance(port, ast.PortSymbol) or not port.name:
                raise _InterfaceError(f"port {port.name or '(unnamed)'!r} is not a plain port")
            direction = str(port.direction.name)
            ports.append(Port(str(port.name), _DIRECTIONS.get(direction, direction.lower()), int(port.type.bitWidth)))
        return tuple(ports)
    return None


class _InterfaceError(ValueError):
    pass


_DIRECTIONS = {"In": "input", "Out": "output", "InOut": "inout", "Ref": "ref"}


def _interface_mismatches(pyslang: Any, root: Any, expected: tuple[Port, ...]) -> list[Diagnostic]:
    def mismatch(message: str) -> Diagnostic:
        return Diagnostic(f"interface mismatch: {message}", SOURCE_FILE, None, None, "error", "interface")

    try:
        ports = _ports_of(pyslang, root, TOP)
    except _InterfaceError as e:
        return [mismatch(str(e))]
    if ports is None:
        return [
            mismatch(
                f"no top-level module named {TOP} (write `module {TOP}(...)`, not instantiated by your other modules)"
            )
        ]
    got = {p.name: p for p in ports}
    want = {p.name: p for p in expected}
    problems = []
    for port in expected:
        have = got.get(port.name)
        if have is None:
            problems.append(mismatch(f"missing port {port.name!r} (expected `{port.render()}`)"))
        elif have.direction != port.direction:
            problems.append(mismatch(f"port {port.name!r} is an {have.direction}, expected `{port.render()}`"))
        elif have.width != port.width:
            problems.append(
                mismatch(f"port {port.name!r} is {have.width} bit(s) wide, expected {port.width} (`{port.render()}`)")
            )
    problems += [mismatch(f"unexpected port {name!r} (`{got[name].render()}`)") for name in got if name not in want]
    return problems
