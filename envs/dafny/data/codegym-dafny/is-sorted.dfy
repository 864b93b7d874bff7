// Decide whether an array is sorted in non-decreasing order.
predicate Sorted(a: array<int>)
  reads a
{
  forall i, j :: 0 <= i < j < a.Length ==> a[i] <= a[j]
}

method IsSorted(a: array<int>) returns (sorted: bool)
  ensures sorted <==> Sorted(a)
{
  var i := 1;
  while i < a.Length
    invariant 1 <= i <= a.Length || a.Length == 0
    invariant forall p, q :: 0 <= p < q < i && q < a.Length ==> a[p] <= a[q]
  {
    if a[i - 1] > a[i] {
      return false;
    }
    i := i + 1;
  }
  return true;
}
