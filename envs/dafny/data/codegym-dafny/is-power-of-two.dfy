// Decide whether n is a power of two (1, 2, 4, 8, ...) by halving it while it is even.
function IsPow2(n: nat): bool
{
  if n == 0 then false else if n == 1 then true else n % 2 == 0 && IsPow2(n / 2)
}

method PowerOfTwo(n: nat) returns (r: bool)
  ensures r == IsPow2(n)
{
  if n == 0 {
    return false;
  }
  var m: nat := n;
  while m % 2 == 0
    invariant m >= 1
    invariant IsPow2(m) == IsPow2(n)
    decreases m
  {
    m := m / 2;
  }
  r := m == 1;
}
