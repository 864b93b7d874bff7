// Count the distinct values of a sorted array: a value is new at index 0 and wherever the
// element differs from the one before it.
predicate Sorted(a: array<int>)
  reads a
{
  forall i, j :: 0 <= i < j < a.Length ==> a[i] <= a[j]
}

function NewValues(a: array<int>, n: int): nat
  requires 0 <= n <= a.Length
  reads a
{
  if n == 0 then 0 else NewValues(a, n - 1) + (if n == 1 || a[n - 1] != a[n - 2] then 1 else 0)
}

method CountDistinct(a: array<int>) returns (c: nat)
  requires Sorted(a)
  ensures c == NewValues(a, a.Length)
{
  c := 0;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant c == NewValues(a, i)
  {
    if i == 0 || a[i] != a[i - 1] {
      c := c + 1;
    }
    i := i + 1;
  }
}
