// Rotate a non-empty array left by one place, in place: every element moves one place
// towards the front and the first element moves to the end.
method RotateLeft(a: array<int>)
  requires a.Length > 0
  modifies a
  ensures forall k :: 0 <= k < a.Length - 1 ==> a[k] == old(a[k + 1])
  ensures a[a.Length - 1] == old(a[0])
{
  var first := a[0];
  var i := 0;
  while i < a.Length - 1
    invariant 0 <= i <= a.Length - 1
    invariant forall k :: 0 <= k < i ==> a[k] == old(a[k + 1])
    invariant forall k :: i <= k < a.Length ==> a[k] == old(a[k])
  {
    a[i] := a[i + 1];
    i := i + 1;
  }
  a[a.Length - 1] := first;
}
