"""Build ``problems.json``: the original RTL problems of ``codegym/Verilog-v1``.

Every problem below was written for this project: a spec (the natural-language statement;
the ``TopModule`` interface is appended when the task is loaded), a reference ``RefModule``,
a stimulus description (directed vectors, how many seeded random vectors, per-input
distributions, a reset phase for clocked designs; see ``testbench.Stimulus``), a difficulty
and tags. The build derives each problem's ports from its reference with pyslang (so the
interface shown to the agent is the reference's) and gives each problem its own seed (a hash
of its id). Regenerate from the repository root with:

    .venv/bin/python envs/verilog/data/build_problems.py
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from codegym.envs.verilog.gate import module_ports

HERE = Path(__file__).parent
RESET = {"port": "reset", "active": 1, "cycles": 2}
SEQ = {"clock": "clk", "reset": RESET, "random": 200, "distributions": {"reset": {"p1": 0.04}}}

P: list[dict] = []


def problem(pid: str, title: str, difficulty: str, tags: str, spec: str, reference: str, **stimulus: object) -> None:
    P.append({"id": f"codegym-verilog/{pid}", "title": title, "difficulty": difficulty, "tags": tags.split(),
              "spec": spec.strip(), "reference": reference.strip() + "\n", "stimulus": stimulus})  # fmt: skip


# --- combinational ------------------------------------------------------------------------------

problem(
    "mux2",
    "Byte multiplexer",
    "easy",
    "combinational mux",
    """Select one of two 8-bit inputs: `y` equals `a` when `sel` is 0 and `b` when `sel` is 1.""",
    """module RefModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);
  assign y = sel ? b : a;
endmodule""",
    directed=[{"a": 1, "b": 2, "sel": 0}, {"a": 1, "b": 2, "sel": 1}],
    random=60,
)

problem(
    "mux4",
    "Four-way multiplexer",
    "easy",
    "combinational mux",
    """Output `y` is the 4-bit input selected by the 2-bit `sel`: `d0` for 0, `d1` for 1, `d2` for 2
and `d3` for 3.""",
    """module RefModule(input [3:0] d0, input [3:0] d1, input [3:0] d2, input [3:0] d3, input [1:0] sel,
                 output reg [3:0] y);
  always @* case (sel) 2'd0: y = d0; 2'd1: y = d1; 2'd2: y = d2; default: y = d3; endcase
endmodule""",
    directed=[{"d0": 1, "d1": 2, "d2": 4, "d3": 8, "sel": s} for s in range(4)],
    random=100,
)

problem(
    "decoder3to8",
    "3-to-8 decoder with enable",
    "easy",
    "combinational decoder",
    """When `en` is 1, exactly bit `sel` of the 8-bit output `y` is 1 and all other bits are 0.
When `en` is 0, `y` is 0.""",
    """module RefModule(input en, input [2:0] sel, output [7:0] y);
  assign y = en ? (8'd1 << sel) : 8'd0;
endmodule""",
    directed=[{"en": e, "sel": s} for e in (0, 1) for s in range(8)],
    random=20,
)

problem(
    "priority8",
    "Priority encoder",
    "medium",
    "combinational encoder",
    """`idx` is the index of the most significant 1 bit of the 8-bit input `req`, and `valid` is 1 when
any bit of `req` is 1. When `req` is 0, `idx` is 0 and `valid` is 0.""",
    """module RefModule(input [7:0] req, output reg [2:0] idx, output valid);
  integer k;
  always @* begin
    idx = 3'd0;
    for (k = 0; k < 8; k = k + 1) if (req[k]) idx = k[2:0];
  end
  assign valid = |req;
endmodule""",
    directed=[{"req": 1 << k} for k in range(8)] + [{"req": 0}, {"req": 255}, {"req": 0x81}],
    random=120,
)

problem(
    "adder8",
    "8-bit adder with carries",
    "easy",
    "combinational arithmetic",
    """Add the unsigned 8-bit inputs `a` and `b` and the carry-in `cin`. `sum` is the low 8 bits of the
result and `cout` is the carry out of bit 7.""",
    """module RefModule(input [7:0] a, input [7:0] b, input cin, output [7:0] sum, output cout);
  assign {cout, sum} = a + b + cin;
endmodule""",
    directed=[{"a": 255, "b": 0, "cin": 1}, {"a": 128, "b": 128, "cin": 0}, {"a": 255, "b": 255, "cin": 1}],
    random=150,
)

problem(
    "addsub8",
    "Adder-subtractor with overflow",
    "medium",
    "combinational arithmetic",
    """When `sub` is 0, `y = a + b`; when `sub` is 1, `y = a - b` (8-bit results, wrapping). `ovf` is 1 when
the operation overflows if `a`, `b` and `y` are read as signed two's-complement numbers.""",
    """module RefModule(input [7:0] a, input [7:0] b, input sub, output [7:0] y, output ovf);
  wire [7:0] bb = sub ? ~b : b;
  assign y = a + bb + sub;
  assign ovf = (a[7] == bb[7]) && (y[7] != a[7]);
endmodule""",
    directed=[
        {"a": 127, "b": 1, "sub": 0},
        {"a": 128, "b": 1, "sub": 1},
        {"a": 0, "b": 128, "sub": 1},
        {"a": 100, "b": 100, "sub": 1},
    ],
    random=200,
)

