// Count down from n to 0, summing as it goes; the sum is n * (n + 1) / 2.
method CountDown(n: nat) returns (s: nat)
  ensures 2 * s == n * (n + 1)
{
  s := 0;
  var k := n;
  while k > 0
    invariant 0 <= k <= n
    invariant 2 * s == n * (n + 1) - k * (k + 1)
    decreases k
  {
    s := s + k;
    k := k - 1;
  }
}
