// Sum the absolute values of a sequence's elements.
function method Abs(x: int): nat
{
  if x < 0 then -x else x
}

function AbsSum(s: seq<int>): nat
{
  if |s| == 0 then 0 else AbsSum(s[..|s| - 1]) + Abs(s[|s| - 1])
}

method SumOfAbs(s: seq<int>) returns (t: nat)
  ensures t == AbsSum(s)
{
  t := 0;
  var i := 0;
  while i < |s|
    invariant 0 <= i <= |s|
    invariant t == AbsSum(s[..i])
  {
    assert s[..i + 1][..i] == s[..i];
    t := t + Abs(s[i]);
    i := i + 1;
  }
  assert s[..|s|] == s;
}
