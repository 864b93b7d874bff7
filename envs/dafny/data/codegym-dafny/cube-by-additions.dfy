// Compute n cubed with additions only: d is the gap (i + 1)^3 - i^3 and e the gap between
// consecutive values of d.
method Cube(n: nat) returns (c: nat)
  ensures c == n * n * n
{
  c := 0;
  var i := 0;
  var d := 1;
  var e := 6;
  while i < n
    invariant 0 <= i <= n
    invariant c == i * i * i
    invariant d == 3 * i * i + 3 * i + 1
    invariant e == 6 * i + 6
  {
    assert (i + 1) * (i + 1) * (i + 1) == i * i * i + 3 * i * i + 3 * i + 1;
    assert (i + 1) * (i + 1) == i * i + 2 * i + 1;
    c := c + d;
    d := d + e;
    e := e + 6;
    i := i + 1;
  }
}
