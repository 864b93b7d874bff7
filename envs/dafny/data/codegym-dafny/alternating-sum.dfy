// The alternating sum a[0] - a[1] + a[2] - a[3] + ... of an array, keeping the current sign
// in a variable.
function AltSum(a: array<int>, n: int): int
  requires 0 <= n <= a.Length
  reads a
{
  if n == 0 then 0 else AltSum(a, n - 1) + (if n % 2 == 1 then a[n - 1] else -a[n - 1])
}

method AlternatingSum(a: array<int>) returns (s: int)
  ensures s == AltSum(a, a.Length)
{
  s := 0;
  var sign := 1;
  var i := 0;
  while i < a.Length
    invariant 0 <= i <= a.Length
    invariant sign == (if i % 2 == 0 then 1 else -1)
    invariant s == AltSum(a, i)
  {
    s := s + sign * a[i];
    sign := -sign;
    i := i + 1;
  }
}