problem(
    "compare4",
    "Unsigned comparator",
    "easy",
    "combinational comparator",
    """Compare the unsigned 4-bit inputs `a` and `b`: `eq` is 1 when they are equal, `lt` when `a < b`, and
`gt` when `a > b`.""",
    """module RefModule(input [3:0] a, input [3:0] b, output eq, output lt, output gt);
  assign eq = a == b;
  assign lt = a < b;
  assign gt = a > b;
endmodule""",
    directed=[{"a": 3, "b": 3}, {"a": 0, "b": 15}, {"a": 15, "b": 0}],
    random=120,
)

problem(
    "signed_less8",
    "Signed comparison",
    "medium",
    "combinational comparator",
    """Read `a` and `b` as signed 8-bit two's-complement numbers. `lt` is 1 when `a < b`, and `min` is the
smaller of the two (either one when they are equal).""",
    """module RefModule(input [7:0] a, input [7:0] b, output lt, output [7:0] min);
  assign lt = $signed(a) < $signed(b);
  assign min = lt ? a : b;
endmodule""",
    directed=[{"a": 0x80, "b": 0x7F}, {"a": 0xFF, "b": 0}, {"a": 5, "b": 5}],
    random=150,
)

problem(
    "popcount8",
    "Population count",
    "easy",
    "combinational counting",
    """`count` is the number of 1 bits in the 8-bit input `x`.""",
    """module RefModule(input [7:0] x, output reg [3:0] count);
  integer k;
  always @* begin
    count = 4'd0;
    for (k = 0; k < 8; k = k + 1) count = count + x[k];
  end
endmodule""",
    directed=[{"x": 0}, {"x": 255}, {"x": 0x55}],
    random=100,
)

problem(
    "parity9",
    "Parity generator",
    "easy",
    "combinational parity",
    """For the 9-bit input `d`, `even` is the bit that makes the total number of 1s in `d` plus `even`
even, and `odd` is its complement.""",
    """module RefModule(input [8:0] d, output even, output odd);
  assign even = ^d;
  assign odd = ~^d;
endmodule""",
    directed=[{"d": 0}, {"d": 511}, {"d": 1}],
    random=100,
)

problem(
    "gray4",
    "Gray code converter",
    "medium",
    "combinational code",
    """`gray` is the 4-bit reflected Gray code of the binary input `bin`, and `back` is the binary value
whose Gray code is the input `code` (the inverse conversion).""",
    """module RefModule(input [3:0] bin, input [3:0] code, output [3:0] gray, output [3:0] back);
  assign gray = bin ^ (bin >> 1);
  assign back = {code[3], code[3] ^ code[2], code[3] ^ code[2] ^ code[1], code[3] ^ code[2] ^ code[1] ^ code[0]};
endmodule""",
    directed=[{"bin": k, "code": k} for k in range(16)],
    random=40,
)

