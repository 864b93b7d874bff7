// The index of a largest element of a non-empty array.
method IndexOfMax(a: array<int>) returns (index: int)
  requires a.Length > 0
  ensures 0 <= index < a.Length
  ensures forall k :: 0 <= k < a.Length ==> a[k] <= a[index]
{
  index := 0;
  var i := 1;
  while i < a.Length
    invariant 1 <= i <= a.Length
    invariant 0 <= index < i
    invariant forall k :: 0 <= k < i ==> a[k] <= a[index]
  {
    if a[i] > a[index] {
      index := i;
    }
    i := i + 1;
  }
}
