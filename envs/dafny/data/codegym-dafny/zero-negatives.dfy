// Set every negative element of an array to zero, in place, leaving the others unchanged.
method ZeroNegatives(a: array<int>)
  modifies a
  ensures forall k :: 0 <= k < a.Length ==> a[k] == (if old(a[k]) < 0 then 0 else old(a[k]))
{
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant forall k :: 0 <= k < i ==> a[k] == (if old(a[k]) < 0 then 0 else old(a[k]))
    invariant forall k :: i <= k < a.Length ==> a[k] == old(a[k])
  {
    if a[i] < 0 {
      a[i] := 0;
    }
    i := i + 1;
  }
}
