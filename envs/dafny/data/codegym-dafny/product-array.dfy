// Multiply the elements of an array together with a loop; ProductTo gives the product of
// the first n elements.
function ProductTo(a: array<int>, n: int): int
  requires 0 <= n <= a.Length
  reads a
{
  if n == 0 then 1 else ProductTo(a, n - 1) * a[n - 1]
}

method Product(a: array<int>) returns (p: int)
  ensures p == ProductTo(a, a.Length)
{
  p := 1;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant p == ProductTo(a, i)
  {
    p := p * a[i];
    i := i + 1;
  }
}
