// Swap neighbouring elements pairwise, in place: a[0] with a[1], a[2] with a[3], and so on;
// with an odd length the last element stays where it is.
method SwapPairs(a: array<int>)
  modifies a
  ensures forall k :: 0 <= k < a.Length && k % 2 == 0 && k + 1 < a.Length ==> a[k] == old(a[k + 1])
  ensures forall k :: 0 <= k < a.Length && k % 2 == 1 ==> a[k] == old(a[k - 1])
  ensures a.Length % 2 == 1 ==> a[a.Length - 1] == old(a[a.Length - 1])
{
  var i := 0;
  while i + 1 < a.Length
    invariant 0 <= i <= a.Length && i % 2 == 0
    invariant forall k :: 0 <= k < i && k % 2 == 0 ==> a[k] == old(a[k + 1])
    invariant forall k :: 0 <= k < i && k % 2 == 1 ==> a[k] == old(a[k - 1])
    invariant forall k :: i <= k < a.Length ==> a[k] == old(a[k])
    decreases a.Length - i
  {
    a[i], a[i + 1] := a[i + 1], a[i];
    i := i + 2;
  }
}
