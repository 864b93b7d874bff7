"""The native meter's annotation (`codegym.meter.native`): which lines of gcc's assembly are
weighed as divisions, and what it refuses. Pure: no compiler, no valgrind."""

from __future__ import annotations

import pytest

from codegym.meter import native

ASSEMBLY = """\
\t.file\t"main.c"
\t.text
\t.section\t.rodata.str1.1,"aMS",@progbits,1
.LC0:
\t.string\t"%ld"
\t.byte\t7
\t.section\t.text.startup,"ax",@progbits
\t.p2align 4
main:
\t.file 1 "main.c"
\t.loc 1 3 5 is_stmt 0
\tsubq\t$24, %rsp
\t.cfi_def_cfa_offset 32
\t.loc 1 4 9
\tcqto
\tidivq\t%rcx
\tdivsd\t%xmm1, %xmm0
\tvsqrtsd\t%xmm1, %xmm1, %xmm0
\tfdivrp\t%st, %st(1)
\trep stosq
\timull\t$10, %eax, %eax
\t.file 2 "/usr/include/stdio.h"
\t.loc 2 80 1
\tcall\tprintf@PLT
\t.byte\t0x48, 0xf7, 0xf9
\tret
"""


def test_every_code_line_gets_a_line_of_its_own_and_divisions_are_known() -> None:
    annotated, table = native.annotate(ASSEMBLY, "main.c")
    d, i = native.DIVISION, native.PLAIN
    # .p2align, subq, cqto, idivq, divsd, vsqrtsd, fdivrp, rep stosq, imull, call, .byte (data in code), ret
    assert table.kinds == i + i + i + d + d + d + d + i + i + i + d + i
    assert table.source_lines == (0, 3, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0)
    numbered = [row for row in annotated.splitlines() if row.startswith("\t.loc 1 ")]
    assert numbered == [f"\t.loc 1 {n} 0" for n in range(1, 13)]
    assert "is_stmt" not in annotated and "\t.loc 2" not in annotated
    assert annotated.count('.file 1 "main.c"') == 1
    assert annotated.index('.file 1 "main.c"') < annotated.index("\t.loc 1 1 0")
    assert '\t.string\t"%ld"\n\t.byte\t7\n' in annotated  # (data outside code: untouched)


def test_inline_assembly_is_refused_where_it_emits_anything() -> None:
    empty = ASSEMBLY.replace("\tret\n", '#APP\n# 5 "main.c" 1\n\t\n#NO_APP\n\tret\n')
    native.annotate(empty, "main.c")  # (a compiler barrier, asm(""), emits nothing)
    hidden = ASSEMBLY.replace("\tret\n", "#APP\n\t.byte 0x48, 0xf7, 0xf9\n#NO_APP\n\tret\n")
    with pytest.raises(native.InlineAssembly) as refused:
        native.annotate(hidden, "main.c")
    assert refused.value.line == 0


def test_weighing_charges_divisions_and_unknown_lines_and_misses() -> None:
    table = native.Table("idi", (3, 4, 0))
    rows = [
        native.Row("main", True, 1, 100, 2),
        native.Row("main", True, 2, 10, 0),
        native.Row("main", True, 3, 5, 0),
        native.Row("main", True, 99, 7, 0),  # (a line the table does not know: a division)
        native.Row("printf", False, 40, 50, 1),
    ]
    weighed = native.weigh(rows, table)
    assert weighed.divisions == 17
    w, m = native.DIVISION_WEIGHT, native.MISPREDICT_WEIGHT
    assert weighed.lines == {3: 100 + 2 * m, 4: 10 * w}
    assert weighed.functions == {"main": 100 + 2 * m + 10 * w + 5 + 7 * w, "printf": 50 + m}
    assert native.cost(172, 17, 3) == 172 + (w - 1) * 17 + m * 3


def test_a_table_round_trips_and_a_bad_one_is_refused() -> None:
    table = native.Table("id", (1, 0))
    assert native.Table.from_json(table.to_json()) == table
    for bad in ('{"kinds": "ix", "source_lines": [1, 2]}', '{"kinds": "i", "source_lines": []}', "[]"):
        with pytest.raises((ValueError, KeyError, TypeError)):
            native.Table.from_json(bad)