problem(
    "seg7",
    "BCD to seven segments",
    "medium",
    "combinational decoder display",
    """Drive a common-anode seven-segment digit: `seg[6:0]` holds segments g,f,e,d,c,b,a (bit 6 is g, bit
0 is a) and a segment is lit when its bit is 0. For the BCD digit `digit` 0-9 light the usual
segments (0: a b c d e f; 1: b c; 2: a b d e g; 3: a b c d g; 4: b c f g; 5: a c d f g; 6: a c d e f g;
7: a b c; 8: all; 9: a b c d f g). For 10-15 every segment is dark.""",
    """module RefModule(input [3:0] digit, output reg [6:0] seg);
  always @* case (digit)
    4'd0: seg = 7'b1000000; 4'd1: seg = 7'b1111001; 4'd2: seg = 7'b0100100; 4'd3: seg = 7'b0110000;
    4'd4: seg = 7'b0011001; 4'd5: seg = 7'b0010010; 4'd6: seg = 7'b0000010; 4'd7: seg = 7'b1111000;
    4'd8: seg = 7'b0000000; 4'd9: seg = 7'b0010000; default: seg = 7'b1111111;
  endcase
endmodule""",
    directed=[{"digit": k} for k in range(16)],
    random=20,
)

problem(
    "rotate8",
    "Barrel rotator",
    "medium",
    "combinational shifter",
    """Rotate the 8-bit input `x` by `amt` (0-7) positions: to the left when `left` is 1, to the right
when `left` is 0. Bits that leave one end re-enter at the other.""",
    """module RefModule(input [7:0] x, input [2:0] amt, input left, output [7:0] y);
  wire [15:0] l = {x, x} << amt;
  wire [15:0] r = {x, x} >> amt;
  assign y = left ? l[15:8] : r[7:0];
endmodule""",
    directed=[{"x": 0x81, "amt": a, "left": d} for a in (0, 1, 7) for d in (0, 1)],
    random=150,
)

problem(
    "clz16",
    "Leading zero count",
    "medium",
    "combinational counting",
    """`zeros` is the number of 0 bits above the most significant 1 bit of the 16-bit input `x` (16 when
`x` is 0).""",
    """module RefModule(input [15:0] x, output reg [4:0] zeros);
  integer k;
  reg found;
  always @* begin
    zeros = 5'd0; found = 1'b0;
    for (k = 15; k >= 0; k = k - 1) begin
      if (x[k]) found = 1'b1;
      else if (!found) zeros = zeros + 1'b1;
    end
  end
endmodule""",
    directed=[{"x": 0}, {"x": 1}, {"x": 0x8000}, {"x": 0x00F0}],
    random=150,
    distributions={"x": {"values": [0, 1, 2, 3, 5, 0x10, 0x3F, 0x100, 0x7FF, 0x1234, 0x4000, 0xFFFF]}},
)

problem(
    "alu8",
    "Small ALU",
    "medium",
    "combinational arithmetic alu",
    """An 8-bit ALU. The 2-bit `op` selects `y`: 0: `a & b`; 1: `a | b`; 2: `a ^ b`; 3: `a + b` (low 8
bits). `zero` is 1 when `y` is 0.""",
    """module RefModule(input [7:0] a, input [7:0] b, input [1:0] op, output reg [7:0] y, output zero);
  always @* case (op) 2'd0: y = a & b; 2'd1: y = a | b; 2'd2: y = a ^ b; default: y = a + b; endcase
  assign zero = y == 8'd0;
endmodule""",
    directed=[{"a": 0xF0, "b": 0x0F, "op": o} for o in range(4)] + [{"a": 0x80, "b": 0x80, "op": 3}],
    random=200,
)

problem(
    "absdiff8",
    "Absolute difference",
    "easy",
    "combinational arithmetic",
    """`d` is the absolute difference of the unsigned 8-bit inputs `a` and `b`.""",
    """module RefModule(input [7:0] a, input [7:0] b, output [7:0] d);
  assign d = (a > b) ? a - b : b - a;
endmodule""",
    directed=[{"a": 0, "b": 255}, {"a": 255, "b": 0}, {"a": 9, "b": 9}],
    random=150,
)

