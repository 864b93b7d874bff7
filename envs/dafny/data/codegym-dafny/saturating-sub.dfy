// Saturating subtraction of natural numbers: x - y, or 0 when y is larger, computed by
// counting both numbers down together.
method SatSub(x: nat, y: nat) returns (d: nat)
  ensures d == if x >= y then x - y else 0
{
  var a: nat, b: nat := x, y;
  while a > 0 && b > 0
    invariant a - b == x - y
    decreases a
  {
    a, b := a - 1, b - 1;
  }
  d := a;
}
