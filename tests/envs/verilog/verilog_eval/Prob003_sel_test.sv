`timescale 1 ps/1 ps

module stimulus_gen (
  input clk,
  output reg [7:0] a,
  output reg [7:0] b,
  output reg sel
);
  initial begin
    {a, b, sel} = 0;
    repeat (100) @(negedge clk) {a, b, sel} = {$random, $random};
    #1 $finish;
  end
endmodule

module tb();
  typedef struct packed {
    int errors;
    int errortime;
    int errors_out;
    int errortime_out;
    int clocks;
  } stats;
  stats stats1;

  reg clk = 0;
  initial forever #5 clk = ~clk;

  logic [7:0] a;
  logic [7:0] b;
  logic sel;
  logic [7:0] out_ref;
  logic [7:0] out_dut;
  wire tb_match;

  stimulus_gen stim1 (.clk(clk), .a(a), .b(b), .sel(sel));
  RefModule good1 (.a(a), .b(b), .sel(sel), .out(out_ref));
  TopModule top_module1 (.a(a), .b(b), .sel(sel), .out(out_dut));

  assign tb_match = ({out_ref} === ({out_ref} ^ {out_dut} ^ {out_ref}));

  final begin
    if (stats1.errors_out) $display("Hint: Output '%s' has %0d mismatches. First mismatch occurred at time %0d.", "out", stats1.errors_out, stats1.errortime_out);
    else $display("Hint: Output '%s' has no mismatches.", "out");
    $display("Hint: Total mismatched samples is %1d out of %1d samples\n", stats1.errors, stats1.clocks);
    $display("Simulation finished at %0d ps", $time);
    $display("Mismatches: %1d in %1d samples", stats1.errors, stats1.clocks);
  end

  initial stats1 = 0;

  always @(posedge clk, negedge clk) begin
    stats1.clocks++;
    if (!tb_match) begin
      if (stats1.errors == 0) stats1.errortime = $time;
      stats1.errors++;
    end
    if (out_ref !== (out_ref ^ out_dut ^ out_ref)) begin
      if (stats1.errors_out == 0) stats1.errortime_out = $time;
      stats1.errors_out = stats1.errors_out + 1'b1;
    end
  end

  initial begin
    #1000000
    $display("TIMEOUT");
    $finish();
  end
endmodule
