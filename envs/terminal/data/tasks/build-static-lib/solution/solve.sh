#!/bin/bash
set -e
cd /app
cat > Makefile <<'MK'
CC ?= cc
CFLAGS ?= -O2 -Wall
B = build

all: $(B)/strtool

$(B):
	mkdir -p $(B)

$(B)/strutil.o: src/strutil.c src/strutil.h | $(B)
	$(CC) $(CFLAGS) -c src/strutil.c -o $@

$(B)/libstrutil.a: $(B)/strutil.o
	ar rcs $@ $^

$(B)/strtool: src/main.c src/strutil.h $(B)/libstrutil.a
	$(CC) $(CFLAGS) -Isrc src/main.c -L$(B) -lstrutil -o $@

clean:
	rm -rf $(B)

.PHONY: all clean
MK
make
