// Compute b to the power e by repeated multiplication.
function Power(b: int, e: nat): int
{
  if e == 0 then 1 else b * Power(b, e - 1)
}

method ComputePower(b: int, e: nat) returns (p: int)
  ensures p == Power(b, e)
{
  p := 1;
  var i := 0;
  while i < e
    invariant 0 <= i <= e
    invariant p == Power(b, i)
  {
    p := p * b;
    i := i + 1;
  }
}
