#!/bin/bash
set -euo pipefail
cat > /app/proj/Makefile <<'MK'
# Builds build/app incrementally; gcc -MMD writes each object's header dependencies.
CC = gcc
CFLAGS = -O2 -Wall
SRCS = $(wildcard src/*.c)
OBJS = $(patsubst src/%.c,build/%.o,$(SRCS))

all: build/app

build/app: $(OBJS)
	$(CC) -o $@ $^ -lm

build/%.o: src/%.c | build
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

build:
	mkdir -p build

clean:
	rm -rf build

-include $(OBJS:.o=.d)

.PHONY: all clean
MK
make -C /app/proj clean
make -C /app/proj
