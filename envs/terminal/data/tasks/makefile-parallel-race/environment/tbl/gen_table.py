"""Writes table.h: a lookup table of the first N squares (slow on purpose: it is a stand-in for a big generator)."""

import sys
import time

n = int(sys.argv[1])
time.sleep(2)
with open("table.h", "w") as f:
    f.write("#define TABLE_N %d\nstatic const long TABLE[] = {%s};\n" % (n, ", ".join(str(i * i) for i in range(n))))
