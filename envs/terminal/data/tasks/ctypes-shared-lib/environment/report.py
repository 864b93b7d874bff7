"""Prints the mean and standard deviation of the numbers given on the command line, via libstats."""

import ctypes
import os
import sys

LIB = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "libstats.so"))
for name in ("st_mean", "st_stddev"):
    getattr(LIB, name).restype = ctypes.c_double
    getattr(LIB, name).argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_size_t]


def main() -> None:
    xs = [float(a) for a in sys.argv[1:]]
    arr = (ctypes.c_double * len(xs))(*xs)
    print(f"mean={LIB.st_mean(arr, len(xs)):.4f} stddev={LIB.st_stddev(arr, len(xs)):.4f}")


if __name__ == "__main__":
    main()
