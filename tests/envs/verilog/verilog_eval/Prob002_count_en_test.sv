`timescale 1 ps/1 ps

module stimulus_gen (
  input clk,
  output logic reset,
  output logic en
);
  initial begin
    reset = 1'b1;
    en = 1'b0;
    @(posedge clk);
    @(negedge clk) reset = 1'b0;
    repeat (30) @(negedge clk) en = 1'b1;
    repeat (120) @(negedge clk) begin
      reset = ($random & 31) == 0;
      en = $random;
    end
    #1 $finish;
  end
endmodule

module tb();
  typedef struct packed {
    int errors;
    int errortime;
    int errors_q;
    int errortime_q;
    int clocks;
  } stats;
  stats stats1;

  reg clk = 0;
  initial forever #5 clk = ~clk;

  logic reset;
  logic en;
  logic [3:0] q_ref;
  logic [3:0] q_dut;
  wire tb_match;

  stimulus_gen stim1 (.clk(clk), .reset(reset), .en(en));
  RefModule good1 (.clk(clk), .reset(reset), .en(en), .q(q_ref));
  TopModule top_module1 (.clk(clk), .reset(reset), .en(en), .q(q_dut));

  assign tb_match = ({q_ref} === ({q_ref} ^ {q_dut} ^ {q_ref}));

  final begin
    if (stats1.errors_q) $display("Hint: Output '%s' has %0d mismatches. First mismatch occurred at time %0d.", "q", stats1.errors_q, stats1.errortime_q);
    else $display("Hint: Output '%s' has no mismatches.", "q");
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
    if (q_ref !== (q_ref ^ q_dut ^ q_ref)) begin
      if (stats1.errors_q == 0) stats1.errortime_q = $time;
      stats1.errors_q = stats1.errors_q + 1'b1;
    end
  end

  initial begin
    #1000000
    $display("TIMEOUT");
    $finish();
  end
endmodule
