// Decide whether a sequence reads the same forwards and backwards.
method IsPalindrome(s: seq<int>) returns (r: bool)
  ensures r <==> forall k :: 0 <= k < |s| ==> s[k] == s[|s| - 1 - k]
{
  r := true;
  var i := 0;
  while i < |s| / 2
    invariant 0 <= i <= |s| / 2
    invariant r <==> forall k :: 0 <= k < i ==> s[k] == s[|s| - 1 - k]
  {
    if s[i] != s[|s| - 1 - i] {
      r := false;
    }
    i := i + 1;
  }
}
