// Lower bound in a sorted array by bisection: the first index whose element is at least x
// (a.Length when there is none), which is also how many elements are less than x.
predicate Sorted(a: array<int>)
  reads a
{
  forall i, j :: 0 <= i < j < a.Length ==> a[i] <= a[j]
}

method LowerBound(a: array<int>, x: int) returns (index: int)
  requires Sorted(a)
  ensures 0 <= index <= a.Length
  ensures forall k :: 0 <= k < index ==> a[k] < x
  ensures forall k :: index <= k < a.Length ==> a[k] >= x
{
  var low, high := 0, a.Length;
  while low < high
    invariant 0 <= low <= high <= a.Length
    invariant forall k :: 0 <= k < low ==> a[k] < x
    invariant forall k :: high <= k < a.Length ==> a[k] >= x
    decreases high - low
  {
    var mid := (low + high) / 2;
    if a[mid] < x {
      low := mid + 1;
    } else {
      high := mid;
    }
  }
  index := low;
}
