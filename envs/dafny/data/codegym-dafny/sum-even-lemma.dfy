// Prove that the sum of the first n even numbers is n * (n - 1), then compute it.
function SumEvens(n: nat): nat
{
  if n == 0 then 0 else SumEvens(n - 1) + 2 * (n - 1)
}

lemma SumEvensFormula(n: nat)
  ensures SumEvens(n) == n * (n - 1)
{
  if n > 0 {
    SumEvensFormula(n - 1);
  }
}

method EvenTotal(n: nat) returns (t: nat)
  ensures t == n * (n - 1)
{
  t := 0;
  var i := 0;
  while i < n
    invariant 0 <= i <= n
    invariant t == SumEvens(i)
  {
    t := t + 2 * i;
    i := i + 1;
  }
  SumEvensFormula(n);
}
