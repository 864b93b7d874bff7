// Sum the elements of an array with a loop; SumTo gives the sum of the first n elements.
function SumTo(a: array<int>, n: int): int
  requires 0 <= n <= a.Length
  reads a
{
  if n == 0 then 0 else SumTo(a, n - 1) + a[n - 1]
}

method Sum(a: array<int>) returns (s: int)
  ensures s == SumTo(a, a.Length)
{
  s := 0;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant s == SumTo(a, i)
  {
    s := s + a[i];
    i := i + 1;
  }
}
