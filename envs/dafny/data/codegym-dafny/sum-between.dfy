// The sum of the integers from lo to hi inclusive (0 when lo > hi), added up in a loop.
function SumRange(lo: int, hi: int): int
  decreases hi - lo
{
  if lo > hi then 0 else lo + SumRange(lo + 1, hi)
}

method SumBetween(lo: int, hi: int) returns (s: int)
  ensures s == SumRange(lo, hi)
{
  s := 0;
  var i := lo;
  while i <= hi
    invariant s + SumRange(i, hi) == SumRange(lo, hi)
    decreases hi - i
  {
    s := s + i;
    i := i + 1;
  }
}
