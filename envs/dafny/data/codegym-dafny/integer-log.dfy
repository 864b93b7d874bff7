// The integer logarithm of a positive number n in base b: the k with b^k <= n < b^(k + 1),
// found by multiplying a power of b until it would pass n.
function Pow(b: nat, k: nat): nat
{
  if k == 0 then 1 else b * Pow(b, k - 1)
}

method IntLog(n: nat, b: nat) returns (k: nat)
  requires n >= 1 && b >= 2
  ensures Pow(b, k) <= n < Pow(b, k + 1)
{
  k := 0;
  var p := 1;
  while p * b <= n
    invariant 1 <= p <= n
    invariant p == Pow(b, k)
    decreases n - p
  {
    p := p * b;
    k := k + 1;
  }
}
