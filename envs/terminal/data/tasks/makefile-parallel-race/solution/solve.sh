#!/bin/bash
set -e
cd /app
printf 'N = 100\nOBJS = main.o lookup.o sum.o\n\nall: sq\n\n.table-n-$(N):\n\trm -f .table-n-*\n\ttouch $@\n\ntable.h: gen_table.py .table-n-$(N)\n\tpython3 gen_table.py $(N)\n\nsq: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n\nlookup.o sum.o: table.h\n\n%%.o: %%.c\n\t$(CC) -O2 -c $< -o $@\n\nclean:\n\trm -f sq *.o table.h .table-n-*\n\n.PHONY: all clean\n' > Makefile
