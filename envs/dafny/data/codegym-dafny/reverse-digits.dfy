// Reverse the digits of n written in base b: peel digits off the end of n and push them
// onto the result. RevOnto(n, b, r) is r with the digits of n appended in reverse order.
function RevOnto(n: nat, b: nat, r: nat): nat
  requires b >= 2
{
  if n == 0 then r else RevOnto(n / b, b, r * b + n % b)
}

method ReverseDigits(n: nat, b: nat) returns (r: nat)
  requires b >= 2
  ensures r == RevOnto(n, b, 0)
{
  r := 0;
  var m: nat := n;
  while m > 0
    invariant RevOnto(m, b, r) == RevOnto(n, b, 0)
    decreases m
  {
    r := r * b + m % b;
    m := m / b;
  }
}