problem(
    "max3",
    "Largest of three",
    "easy",
    "combinational comparator",
    """`m` is the largest of the three unsigned 8-bit inputs `a`, `b` and `c`.""",
    """module RefModule(input [7:0] a, input [7:0] b, input [7:0] c, output [7:0] m);
  wire [7:0] ab = (a > b) ? a : b;
  assign m = (ab > c) ? ab : c;
endmodule""",
    directed=[{"a": 1, "b": 2, "c": 3}, {"a": 3, "b": 2, "c": 1}, {"a": 2, "b": 3, "c": 1}],
    random=150,
)

problem(
    "onehot8",
    "One-hot to binary",
    "medium",
    "combinational encoder",
    """The 8-bit input `oh` should be one-hot. When exactly one bit is 1, `bin` is its index and `err` is
0. Otherwise (no bit or several bits set) `bin` is 0 and `err` is 1.""",
    """module RefModule(input [7:0] oh, output reg [2:0] bin, output reg err);
  integer k, n;
  always @* begin
    n = 0; bin = 3'd0;
    for (k = 0; k < 8; k = k + 1) if (oh[k]) begin n = n + 1; bin = k[2:0]; end
    err = n != 1;
    if (err) bin = 3'd0;
  end
endmodule""",
    directed=[{"oh": 1 << k} for k in range(8)] + [{"oh": 0}, {"oh": 3}],
    random=100,
    distributions={"oh": {"values": [1, 2, 4, 8, 16, 32, 64, 128, 0, 3, 0x90, 0xFF]}},
)

problem(
    "satadd8",
    "Saturating adder",
    "easy",
    "combinational arithmetic",
    """`y` is the unsigned sum of the 8-bit inputs `a` and `b`, saturated at 255 (when the true sum is
above 255, `y` is 255).""",
    """module RefModule(input [7:0] a, input [7:0] b, output [7:0] y);
  wire [8:0] s = a + b;
  assign y = s[8] ? 8'hFF : s[7:0];
endmodule""",
    directed=[{"a": 200, "b": 55}, {"a": 200, "b": 56}, {"a": 0, "b": 0}],
    random=150,
)

problem(
    "mul4",
    "4x4 multiplier",
    "easy",
    "combinational arithmetic",
    """`p` is the 8-bit unsigned product of the 4-bit inputs `a` and `b`.""",
    """module RefModule(input [3:0] a, input [3:0] b, output [7:0] p);
  assign p = a * b;
endmodule""",
    directed=[{"a": 15, "b": 15}, {"a": 0, "b": 9}],
    random=150,
)

# --- sequential ----------------------------------------------------------------------------------

problem(
    "reg_en",
    "Register with enable",
    "easy",
    "sequential register",
    """An 8-bit register `q` updated on the rising edge of `clk`: a synchronous active-high `reset` sets
it to 0; otherwise when `en` is 1 it loads `d`; otherwise it keeps its value.""",
    """module RefModule(input clk, input reset, input en, input [7:0] d, output reg [7:0] q);
  always @(posedge clk) if (reset) q <= 8'd0; else if (en) q <= d;
endmodule""",
    **SEQ,
    directed=[{"en": 1, "d": 5}, {"en": 0, "d": 9}, {"en": 1, "d": 255}],
)

problem(
    "bcd_counter",
    "Decade counter",
    "easy",
    "sequential counter",
    """A counter `count` from 0 to 9 on the rising edge of `clk`. A synchronous active-high `reset` sets it
to 0. Otherwise, when `en` is 1 it counts up by one, wrapping from 9 back to 0; when `en` is 0 it
holds. `tick` is a combinational output that is 1 when `count` is 9 and `en` is 1.""",
    """module RefModule(input clk, input reset, input en, output reg [3:0] count, output tick);
  always @(posedge clk)
    if (reset) count <= 4'd0;
    else if (en) count <= (count == 4'd9) ? 4'd0 : count + 4'd1;
  assign tick = en && count == 4'd9;
endmodule""",
    **{**SEQ, "distributions": {"reset": {"p1": 0.02}, "en": {"p1": 0.8}}},
    directed=[{"en": 1}] * 12,
)

