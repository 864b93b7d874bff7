// Replace each element of an array by the largest element up to and including it, in place
// (a running maximum).
function Max(x: int, y: int): int
{
  if x >= y then x else y
}

method RunningMax(a: array<int>)
  modifies a
  ensures a.Length > 0 ==> a[0] == old(a[0])
  ensures forall k :: 0 < k < a.Length ==> a[k] == Max(a[k - 1], old(a[k]))
{
  if a.Length == 0 {
    return;
  }
  var i := 1;
  while i < a.Length
    invariant 1 <= i <= a.Length
    invariant a[0] == old(a[0])
    invariant forall k :: 0 < k < i ==> a[k] == Max(a[k - 1], old(a[k]))
    invariant forall k :: i <= k < a.Length ==> a[k] == old(a[k])
  {
    if a[i] < a[i - 1] {
      a[i] := a[i - 1];
    }
    i := i + 1;
  }
}
