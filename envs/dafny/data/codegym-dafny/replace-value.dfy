// Replace every occurrence of x in an array by y, in place, leaving the other elements
// unchanged, and return how many elements were replaced.
function CountOf(a: array<int>, x: int, n: int): nat
  requires 0 <= n <= a.Length
  reads a
{
  if n == 0 then 0 else CountOf(a, x, n - 1) + (if a[n - 1] == x then 1 else 0)
}

method Replace(a: array<int>, x: int, y: int) returns (c: nat)
  modifies a
  ensures forall k :: 0 <= k < a.Length ==> a[k] == (if old(a[k]) == x then y else old(a[k]))
  ensures c == old(CountOf(a, x, a.Length))
{
  c := 0;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant forall k :: 0 <= k < i ==> a[k] == (if old(a[k]) == x then y else old(a[k]))
    invariant forall k :: i <= k < a.Length ==> a[k] == old(a[k])
    invariant c == old(CountOf(a, x, i))
  {
    if a[i] == x {
      a[i] := y;
      c := c + 1;
    }
    i := i + 1;
  }
}
