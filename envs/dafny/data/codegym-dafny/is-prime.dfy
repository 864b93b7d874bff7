// Decide whether n is prime by trial division by every candidate divisor from 2 to n - 1.
// DivisorBelow(n, k) says that some d with 2 <= d < k divides n.
function DivisorBelow(n: nat, k: nat): bool
{
  if k <= 2 then false else DivisorBelow(n, k - 1) || n % (k - 1) == 0
}

method IsPrime(n: nat) returns (r: bool)
  ensures r <==> n >= 2 && !DivisorBelow(n, n)
{
  if n < 2 {
    return false;
  }
  r := true;
  var d := 2;
  while d < n
    invariant 2 <= d <= n
    invariant r <==> !DivisorBelow(n, d)
  {
    if n % d == 0 {
      r := false;
    }
    d := d + 1;
  }
}