problem(
    "updown4",
    "Loadable up/down counter",
    "medium",
    "sequential counter",
    """A 4-bit counter `q` on the rising edge of `clk`. Synchronous active-high `reset` sets `q` to 0.
Otherwise `load` (priority) loads `d`; else when `en` is 1 it counts up when `up` is 1 and down when
`up` is 0, wrapping around; else it holds.""",
    """module RefModule(input clk, input reset, input load, input [3:0] d, input en, input up, output reg [3:0] q);
  always @(posedge clk)
    if (reset) q <= 4'd0;
    else if (load) q <= d;
    else if (en) q <= up ? q + 4'd1 : q - 4'd1;
endmodule""",
    **{**SEQ, "distributions": {"reset": {"p1": 0.03}, "load": {"p1": 0.1}}},
    directed=[{"en": 1, "up": 0}, {"en": 1, "up": 1}, {"load": 1, "d": 15}, {"en": 1, "up": 1}],
)

problem(
    "shift8",
    "Serial-in shift register",
    "easy",
    "sequential shift",
    """An 8-bit shift register `q`. On each rising edge of `clk`: a synchronous active-high `reset` clears
it; otherwise, when `shift` is 1, `q` shifts left by one and `sin` enters at bit 0; otherwise it
holds. `sout` is bit 7 of `q`.""",
    """module RefModule(input clk, input reset, input shift, input sin, output reg [7:0] q, output sout);
  always @(posedge clk) if (reset) q <= 8'd0; else if (shift) q <= {q[6:0], sin};
  assign sout = q[7];
endmodule""",
    **SEQ,
    directed=[{"shift": 1, "sin": 1}] * 3 + [{"shift": 0, "sin": 0}, {"shift": 1, "sin": 0}],
)

problem(
    "lfsr8",
    "Linear feedback shift register",
    "medium",
    "sequential lfsr",
    """An 8-bit Fibonacci LFSR `state`. On a rising edge of `clk`: a synchronous active-high `reset` sets
it to 8'h01; else when `load` is 1 it loads `seed`; else it shifts left by one and the new bit 0 is
`state[7] ^ state[5] ^ state[4] ^ state[3]`.""",
    """module RefModule(input clk, input reset, input load, input [7:0] seed, output reg [7:0] state);
  always @(posedge clk)
    if (reset) state <= 8'h01;
    else if (load) state <= seed;
    else state <= {state[6:0], state[7] ^ state[5] ^ state[4] ^ state[3]};
endmodule""",
    **{**SEQ, "distributions": {"reset": {"p1": 0.02}, "load": {"p1": 0.05}}},
    directed=[{}] * 10 + [{"load": 1, "seed": 0xA5}, {}, {}],
)

problem(
    "edges",
    "Edge detector",
    "easy",
    "sequential edge",
    """Detect edges of the input `sig`, sampled on the rising edge of `clk`. `rise` is 1 for one cycle
after a clock edge at which `sig` is 1 and was 0 at the previous edge; `fall` likewise for a 1 to 0
change. Both are registered outputs. A synchronous active-high `reset` clears them and sets the
remembered previous value to 0.""",
    """module RefModule(input clk, input reset, input sig, output reg rise, output reg fall);
  reg prev;
  always @(posedge clk)
    if (reset) begin prev <= 1'b0; rise <= 1'b0; fall <= 1'b0; end
    else begin prev <= sig; rise <= sig & ~prev; fall <= ~sig & prev; end
endmodule""",
    **SEQ,
    directed=[{"sig": 1}, {"sig": 1}, {"sig": 0}, {"sig": 1}, {"sig": 0}, {"sig": 0}],
)

problem(
    "detect1011",
    "Sequence detector 1011",
    "medium",
    "sequential fsm mealy",
    """Detect the bit pattern 1, 0, 1, 1 on the serial input `x` (one bit per rising edge of `clk`,
overlapping occurrences allowed). `found` is a combinational (Mealy) output: it is 1 during the
cycle whose `x` is the final 1 of the pattern, i.e. when the bits sampled at the three previous
edges were 1, 0, 1 and `x` is now 1. A synchronous active-high `reset` forgets all history.""",
    """module RefModule(input clk, input reset, input x, output found);
  reg [1:0] s;  // 0: nothing, 1: "1", 2: "10", 3: "101"
  always @(posedge clk)
    if (reset) s <= 2'd0;
    else case (s)
      2'd0: s <= x ? 2'd1 : 2'd0;
      2'd1: s <= x ? 2'd1 : 2'd2;
      2'd2: s <= x ? 2'd3 : 2'd0;
      default: s <= x ? 2'd1 : 2'd2;
    endcase
  assign found = (s == 2'd3) && x;
endmodule""",
    **{**SEQ, "random": 300},
    directed=[{"x": b} for b in (1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1)],
)

