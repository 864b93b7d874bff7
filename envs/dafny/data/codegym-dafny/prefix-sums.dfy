// Prefix sums into a new array: b[k] is the sum of the first k elements of a, for k from 0
// to a.Length.
function SumFirst(a: array<int>, n: int): int
  requires 0 <= n <= a.Length
  reads a
{
  if n == 0 then 0 else SumFirst(a, n - 1) + a[n - 1]
}

method PrefixSums(a: array<int>) returns (b: array<int>)
  ensures b.Length == a.Length + 1
  ensures forall k :: 0 <= k <= a.Length ==> b[k] == SumFirst(a, k)
{
  b := new int[a.Length + 1];
  b[0] := 0;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant forall k :: 0 <= k <= i ==> b[k] == SumFirst(a, k)
  {
    b[i + 1] := b[i] + a[i];
    i := i + 1;
  }
}
