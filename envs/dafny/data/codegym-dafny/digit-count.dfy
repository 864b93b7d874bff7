// Count the digits of n written in base b (0 has one digit), dividing by b until one digit
// is left.
function NumDigits(n: nat, b: nat): nat
  requires b >= 2
{
  if n < b then 1 else 1 + NumDigits(n / b, b)
}

method DigitCount(n: nat, b: nat) returns (c: nat)
  requires b >= 2
  ensures c == NumDigits(n, b)
{
  c := 1;
  var m: nat := n;
  while m >= b
    invariant c + NumDigits(m, b) == NumDigits(n, b) + 1
    decreases m
  {
    m := m / b;
    c := c + 1;
  }
}
