// Raise each element of a to the matching element of b where that one is larger, in place:
// a[k] becomes the larger of a[k] and b[k].
function Max(x: int, y: int): int
{
  if x >= y then x else y
}

method MaxInto(a: array<int>, b: array<int>)
  requires a.Length == b.Length
  modifies a
  ensures forall k :: 0 <= k < a.Length ==> a[k] == Max(old(a[k]), old(b[k]))
{
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant forall k :: 0 <= k < i ==> a[k] == Max(old(a[k]), old(b[k]))
    invariant forall k :: i <= k < a.Length ==> a[k] == old(a[k]) && b[k] == old(b[k])
  {
    if b[i] > a[i] {
      a[i] := b[i];
    }
    i := i + 1;
  }
}
