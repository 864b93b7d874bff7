// Multiply two naturals by repeated addition.
method Multiply(x: nat, y: nat) returns (p: nat)
  ensures p == x * y
{
  p := 0;
  var i := 0;
  while i < y
    invariant 0 <= i <= y
    invariant p == x * i
  {
    p := p + x;
    i := i + 1;
  }
}
