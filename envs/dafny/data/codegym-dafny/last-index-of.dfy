// The index of the last occurrence of x in an array, or -1 when x does not occur,
// scanning from the end.
method LastIndexOf(a: array<int>, x: int) returns (index: int)
  ensures -1 <= index < a.Length
  ensures 0 <= index ==> a[index] == x && forall k :: index < k < a.Length ==> a[k] != x
  ensures index < 0 ==> forall k :: 0 <= k < a.Length ==> a[k] != x
{
  index := a.Length - 1;
  while index >= 0 && a[index] != x
    invariant -1 <= index < a.Length
    invariant forall k :: index < k < a.Length ==> a[k] != x
    decreases index
  {
    index := index - 1;
  }
}
