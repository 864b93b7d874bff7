#!/bin/bash
set -e
cd /app
printf 'CFLAGS = -O2 -Wall\nLDLIBS = -lm\n\nroute: route.o libgeo.a\n\t$(CC) route.o -L. -lgeo $(LDLIBS) -o route\n\nlibgeo.a: geo.o\n\tar rcs libgeo.a geo.o\n\nclean:\n\trm -f route *.o *.a\n' > Makefile
make
