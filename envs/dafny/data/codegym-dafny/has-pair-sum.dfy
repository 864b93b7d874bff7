// Decide whether two elements at different positions of an array add up to t, trying every
// pair with two nested loops.
method HasPairSum(a: array<int>, t: int) returns (r: bool)
  ensures r <==> exists i, j :: 0 <= i < j < a.Length && a[i] + a[j] == t
{
  r := false;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant r <==> exists p, q :: 0 <= p < i && p < q < a.Length && a[p] + a[q] == t
  {
    var j := i + 1;
    while j < a.Length
      invariant i + 1 <= j <= a.Length
      invariant r <==> exists p, q :: ((0 <= p < i && p < q < a.Length) || (p == i && i < q < j))
                                      && a[p] + a[q] == t
    {
      if a[i] + a[j] == t {
        r := true;
      }
      j := j + 1;
    }
    i := i + 1;
  }
}
