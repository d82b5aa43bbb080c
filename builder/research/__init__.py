"""Pure research functions: plain data in, plain data out; no I/O, no clock, no randomness."""
