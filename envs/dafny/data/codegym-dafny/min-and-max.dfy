// The smallest and the largest element of a non-empty array, found together in one pass.
method MinMax(a: array<int>) returns (lo: int, hi: int)
  requires a.Length > 0
  ensures forall k :: 0 <= k < a.Length ==> lo <= a[k] <= hi
  ensures exists k :: 0 <= k < a.Length && a[k] == lo
  ensures exists k :: 0 <= k < a.Length && a[k] == hi
{
  lo, hi := a[0], a[0];
  var i := 1;
  while i < a.Length
    invariant 1 <= i <= a.Length
    invariant forall k :: 0 <= k < i ==> lo <= a[k] <= hi
    invariant exists k :: 0 <= k < i && a[k] == lo
    invariant exists k :: 0 <= k < i && a[k] == hi
  {
    if a[i] < lo {
      lo := a[i];
    } else if a[i] > hi {
      hi := a[i];
    }
    i := i + 1;
  }
}
