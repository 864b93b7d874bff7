// Count the strictly positive elements of an array; CountPos counts them among the first n.
function CountPos(a: array<int>, n: int): nat
  requires 0 <= n <= a.Length
  reads a
{
  if n == 0 then 0 else CountPos(a, n - 1) + (if a[n - 1] > 0 then 1 else 0)
}

method CountPositives(a: array<int>) returns (c: nat)
  ensures c == CountPos(a, a.Length)
{
  c := 0;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant c == CountPos(a, i)
  {
    if a[i] > 0 {
      c := c + 1;
    }
    i := i + 1;
  }
}