problem(
    "traffic",
    "Traffic light controller",
    "hard",
    "sequential fsm timer",
    """A traffic light cycles GREEN for 4 cycles, YELLOW for 1 cycle and RED for 3 cycles, then GREEN
again. `light` encodes the state (GREEN = 2'd0, YELLOW = 2'd1, RED = 2'd2). A synchronous
active-high `reset` puts it at the start of GREEN. While `walk` is 1 at a rising edge during GREEN,
the light goes to YELLOW at that edge instead of finishing GREEN. Each state's count starts when the
state is entered; with no `walk`, after reset the outputs are G G G G Y R R R G ... (one per cycle).""",
    """module RefModule(input clk, input reset, input walk, output reg [1:0] light);
  reg [1:0] t;
  always @(posedge clk)
    if (reset) begin light <= 2'd0; t <= 2'd0; end
    else case (light)
      2'd0: if (walk || t == 2'd3) begin light <= 2'd1; t <= 2'd0; end else t <= t + 2'd1;
      2'd1: begin light <= 2'd2; t <= 2'd0; end
      default: if (t == 2'd2) begin light <= 2'd0; t <= 2'd0; end else t <= t + 2'd1;
    endcase
endmodule""",
    **{**SEQ, "distributions": {"reset": {"p1": 0.02}, "walk": {"p1": 0.1}}},
    directed=[{}] * 10,
)

problem(
    "fifo4",
    "Four-entry FIFO",
    "hard",
    "sequential fifo memory",
    """A first-in first-out queue of up to four 8-bit entries, clocked on the rising edge of `clk`, with
a synchronous active-high `reset` that empties it. On an edge, `push` with `!full` appends `din`, and
`pop` with `!empty` removes the oldest entry; both may happen at the same edge (a push when full or
a pop when empty is ignored, even if the other happens too). `empty`, `full` and `count` (0-4)
describe the contents, and `dout` is the oldest entry (0 when empty); all outputs depend only on
the contents.""",
    """module RefModule(input clk, input reset, input push, input pop, input [7:0] din,
                 output [7:0] dout, output empty, output full, output reg [2:0] count);
  reg [7:0] mem [0:3];
  reg [1:0] rd, wr;
  wire do_push = push && count != 3'd4;
  wire do_pop = pop && count != 3'd0;
  always @(posedge clk)
    if (reset) begin rd <= 2'd0; wr <= 2'd0; count <= 3'd0; end
    else begin
      if (do_push) begin mem[wr] <= din; wr <= wr + 2'd1; end
      if (do_pop) rd <= rd + 2'd1;
      count <= count + do_push - do_pop;
    end
  assign empty = count == 3'd0;
  assign full = count == 3'd4;
  assign dout = empty ? 8'd0 : mem[rd];
endmodule""",
    **{**SEQ, "random": 300, "distributions": {"reset": {"p1": 0.01}}},
    directed=[{"push": 1, "din": 10 + k} for k in range(5)] + [{"pop": 1}] * 5 + [{"push": 1, "pop": 1, "din": 7}],
)

problem(
    "debounce",
    "Debouncer",
    "medium",
    "sequential filter",
    """Filter the noisy input `btn`: the output `level` takes the value of `btn` only once `btn` has been
sampled with the same value, different from `level`, at 3 consecutive rising edges of `clk` (it
changes at the third such edge). Any sample equal to `level` restarts the count. A synchronous
active-high `reset` sets `level` to 0 and clears the count.""",
    """module RefModule(input clk, input reset, input btn, output reg level);
  reg [1:0] n;
  always @(posedge clk)
    if (reset) begin level <= 1'b0; n <= 2'd0; end
    else if (btn == level) n <= 2'd0;
    else if (n == 2'd2) begin level <= btn; n <= 2'd0; end
    else n <= n + 2'd1;
endmodule""",
    **{**SEQ, "random": 300, "distributions": {"reset": {"p1": 0.01}, "btn": {"p1": 0.5}}},
    directed=[{"btn": 1}] * 2 + [{"btn": 0}] + [{"btn": 1}] * 4 + [{"btn": 0}] * 3,
)

