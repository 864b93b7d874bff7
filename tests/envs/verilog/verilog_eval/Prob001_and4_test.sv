`timescale 1 ps/1 ps
`define SAMPLES 80

module stimulus_gen (
  input clk,
  output reg [3:0] x
);
  initial begin
    x = 4'd0;
    @(negedge clk) x = 4'hF;
    repeat (`SAMPLES) @(negedge clk) x = $random;
    #1 $finish;
  end
endmodule

module tb();
  typedef struct packed {
    int errors;
    int errortime;
    int errors_y;
    int errortime_y;
    int clocks;
  } stats;
  stats stats1;

  reg clk = 0;
  initial forever #5 clk = ~clk;

  logic [3:0] x;
  logic y_ref;
  logic y_dut;
  wire tb_match;

  stimulus_gen stim1 (.clk(clk), .x(x));
  RefModule good1 (.x(x), .y(y_ref));
  TopModule top_module1 (.x(x), .y(y_dut));

  assign tb_match = ({y_ref} === ({y_ref} ^ {y_dut} ^ {y_ref}));

  final begin
    if (stats1.errors_y) $display("Hint: Output '%s' has %0d mismatches. First mismatch occurred at time %0d.", "y", stats1.errors_y, stats1.errortime_y);
    else $display("Hint: Output '%s' has no mismatches.", "y");
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
    if (y_ref !== (y_ref ^ y_dut ^ y_ref)) begin
      if (stats1.errors_y == 0) stats1.errortime_y = $time;
      stats1.errors_y = stats1.errors_y + 1'b1;
    end
  end

  initial begin
    #1000000
    $display("TIMEOUT");
    $finish();
  end
endmodule
