// Decide whether all elements of an array are equal to one another.
method AllEqual(a: array<int>) returns (r: bool)
  ensures r <==> forall i, j :: 0 <= i < a.Length && 0 <= j < a.Length ==> a[i] == a[j]
{
  r := true;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant r <==> forall k :: 0 <= k < i ==> a[k] == a[0]
  {
    if a[i] != a[0] {
      r := false;
    }
    i := i + 1;
  }
}
