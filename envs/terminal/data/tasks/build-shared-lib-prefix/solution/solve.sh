#!/bin/bash
set -e
P=/opt/greet
mkdir -p $P/lib $P/include $P/bin
cd /app/greet
cc -O2 -fPIC -shared -Wl,-soname,libgreet.so.1 greet.c -o $P/lib/libgreet.so.1.2.0
ln -sf libgreet.so.1.2.0 $P/lib/libgreet.so.1
ln -sf libgreet.so.1 $P/lib/libgreet.so
cp greet.h $P/include/
cc -O2 -I. hello.c -L$P/lib -lgreet -Wl,-rpath,'$ORIGIN/../lib' -o $P/bin/hello
