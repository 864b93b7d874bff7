#!/bin/bash
set -e
cd /app
cat > Makefile <<'MK'
CC = cc
CFLAGS = -O2 -Wall
OBJS = main.o util.o
DEPS = $(OBJS:.o=.d)

app: $(OBJS)
	$(CC) $(CFLAGS) -o app $(OBJS)

%.o: %.c
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(DEPS)

clean:
	rm -f app *.o *.d

.PHONY: clean
MK
make clean >/dev/null
