// Decide whether an array holds two equal elements at different places.
method HasDuplicate(a: array<int>) returns (dup: bool)
  ensures dup <==> exists i, j :: 0 <= i < j < a.Length && a[i] == a[j]
{
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant forall p, q :: 0 <= p < q < a.Length && p < i ==> a[p] != a[q]
  {
    var j := i + 1;
    while j < a.Length
      invariant i + 1 <= j <= a.Length
      invariant forall q :: i < q < j ==> a[i] != a[q]
    {
      if a[i] == a[j] {
        return true;
      }
      j := j + 1;
    }
    i := i + 1;
  }
  return false;
}
