// Sum the squares 1*1 + 2*2 + ... + n*n without multiplying in the loop: each square is the
// previous one plus the next odd number.
function SumSquares(n: nat): nat
{
  if n == 0 then 0 else SumSquares(n - 1) + n * n
}

method SquareTotal(n: nat) returns (s: nat)
  ensures s == SumSquares(n)
{
  s := 0;
  var i := 0;
  var sq := 0;
  while i < n
    invariant 0 <= i <= n
    invariant sq == i * i
    invariant s == SumSquares(i)
  {
    sq := sq + 2 * i + 1;
    i := i + 1;
    s := s + sq;
  }
}
