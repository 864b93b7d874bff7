// Return the first index of key in the array, or -1 when it is absent.
method Find(a: array<int>, key: int) returns (index: int)
  ensures -1 <= index < a.Length
  ensures index >= 0 ==> a[index] == key && forall k :: 0 <= k < index ==> a[k] != key
  ensures index == -1 ==> forall k :: 0 <= k < a.Length ==> a[k] != key
{
  index := 0;
  while index < a.Length
    invariant 0 <= index <= a.Length
    invariant forall k :: 0 <= k < index ==> a[k] != key
  {
    if a[index] == key {
      return;
    }
    index := index + 1;
  }
  index := -1;
}
