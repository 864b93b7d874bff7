// Sum a sequence from the left, although Sum recurses on the tail: a lemma proves that
// appending an element adds it to the sum.
function Sum(s: seq<int>): int
{
  if |s| == 0 then 0 else s[0] + Sum(s[1..])
}

lemma SumAppend(s: seq<int>, x: int)
  ensures Sum(s + [x]) == Sum(s) + x
{
  if |s| > 0 {
    assert (s + [x])[1..] == s[1..] + [x];
    SumAppend(s[1..], x);
  }
}

method SumLeft(s: seq<int>) returns (t: int)
  ensures t == Sum(s)
{
  t := 0;
  var i := 0;
  while i < |s|
    invariant 0 <= i <= |s|
    invariant t == Sum(s[..i])
  {
    assert s[..i + 1] == s[..i] + [s[i]];
    SumAppend(s[..i], s[i]);
    t := t + s[i];
    i := i + 1;
  }
  assert s[..|s|] == s;
}