problem(
    "pwm8",
    "PWM generator",
    "medium",
    "sequential counter pwm",
    """An 8-bit free-running counter `cnt` increments on every rising edge of `clk` (wrapping from 255 to
0); a synchronous active-high `reset` sets it to 0. The combinational output `pwm` is 1 while `cnt`
is less than the input `duty`.""",
    """module RefModule(input clk, input reset, input [7:0] duty, output reg [7:0] cnt, output pwm);
  always @(posedge clk) if (reset) cnt <= 8'd0; else cnt <= cnt + 8'd1;
  assign pwm = cnt < duty;
endmodule""",
    **{**SEQ, "random": 400, "distributions": {"reset": {"p1": 0.002}}},
    directed=[{"duty": 3}] * 5,
)

problem(
    "async_counter",
    "Counter with asynchronous reset",
    "easy",
    "sequential counter async",
    """A 4-bit up counter `q` that increments on every rising edge of `clk`. The active-low reset `rst_n`
is asynchronous: while it is 0, `q` is 0 immediately, without waiting for a clock edge.""",
    """module RefModule(input clk, input rst_n, output reg [3:0] q);
  always @(posedge clk or negedge rst_n) if (!rst_n) q <= 4'd0; else q <= q + 4'd1;
endmodule""",
    clock="clk",
    reset={"port": "rst_n", "active": 0, "cycles": 2},
    random=200,
    distributions={"rst_n": {"p1": 0.95}},
    directed=[{}] * 18,
)

problem(
    "accumulator",
    "Accumulator with clear",
    "easy",
    "sequential arithmetic",
    """A 16-bit accumulator `acc`: on each rising edge of `clk`, a synchronous active-high `reset` or a
`clear` sets it to 0, otherwise when `add` is 1 it adds the 8-bit input `x` (wrapping at 16 bits).""",
    """module RefModule(input clk, input reset, input clear, input add, input [7:0] x, output reg [15:0] acc);
  always @(posedge clk) if (reset || clear) acc <= 16'd0; else if (add) acc <= acc + x;
endmodule""",
    **{**SEQ, "distributions": {"reset": {"p1": 0.01}, "clear": {"p1": 0.05}}},
    directed=[{"add": 1, "x": 255}] * 4 + [{"clear": 1}],
)

problem(
    "clkdiv6",
    "Clock divider by six",
    "medium",
    "sequential divider",
    """Produce `out`, a square wave at one sixth of the clock rate: it toggles on every third rising
edge of `clk`. A synchronous active-high `reset` sets `out` to 0 and restarts the count, so after
reset `out` is 0 for 3 cycles, 1 for 3 cycles, and so on.""",
    """module RefModule(input clk, input reset, output reg out);
  reg [1:0] n;
  always @(posedge clk)
    if (reset) begin out <= 1'b0; n <= 2'd0; end
    else if (n == 2'd2) begin out <= ~out; n <= 2'd0; end
    else n <= n + 2'd1;
endmodule""",
    **{**SEQ, "distributions": {"reset": {"p1": 0.01}}},
    directed=[{}] * 12,
)

problem(
    "running_parity",
    "Running parity",
    "easy",
    "sequential parity",
    """`odd` is 1 when an odd number of 1s has been received on `bit_in` at the rising edges of `clk` since
the last synchronous active-high `reset` (which sets `odd` to 0). Only edges where `valid` is 1
count.""",
    """module RefModule(input clk, input reset, input valid, input bit_in, output reg odd);
  always @(posedge clk) if (reset) odd <= 1'b0; else if (valid) odd <= odd ^ bit_in;
endmodule""",
    **SEQ,
    directed=[{"valid": 1, "bit_in": 1}, {"valid": 0, "bit_in": 1}, {"valid": 1, "bit_in": 1}],
)

