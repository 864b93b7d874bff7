// The dot product of two arrays of the same length; Dot gives it over the first n positions.
function Dot(a: array<int>, b: array<int>, n: int): int
  requires 0 <= n <= a.Length && n <= b.Length
  reads a, b
{
  if n == 0 then 0 else Dot(a, b, n - 1) + a[n - 1] * b[n - 1]
}

method DotProduct(a: array<int>, b: array<int>) returns (d: int)
  requires a.Length == b.Length
  ensures d == Dot(a, b, a.Length)
{
  d := 0;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant d == Dot(a, b, i)
  {
    d := d + a[i] * b[i];
    i := i + 1;
  }
}
