// Count the inversions of an array: the pairs of positions i < j with a[i] > a[j].
// Above(a, x, m) counts the elements before position m that are greater than x.
function Above(a: array<int>, x: int, m: int): nat
  requires 0 <= m <= a.Length
  reads a
{
  if m == 0 then 0 else Above(a, x, m - 1) + (if a[m - 1] > x then 1 else 0)
}

function Inversions(a: array<int>, n: int): nat
  requires 0 <= n <= a.Length
  reads a
{
  if n == 0 then 0 else Inversions(a, n - 1) + Above(a, a[n - 1], n - 1)
}

method CountInversions(a: array<int>) returns (c: nat)
  ensures c == Inversions(a, a.Length)
{
  c := 0;
  var j := 0;
  while j < a.Length
    invariant 0 <= j <= a.Length
    invariant c == Inversions(a, j)
  {
    var i := 0;
    while i < j
      invariant 0 <= i <= j
      invariant c == Inversions(a, j) + Above(a, a[j], i)
    {
      if a[i] > a[j] {
        c := c + 1;
      }
      i := i + 1;
    }
    j := j + 1;
  }
}
