// Integer division by repeated subtraction: quotient and remainder.
method Divide(x: nat, y: nat) returns (q: nat, r: nat)
  requires y > 0
  ensures x == q * y + r && r < y
{
  q, r := 0, x;
  while r >= y
    invariant x == q * y + r
    decreases r
  {
    q, r := q + 1, r - y;
  }
}
