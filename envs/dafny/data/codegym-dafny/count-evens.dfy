// Count the even elements of a sequence.
function CountEven(s: seq<int>): nat
{
  if |s| == 0 then 0 else CountEven(s[..|s| - 1]) + (if s[|s| - 1] % 2 == 0 then 1 else 0)
}

method CountEvens(s: seq<int>) returns (c: nat)
  ensures c == CountEven(s)
{
  c := 0;
  var i := 0;
  while i < |s|
    invariant 0 <= i <= |s|
    invariant c == CountEven(s[..i])
  {
    assert s[..i + 1][..i] == s[..i];
    if s[i] % 2 == 0 {
      c := c + 1;
    }
    i := i + 1;
  }
  assert s[..|s|] == s;
}