problem(
    "deserializer",
    "Serial to parallel",
    "hard",
    "sequential shift fsm",
    """Collect 4 bits from `din`, most significant first, at the rising edges of `clk` where `valid` is
1. At the edge that takes the fourth bit, `data` is set to the 4 collected bits and `ready` is set to
1 for one cycle; at any other edge `ready` is 0 and `data` holds. A synchronous active-high `reset`
clears `data`, `ready` and the partial word.""",
    """module RefModule(input clk, input reset, input valid, input din, output reg [3:0] data, output reg ready);
  reg [2:0] n;
  reg [2:0] part;
  always @(posedge clk)
    if (reset) begin n <= 3'd0; part <= 3'd0; data <= 4'd0; ready <= 1'b0; end
    else begin
      ready <= 1'b0;
      if (valid) begin
        if (n == 3'd3) begin data <= {part, din}; ready <= 1'b1; n <= 3'd0; end
        else begin part <= {part[1:0], din}; n <= n + 3'd1; end
      end
    end
endmodule""",
    **{**SEQ, "random": 300, "distributions": {"reset": {"p1": 0.01}, "valid": {"p1": 0.7}}},
    directed=[{"valid": 1, "din": b} for b in (1, 0, 1, 1, 0, 0, 1, 0)],
)

problem(
    "max_tracker",
    "Running maximum",
    "medium",
    "sequential comparator",
    """Track the largest unsigned 8-bit value seen on `x` at rising edges of `clk` where `sample` is 1.
`max` holds it (0 after a synchronous active-high `reset`), and the combinational output `new_max`
is 1 when `sample` is 1 and `x` is greater than the current `max`.""",
    """module RefModule(input clk, input reset, input sample, input [7:0] x, output reg [7:0] max, output new_max);
  assign new_max = sample && x > max;
  always @(posedge clk) if (reset) max <= 8'd0; else if (new_max) max <= x;
endmodule""",
    **SEQ,
    directed=[{"sample": 1, "x": 5}, {"sample": 1, "x": 3}, {"sample": 0, "x": 200}, {"sample": 1, "x": 9}],
)

problem(
    "vending",
    "Vending machine",
    "hard",
    "sequential fsm",
    """A drink costs 15 cents. On each rising edge of `clk`, `nickel` (5 cents) or `dime` (10 cents) may be
inserted (if both are 1, only the dime counts). The machine keeps the credit inserted so far. When
the credit reaches 15 or more at an edge, `vend` is 1 for the next cycle, `change` is 1 for that
cycle if the credit was 20, and the credit returns to 0; otherwise `vend` and `change` are 0. A
synchronous active-high `reset` clears the credit and both outputs.""",
    """module RefModule(input clk, input reset, input nickel, input dime, output reg vend, output reg change);
  reg [4:0] credit;
  wire [4:0] total = credit + (dime ? 5'd10 : nickel ? 5'd5 : 5'd0);
  always @(posedge clk)
    if (reset) begin credit <= 5'd0; vend <= 1'b0; change <= 1'b0; end
    else if (total >= 5'd15) begin credit <= 5'd0; vend <= 1'b1; change <= total == 5'd20; end
    else begin credit <= total; vend <= 1'b0; change <= 1'b0; end
endmodule""",
    **{**SEQ, "random": 300, "distributions": {"reset": {"p1": 0.01}, "nickel": {"p1": 0.4}, "dime": {"p1": 0.3}}},
    directed=[{"nickel": 1}, {"nickel": 1}, {"nickel": 1}, {"dime": 1}, {"dime": 1}, {}, {"nickel": 1}, {"dime": 1}],
)


def records() -> list[dict]:
    """Every problem with its derived ports and seed, as ``problems.json`` stores them."""
    out = []
    for record in P:
        ports = module_ports(record["reference"], "RefModule")
        seed = int(hashlib.sha256(record["id"].encode()).hexdigest()[:8], 16)
        stimulus = {"random": 100, **record["stimulus"], "seed": seed}
        out.append({**record, "ports": [vars(p) for p in ports], "stimulus": stimulus})
    ids = [r["id"] for r in out]
    if len(set(ids)) != len(ids):
        raise SystemExit("duplicate problem ids")
    return out


def main() -> None:
    built = records()
    (HERE / "problems.json").write_text(json.dumps(built, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(built)} problems to {HERE / 'problems.json'}")


if __name__ == "__main__":
    main()
