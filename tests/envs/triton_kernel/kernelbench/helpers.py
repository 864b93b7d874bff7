"""Not a problem file (no Model): the loader skips it."""

SCALE = 2
