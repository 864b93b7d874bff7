// Prove Gauss's formula for the sum of 0..n by induction, then use it in a loop.
function SumUpTo(n: nat): nat
{
  if n == 0 then 0 else n + SumUpTo(n - 1)
}

lemma Gauss(n: nat)
  ensures 2 * SumUpTo(n) == n * (n + 1)
  decreases n
{
  if n > 0 {
    Gauss(n - 1);
  }
}

method Triangle(n: nat) returns (t: nat)
  ensures 2 * t == n * (n + 1)
{
  t := 0;
  var i := 0;
  while i < n
    invariant 0 <= i <= n
    invariant t == SumUpTo(i)
  {
    i := i + 1;
    t := t + i;
  }
  Gauss(n);
}
