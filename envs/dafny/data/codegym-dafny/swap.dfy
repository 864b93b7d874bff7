// Swap two elements of an array.
method Swap(a: array<int>, i: int, j: int)
  requires 0 <= i < a.Length && 0 <= j < a.Length
  modifies a
  ensures a[i] == old(a[j]) && a[j] == old(a[i])
  ensures forall k :: 0 <= k < a.Length && k != i && k != j ==> a[k] == old(a[k])
{
  var t := a[i];
  a[i] := a[j];
  a[j] := t;
}

// Move the largest of the first two elements to the front.
method LargerFirst(a: array<int>)
  requires a.Length >= 2
  modifies a
  ensures a[0] >= a[1]
  ensures multiset(a[..]) == old(multiset(a[..]))
{
  if a[0] < a[1] {
    Swap(a, 0, 1);
    assert a[..] == old(a[..])[0 := old(a[1])][1 := old(a[0])];
  }
}
