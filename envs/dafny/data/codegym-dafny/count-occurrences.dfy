// Count how many times x occurs in a sequence.
function Count(s: seq<int>, x: int): nat
{
  if |s| == 0 then 0 else Count(s[..|s| - 1], x) + (if s[|s| - 1] == x then 1 else 0)
}

method CountOccurrences(s: seq<int>, x: int) returns (c: nat)
  ensures c == Count(s, x)
{
  c := 0;
  var i := 0;
  while i < |s|
    invariant 0 <= i <= |s|
    invariant c == Count(s[..i], x)
  {
    assert s[..i + 1][..i] == s[..i];
    if s[i] == x {
      c := c + 1;
    }
    i := i + 1;
  }
  assert s[..|s|] == s;
}
