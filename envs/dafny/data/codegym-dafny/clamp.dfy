// Clamp every element of an array into the range [lo, hi].
method Clamp(a: array<int>, lo: int, hi: int)
  requires lo <= hi
  modifies a
  ensures forall k :: 0 <= k < a.Length ==> lo <= a[k] <= hi
  ensures forall k :: 0 <= k < a.Length && lo <= old(a[k]) <= hi ==> a[k] == old(a[k])
{
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant forall k :: 0 <= k < i ==> lo <= a[k] <= hi
    invariant forall k :: 0 <= k < i && lo <= old(a[k]) <= hi ==> a[k] == old(a[k])
    invariant forall k :: i <= k < a.Length ==> a[k] == old(a[k])
  {
    if a[i] < lo {
      a[i] := lo;
    } else if a[i] > hi {
      a[i] := hi;
    }
    i := i + 1;
  }
}
