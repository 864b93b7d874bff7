// The Hamming distance of two arrays of the same length: the number of positions where
// they differ. Mismatches counts them among the first n positions.
function Mismatches(a: array<int>, b: array<int>, n: int): nat
  requires 0 <= n <= a.Length && n <= b.Length
  reads a, b
{
  if n == 0 then 0 else Mismatches(a, b, n - 1) + (if a[n - 1] != b[n - 1] then 1 else 0)
}

method Hamming(a: array<int>, b: array<int>) returns (d: nat)
  requires a.Length == b.Length
  ensures d == Mismatches(a, b, a.Length)
{
  d := 0;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant d == Mismatches(a, b, i)
  {
    if a[i] != b[i] {
      d := d + 1;
    }
    i := i + 1;
  }
}
