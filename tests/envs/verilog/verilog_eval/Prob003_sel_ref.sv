module RefModule (
  input [7:0] a,
  input [7:0] b,
  input sel,
  output [7:0] out
);
  Pick p (.a(a), .b(b), .s(sel), .y(out));
endmodule

module Pick (
  input [7:0] a,
  input [7:0] b,
  input s,
  output [7:0] y
);
  assign y = s ? b : a;
endmodule
