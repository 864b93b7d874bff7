// The integer square root: the largest r with r * r <= n.
method Sqrt(n: nat) returns (r: nat)
  ensures r * r <= n < (r + 1) * (r + 1)
{
  r := 0;
  while (r + 1) * (r + 1) <= n
    invariant r * r <= n
    decreases n - r * r
  {
    r := r + 1;
  }
}
