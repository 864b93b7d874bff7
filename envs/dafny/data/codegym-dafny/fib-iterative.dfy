// Compute the n-th Fibonacci number with a loop, matching the recursive definition Fib.
function Fib(n: nat): nat
{
  if n < 2 then n else Fib(n - 1) + Fib(n - 2)
}

method ComputeFib(n: nat) returns (b: nat)
  ensures b == Fib(n)
{
  if n == 0 {
    return 0;
  }
  var i := 1;
  var a := 0;
  b := 1;
  while i < n
    invariant 0 < i <= n
    invariant a == Fib(i - 1)
    invariant b == Fib(i)
  {
    a, b := b, a + b;
    i := i + 1;
  }
}
