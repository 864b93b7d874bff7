/* The bytecode meter: runs a program's code object and counts the instructions CPython
   executes for it, and the items builtins iterate over and compare for it (see "work
   inside builtins"), in C, out of the program's reach.

   `run(code, globals, report_fd, key_fd, filename)` is the module's one function, and it
   runs once per process. It reads the report's key from `key_fd` (and closes it), adds an
   audit hook that refuses what could stop or fool the count, makes the frame attributes
   that switch trace events off read-only, installs a C trace function that counts every
   instruction (and, per instruction offset, those of code objects from `filename`: the
   program's own, for its profile), evaluates `code` in `globals`, flushes the program's
   output, and writes the report to `report_fd` between two copies of the key. Then the
   process ends (`_exit`): nothing of the program runs after its report.

   What the program cannot do while counted (each is refused by the audit hook, with an
   exception the program sees): replace the trace or profile function (`sys.settrace`,
   `sys.setprofile`); make or load code objects other than by compiling source
   (`code.__new__`, `marshal.loads`: crafted bytecode reads and writes memory); load native
   code that reads or writes memory (`ctypes`, loaded or not, and CPython's test modules);
   open anything under /proc (a process's memory is there). Frames keep asking for per-instruction events (their `f_trace_opcodes`
   and `f_trace_lines` are read-only). The report says `intact 0` when the trace function
   was replaced anyway.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <structmember.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TABLE_SIZE 8192 /* code objects seen, a power of two */
#define KEY_MAX 64

typedef struct {
    PyCodeObject *code;         /* strong reference; NULL: an empty slot */
    unsigned long long *counts; /* per code unit, for the program's own code; NULL: other code */
    Py_ssize_t units;
} Entry;

static Entry table[TABLE_SIZE];
static Py_ssize_t entries = 0;
static int overflowed = 0;
static unsigned long long total = 0;
static PyObject *own_filename = NULL;
static Py_ssize_t opcodes_offset = -1; /* of PyFrameObject's f_trace_opcodes (a char) */
static int state = 0;                  /* 0: never run, 1: counting, 2: stopping */

/* --- counting ----------------------------------------------------------------------- */

static Py_ssize_t
code_units(PyCodeObject *code)
{
    PyObject *bytes = PyObject_GetAttrString((PyObject *)code, "co_code");
    if (bytes == NULL || !PyBytes_Check(bytes)) {
        Py_XDECREF(bytes);
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t units = PyBytes_GET_SIZE(bytes) / 2;
    Py_DECREF(bytes);
    return units;
}

static Entry *
entry_for(PyCodeObject *code)
{
    size_t slot = ((size_t)code >> 4) & (TABLE_SIZE - 1);
    for (size_t probe = 0; probe < TABLE_SIZE; probe++) {
        Entry *entry = &table[(slot + probe) & (TABLE_SIZE - 1)];
        if (entry->code == code)
            return entry;
        if (entry->code != NULL)
            continue;
        if (entries >= TABLE_SIZE / 2) { /* (later code counts in the total only) */
            overflowed = 1;
            return NULL;
        }
        int own = code->co_filename != NULL && PyUnicode_Check(code->co_filename) &&
                  PyUnicode_Compare(code->co_filename, own_filename) == 0;
        entry->units = own ? code_units(code) : 0;
        entry->counts = entry->units ? PyMem_Calloc((size_t)entry->units, sizeof(unsigned long long)) : NULL;
        Py_INCREF(code);
        entry->code = code;
        entries++;
        return entry;
    }
    overflowed = 1;
    return NULL;
}

static int
trace(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    if (what == PyTrace_CALL) {
        *((char *)frame + opcodes_offset) = 1;
        return 0;
    }
    if (what != PyTrace_OPCODE)
        return 0;
    total++;
    PyCodeObject *code = PyFrame_GetCode(frame);
    Entry *entry = entry_for(code);
    Py_DECREF(code); /* (the table holds its own reference) */
    if (entry != NULL && entry->counts != NULL) {
#if PY_VERSION_HEX >= 0x030B0000
        Py_ssize_t unit = PyFrame_GetLasti(frame) / 2;
#else
        Py_ssize_t unit = frame->f_lasti;
#endif
        if (unit >= 0 && unit < entry->units)
            entry->counts[unit]++;
    }
    return 0;
}

/* --- work inside builtins ----------------------------------------------------------- */

/* A bytecode count alone charges `sorted(a)`, `s.find(t)`, `a[i:j]` or `x << 10**6` as one
   instruction whatever the size of the data: a program that moved its loops into builtins
   would look free while the clock says otherwise. So the work builtins do for the program is
   charged too, in 256ths of an instruction, by what it touches:
   - ITEM: each item a builtin iterator yields, each comparison of a builtin type (the loops
     in `sum`, `max`, `in`, `count`, `index`), n*log2(n) for sorting n items, and each part
     `join` joins or `split` makes;
   - COPIED: each reference a slice, a concatenation, a repetition or a list copy makes;
   - DIGIT: each 30-bit digit a big-int operation reads or writes, and PAIR each pair of
     digits a product, a quotient or a power multiplies;
   - BYTE: each character or byte a string or bytes method, `in`, a slice or a regular
     expression scans or writes (8 BYTEs a character a regular expression scans, 4 a
     reference `insert`, `pop` or `remove` move).
   They are wrapped in the types' own slots and method tables while counting. The weights
   are the times these take in CPython against an instruction's (about 8 ns here), rounded
   up: an instruction 256, an item 256 (a sort's comparison: measured 8.6 ns), a reference
   copied 64 (2 ns), a digit pair 8 (0.4 ns), a digit 4 (0.1 ns), a byte 2 (0.02 to 0.07 ns).
   Work moved into a builtin is cheaper, as on the clock, and never free. */
#define ITEM 256
#define COPIED 64
#define PAIR 8
#define DIGIT 4
#define BYTE 2

static unsigned long long builtin_work = 0; /* in 256ths of an instruction */

static inline void
charge(unsigned long long units, unsigned long long weight)
{
    if (state == 1)
        builtin_work += units * weight;
}

/* The length of a str, bytes, bytearray, list or tuple; 0 for anything else. */
static unsigned long long
length_of(PyObject *object)
{
    if (object == NULL)
        return 0;
    if (PyUnicode_Check(object))
        return (unsigned long long)PyUnicode_GET_LENGTH(object);
    if (PyBytes_Check(object) || PyByteArray_Check(object) || PyList_Check(object) || PyTuple_Check(object))
        return (unsigned long long)Py_SIZE(object);
    return 0;
}

/* What one element of `object` costs to copy or scan. */
static unsigned long long
element_weight(PyObject *object)
{
    return PyList_Check(object) || PyTuple_Check(object) ? COPIED : BYTE;
}

#define ITERATORS(X)                                                                              \
    X(0, PyListIter_Type) X(1, PyListRevIter_Type) X(2, PyTupleIter_Type) X(3, PyRangeIter_Type) \
    X(4, PyLongRangeIter_Type) X(5, PyDictIterKey_Type) X(6, PyDictIterValue_Type)               \
    X(7, PyDictIterItem_Type) X(8, PySetIter_Type) X(9, PyUnicodeIter_Type)                     \
    X(10, PyBytesIter_Type) X(11, PyByteArrayIter_Type) X(12, PySeqIter_Type)                   \
    X(13, PyDictRevIterKey_Type) X(14, PyDictRevIterValue_Type) X(15, PyDictRevIterItem_Type)
#define COMPARED(X)                                                                               \
    X(0, PyLong_Type) X(1, PyFloat_Type) X(2, PyUnicode_Type) X(3, PyTuple_Type) X(4, PyList_Type) \
    X(5, PyBytes_Type)
#define SEQUENCES(X) \
    X(0, PyList_Type) X(1, PyTuple_Type) X(2, PyUnicode_Type) X(3, PyBytes_Type) X(4, PyByteArray_Type)

static iternextfunc original_next[16];
static richcmpfunc original_compare[6];
static binaryfunc original_subscript[5], original_concat[5];
static ssizeargfunc original_repeat[5];
static objobjargproc original_assign[5];
static objobjproc original_contains[5];

#define NEXT(i, type)                          \
    static PyObject *next_##i(PyObject *self)  \
    {                                          \
        charge(1, ITEM);                       \
        return original_next[i](self);         \
    }
#define COMPARE(i, type)                                               \
    static PyObject *compare_##i(PyObject *a, PyObject *b, int op)     \
    {                                                                  \
        charge(1, ITEM);                                               \
        return original_compare[i](a, b, op);                          \
    }
/* a[i:j] (an index costs nothing more), a + b, a * n, a[i:j] = b, x in a (str and bytes) */
#define SEQUENCE(i, type)                                                                   \
    static PyObject *subscript_##i(PyObject *self, PyObject *key)                           \
    {                                                                                       \
        PyObject *result = original_subscript[i](self, key);                                \
        if (result != NULL && PySlice_Check(key))                                           \
            charge(length_of(result), element_weight(self));                                \
        return result;                                                                      \
    }                                                                                       \
    static PyObject *concat_##i(PyObject *self, PyObject *other)                            \
    {                                                                                       \
        PyObject *result = original_concat[i](self, other);                                 \
        charge(length_of(result), element_weight(self));                                    \
        return result;                                                                      \
    }                                                                                       \
    static PyObject *repeat_##i(PyObject *self, Py_ssize_t times)                           \
    {                                                                                       \
        PyObject *result = original_repeat[i](self, times);                                 \
        charge(length_of(result), element_weight(self));                                    \
        return result;                                                                      \
    }                                                                                       \
    static int assign_##i(PyObject *self, PyObject *key, PyObject *value)                   \
    {                                                                                       \
        unsigned long long before = length_of(self);                                        \
        int done = original_assign[i](self, key, value);                                    \
        if (done == 0 && PySlice_Check(key)) {                                              \
            unsigned long long after = length_of(self);                                     \
            charge(length_of(value) + (after != before ? after : 0), element_weight(self)); \
        }                                                                                   \
        return done;                                                                        \
    }                                                                                       \
    static int contains_##i(PyObject *self, PyObject *item)                                 \
    {                                                                                       \
        if (!PyList_Check(self) && !PyTuple_Check(self)) /* (theirs compare: counted) */    \
            charge(length_of(self), BYTE);                                                  \
        return original_contains[i](self, item);                                            \
    }
ITERATORS(NEXT)
COMPARED(COMPARE)
SEQUENCES(SEQUENCE)

/* Big ints: the digits an operation reads and writes. */
static binaryfunc original_number[10];
static ternaryfunc original_power;

static unsigned long long
digits_of(PyObject *object)
{
    return object != NULL && PyLong_Check(object) ? (unsigned long long)Py_ABS(Py_SIZE(object)) : 0;
}

static void
charge_digits(PyObject *a, PyObject *b, PyObject *result, int product)
{
    unsigned long long x = digits_of(a), y = digits_of(b), z = digits_of(result);
    if (x <= 2 && y <= 2 && z <= 2) /* (a small int's operation is its instruction) */
        return;
    if (product)
        charge((x ? x : 1) * (y ? y : 1), PAIR);
    charge(x + y + z, DIGIT);
}

#define NUMBERS(X)                                                                        \
    X(0, nb_add, 0) X(1, nb_subtract, 0) X(2, nb_multiply, 1) X(3, nb_lshift, 0)          \
    X(4, nb_rshift, 0) X(5, nb_and, 0) X(6, nb_or, 0) X(7, nb_xor, 0)                     \
    X(8, nb_floor_divide, 1) X(9, nb_remainder, 1)
#define NUMBER(i, slot, product)                                  \
    static PyObject *number_##i(PyObject *a, PyObject *b)         \
    {                                                             \
        PyObject *result = original_number[i](a, b);              \
        if (state == 1)                                           \
            charge_digits(a, b, result, product);                 \
        return result;                                            \
    }
NUMBERS(NUMBER)

static PyObject *
power(PyObject *a, PyObject *b, PyObject *m)
{
    PyObject *result = original_power(a, b, m);
    unsigned long long z = digits_of(result);
    if (state == 1 && z > 2) /* (its last squaring, at least) */
        charge(z * z + digits_of(m) * digits_of(m), PAIR);
    return result;
}

/* Methods of builtin types, wrapped in their method tables (`PyMethodDef.ml_meth`, read at
   every call). A wrapper knows its method by its index; there is one per calling
   convention. */
enum { SORTS, COPIES_ALL, MOVES_TAIL, SCANS, JOINS, MATCHES };
#define METHOD_SLOTS 96
static void (*original_method[METHOD_SLOTS])(void);
static int method_cost[METHOD_SLOTS], method_flags[METHOD_SLOTS];
static int methods_wrapped = 0;

static void
charge_method(int i, PyObject *self, PyObject *first, PyObject *result)
{
    if (state != 1 || result == NULL)
        return;
    unsigned long long n = length_of(self);
    switch (method_cost[i]) {
    case SORTS: {
        unsigned long long log = 0;
        while ((1ULL << log) < n)
            log++;
        charge(n * log, ITEM);
        break;
    }
    case COPIES_ALL: /* (list.copy, list.reverse) */
        charge(n, COPIED);
        break;
    case MOVES_TAIL: /* (list.insert, list.pop, list.remove: a memmove of the references) */
        charge(n, 4 * BYTE);
        break;
    case SCANS: /* (str and bytes methods: the text, what they make, the parts of a list) */
        charge(n + length_of(result), BYTE);
        if (PyList_Check(result)) /* (split: each part made, and its text) */
            for (Py_ssize_t k = 0; k < PyList_GET_SIZE(result); k++)
                charge(1, ITEM), charge(length_of(PyList_GET_ITEM(result, k)), BYTE);
        break;
    case JOINS: /* (sep.join(parts): each part checked and copied) */
        charge(length_of(result), BYTE);
        charge(length_of(first), ITEM);
        break;
    case MATCHES: /* (a compiled pattern's search, match, findall, sub, split: the text) */
        charge(length_of(first), 8 * BYTE);
        if (PyUnicode_Check(result) || PyBytes_Check(result) || PyList_Check(result))
            charge(length_of(result), BYTE);
        break;
    }
}

static PyObject *
first_of(int i, PyObject *args)
{
    if ((method_flags[i] & METH_VARARGS) && args != NULL && PyTuple_Check(args))
        return PyTuple_GET_SIZE(args) ? PyTuple_GET_ITEM(args, 0) : NULL;
    return args; /* (METH_O: the argument; METH_NOARGS: NULL) */
}

#define WRAPPERS(i)                                                                                  \
    static PyObject *plain_##i(PyObject *self, PyObject *args)                                       \
    {                                                                                                \
        PyObject *result = ((PyCFunction)original_method[i])(self, args);                            \
        charge_method(i, self, first_of(i, args), result);                                           \
        return result;                                                                               \
    }                                                                                                \
    static PyObject *keywords_##i(PyObject *self, PyObject *args, PyObject *kwargs)                  \
    {                                                                                                \
        PyObject *result = ((PyCFunctionWithKeywords)original_method[i])(self, args, kwargs);        \
        charge_method(i, self, first_of(i, args), result);                                           \
        return result;                                                                               \
    }                                                                                                \
    static PyObject *fast_##i(PyObject *self, PyObject *const *args, Py_ssize_t n)                   \
    {                                                                                                \
        PyObject *result = ((_PyCFunctionFast)original_method[i])(self, args, n);                    \
        charge_method(i, self, n > 0 ? args[0] : NULL, result);                                      \
        return result;                                                                               \
    }                                                                                                \
    static PyObject *fast_keywords_##i(PyObject *self, PyObject *const *args, Py_ssize_t n,          \
                                       PyObject *names)                                              \
    {                                                                                                \
        PyObject *result = ((_PyCFunctionFastWithKeywords)original_method[i])(self, args, n, names); \
        charge_method(i, self, n > 0 ? args[0] : NULL, result);                                      \
        return result;                                                                               \
    }                                                                                                \
    static PyObject *defining_##i(PyObject *self, PyTypeObject *owner, PyObject *const *args,        \
                                  size_t n, PyObject *names)                                         \
    {                                                                                                \
        PyObject *result = ((PyCMethod)original_method[i])(self, owner, args, n, names);             \
        charge_method(i, self, PyVectorcall_NARGS(n) > 0 ? args[0] : NULL, result);                  \
        return result;                                                                               \
    }
#define SLOTS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)   \
    X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47)   \
    X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62) X(63)   \
    X(64) X(65) X(66) X(67) X(68) X(69) X(70) X(71) X(72) X(73) X(74) X(75) X(76) X(77) X(78) X(79)   \
    X(80) X(81) X(82) X(83) X(84) X(85) X(86) X(87) X(88) X(89) X(90) X(91) X(92) X(93) X(94) X(95)
SLOTS(WRAPPERS)
#define ENTRY(i) {(void (*)(void))plain_##i, (void (*)(void))keywords_##i, (void (*)(void))fast_##i, \
                  (void (*)(void))fast_keywords_##i, (void (*)(void))defining_##i},
static void (*wrappers[METHOD_SLOTS][5])(void) = {SLOTS(ENTRY)};

/* Wrap `type.name` (a method descriptor of a builtin type) with the cost `cost`. */
static void
wrap_method(PyTypeObject *type, const char *name, int cost)
{
    PyObject *found = type->tp_dict ? PyDict_GetItemString(type->tp_dict, name) : NULL;
    if (found == NULL || Py_TYPE(found) != &PyMethodDescr_Type || methods_wrapped >= METHOD_SLOTS)
        return;
    PyMethodDef *method = ((PyMethodDescrObject *)found)->d_method;
    int flags = method->ml_flags & (METH_VARARGS | METH_FASTCALL | METH_NOARGS | METH_O | METH_KEYWORDS | METH_METHOD);
    int convention = flags == (METH_METHOD | METH_FASTCALL | METH_KEYWORDS) ? 4
                   : flags == (METH_FASTCALL | METH_KEYWORDS) ? 3
                   : flags == METH_FASTCALL                   ? 2
                   : flags == (METH_VARARGS | METH_KEYWORDS)  ? 1
                   : flags == METH_VARARGS || flags == METH_O || flags == METH_NOARGS ? 0 : -1;
    if (convention < 0)
        return;
    int i = methods_wrapped++;
    original_method[i] = (void (*)(void))method->ml_meth;
    method_cost[i] = cost;
    method_flags[i] = flags;
    method->ml_meth = (PyCFunction)wrappers[i][convention];
}

static const char *text_scans[] = {
    "find", "rfind", "index", "rindex", "count", "replace", "split", "rsplit", "splitlines", "translate",
    "upper", "lower", "strip", "lstrip", "rstrip", "partition", "rpartition", "encode", "decode", "hex",
    "expandtabs", "center", "ljust", "rjust", "zfill", "casefold", "swapcase", "title", "capitalize", NULL,
};
static const char *pattern_matches[] = {"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split", NULL};

static void
count_builtin_work(void)
{
#define WRAP_NEXT(i, type)                    \
    if (type.tp_iternext != NULL) {           \
        original_next[i] = type.tp_iternext;  \
        type.tp_iternext = next_##i;          \
    }
#define WRAP_COMPARE(i, type)                      \
    if (type.tp_richcompare != NULL) {             \
        original_compare[i] = type.tp_richcompare; \
        type.tp_richcompare = compare_##i;         \
    }
#define WRAP_SLOT(table, slot, original, wrapper) \
    if (table != NULL && table->slot != NULL) {   \
        original = table->slot;                   \
        table->slot = wrapper;                    \
    }
#define WRAP_SEQUENCE(i, type)                                                             \
    WRAP_SLOT(type.tp_as_mapping, mp_subscript, original_subscript[i], subscript_##i)      \
    WRAP_SLOT(type.tp_as_mapping, mp_ass_subscript, original_assign[i], assign_##i)        \
    WRAP_SLOT(type.tp_as_sequence, sq_concat, original_concat[i], concat_##i)              \
    WRAP_SLOT(type.tp_as_sequence, sq_repeat, original_repeat[i], repeat_##i)              \
    WRAP_SLOT(type.tp_as_sequence, sq_contains, original_contains[i], contains_##i)
#define WRAP_NUMBER(i, slot, product) WRAP_SLOT(PyLong_Type.tp_as_number, slot, original_number[i], number_##i)
    ITERATORS(WRAP_NEXT)
    COMPARED(WRAP_COMPARE)
    SEQUENCES(WRAP_SEQUENCE)
    NUMBERS(WRAP_NUMBER)
    WRAP_SLOT(PyLong_Type.tp_as_number, nb_power, original_power, power)
    wrap_method(&PyList_Type, "sort", SORTS);
    wrap_method(&PyList_Type, "copy", COPIES_ALL);
    wrap_method(&PyList_Type, "reverse", COPIES_ALL);
    wrap_method(&PyList_Type, "insert", MOVES_TAIL);
    wrap_method(&PyList_Type, "pop", MOVES_TAIL);
    wrap_method(&PyList_Type, "remove", MOVES_TAIL);
    PyTypeObject *texts[] = {&PyUnicode_Type, &PyBytes_Type, &PyByteArray_Type};
    for (size_t t = 0; t < 3; t++) {
        for (const char **name = text_scans; *name; name++)
            wrap_method(texts[t], *name, SCANS);
        wrap_method(texts[t], "join", JOINS);
    }
    /* (compiled patterns, when `re` is loaded already: the runner loads it) */
    PyObject *name = PyUnicode_FromString("re");
    PyObject *re = name ? PyImport_GetModule(name) : NULL;
    Py_XDECREF(name);
    PyObject *pattern = re ? PyObject_CallMethod(re, "compile", "s", "") : NULL;
    if (pattern != NULL)
        for (const char **name = pattern_matches; *name; name++)
            wrap_method(Py_TYPE(pattern), *name, MATCHES);
    Py_XDECREF(pattern);
    Py_XDECREF(re);
    PyErr_Clear();
}

/* --- what the program may not do while counted ------------------------------------- */

static const char *refused_events[] = {
    "sys.settrace", "sys.setprofile", "code.__new__", "marshal.loads", "marshal.load", NULL,
};
static const char *refused_modules[] = {
    "ctypes", "_ctypes", "_testcapi", "_testinternalcapi", "_testbuffer", "_testmultiphase",
    "_testimportmultiple", "_testclinic", "_xxtestfuzz", "_xxsubinterpreters", "_opcount",
    "codegym", "cffi", "_cffi_backend", NULL,
};

static int
refused_module(PyObject *name)
{
    if (name == NULL || !PyUnicode_Check(name))
        return 0;
    const char *text = PyUnicode_AsUTF8(name);
    if (text == NULL) {
        PyErr_Clear();
        return 0;
    }
    for (const char **refused = refused_modules; *refused; refused++) {
        size_t n = strlen(*refused);
        if (strncmp(text, *refused, n) == 0 && (text[n] == '\0' || text[n] == '.'))
            return 1;
    }
    return 0;
}

/* Whether `path` is under /proc (a process's memory is there), followed through links. */
static int
under_proc(PyObject *path)
{
    PyObject *bytes = NULL;
    if (path == NULL || !PyUnicode_FSConverter(path, &bytes)) {
        PyErr_Clear();
        return 0;
    }
    char resolved[PATH_MAX];
    const char *text = PyBytes_AS_STRING(bytes);
    int found = realpath(text, resolved) != NULL ? strncmp(resolved, "/proc", 5) == 0 && (resolved[5] == '/' || resolved[5] == 0)
                                                 : strstr(text, "proc") != NULL;
    Py_DECREF(bytes);
    return found;
}

static int
audit(const char *event, PyObject *args, void *data)
{
    if (state != 1)
        return 0;
    for (const char **refused = refused_events; *refused; refused++) {
        if (strcmp(event, *refused) == 0) {
            PyErr_Format(PyExc_RuntimeError, "%s is not allowed in a metered run", event);
            return -1;
        }
    }
    if (strcmp(event, "import") == 0 && PyTuple_Check(args) && PyTuple_GET_SIZE(args) > 0 &&
        refused_module(PyTuple_GET_ITEM(args, 0))) {
        PyErr_Format(PyExc_ImportError, "importing %S is not allowed in a metered run", PyTuple_GET_ITEM(args, 0));
        return -1;
    }
    if (strncmp(event, "ctypes.", 7) == 0) { /* (ctypes may be loaded already: its every use is refused) */
        PyErr_Format(PyExc_RuntimeError, "%s is not allowed in a metered run", event);
        return -1;
    }
    if (strcmp(event, "open") == 0 && PyTuple_Check(args) && PyTuple_GET_SIZE(args) > 0 &&
        under_proc(PyTuple_GET_ITEM(args, 0))) {
        PyErr_SetString(PyExc_PermissionError, "/proc is not open to a metered run");
        return -1;
    }
    return 0;
}

/* Make `name` of frames read-only; returns its offset, or -1 with an exception set. */
static Py_ssize_t
lock_frame_attribute(const char *name, PyMemberDef *readonly)
{
    PyObject *dict = PyFrame_Type.tp_dict;
    PyObject *found = dict ? PyDict_GetItemString(dict, name) : NULL;
    if (found == NULL || Py_TYPE(found) != &PyMemberDescr_Type) {
        PyErr_Format(PyExc_RuntimeError, "this Python's frames have no member %s to lock", name);
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)found)->d_member;
    readonly->name = name;
    readonly->type = member->type;
    readonly->offset = member->offset;
    readonly->flags = READONLY;
    readonly->doc = NULL;
    PyObject *locked = PyDescr_NewMember(&PyFrame_Type, readonly);
    if (locked == NULL || PyDict_SetItemString(dict, name, locked) < 0) {
        Py_XDECREF(locked);
        return -1;
    }
    Py_DECREF(locked);
    PyType_Modified(&PyFrame_Type);
    return member->offset;
}

static PyMemberDef locked_opcodes, locked_lines;

/* --- the report --------------------------------------------------------------------- */

typedef struct {
    char *data;
    size_t length, capacity;
} Buffer;

static void
append(Buffer *buffer, const char *format, ...)
{
    va_list args;
    for (;;) {
        size_t room = buffer->capacity - buffer->length;
        va_start(args, format);
        int n = vsnprintf(buffer->data ? buffer->data + buffer->length : NULL, buffer->data ? room : 0, format, args);
        va_end(args);
        if (n < 0)
            return;
        if (buffer->data && (size_t)n < room) {
            buffer->length += (size_t)n;
            return;
        }
        size_t capacity = buffer->capacity ? buffer->capacity * 2 : 4096;
        while (capacity < buffer->length + (size_t)n + 1)
            capacity *= 2;
        char *grown = PyMem_Realloc(buffer->data, capacity);
        if (grown == NULL)
            return;
        buffer->data = grown;
        buffer->capacity = capacity;
    }
}

static void
append_profile(Buffer *buffer)
{
    for (Py_ssize_t i = 0; i < TABLE_SIZE; i++) {
        Entry *entry = &table[i];
        if (entry->code == NULL || entry->counts == NULL)
            continue;
        unsigned long long in_code = 0;
        int line = -1;
        unsigned long long on_line = 0;
        for (Py_ssize_t unit = 0; unit < entry->units; unit++) {
            if (entry->counts[unit] == 0)
                continue;
            int here = PyCode_Addr2Line(entry->code, (int)(unit * 2));
            if (here != line && on_line) {
                append(buffer, "line %d %llu\n", line, on_line);
                on_line = 0;
            }
            line = here;
            on_line += entry->counts[unit];
            in_code += entry->counts[unit];
        }
        if (on_line)
            append(buffer, "line %d %llu\n", line, on_line);
        PyObject *qualname = PyObject_GetAttrString((PyObject *)entry->code, "co_qualname");
        if (qualname == NULL) {
            PyErr_Clear();
            qualname = PyObject_GetAttrString((PyObject *)entry->code, "co_name");
        }
        const char *name = qualname && PyUnicode_Check(qualname) ? PyUnicode_AsUTF8(qualname) : NULL;
        if (name == NULL)
            PyErr_Clear();
        append(buffer, "function %llu %d %s\n", in_code, entry->code->co_firstlineno, name ? name : "?");
        Py_XDECREF(qualname);
    }
}

static void
write_all(int fd, const char *data, size_t length)
{
    while (length > 0) {
        ssize_t n = write(fd, data, length);
        if (n <= 0)
            return;
        data += n;
        length -= (size_t)n;
    }
}

static void
flush(const char *name)
{
    PyObject *stream = PySys_GetObject(name); /* borrowed */
    if (stream == NULL || stream == Py_None)
        return;
    PyObject *result = PyObject_CallMethod(stream, "flush", NULL);
    Py_XDECREF(result);
    PyErr_Clear();
}

/* How the program ended: "returned", "exit <status>" or "raised <type>". */
static void
ending(Buffer *buffer, PyObject *result)
{
    if (result != NULL) {
        append(buffer, "ended returned\n");
        return;
    }
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (type != NULL && PyErr_GivenExceptionMatches(type, PyExc_SystemExit)) {
        PyObject *code = value ? PyObject_GetAttrString(value, "code") : NULL;
        long status = 0;
        if (code != NULL && code != Py_None)
            status = PyLong_Check(code) ? PyLong_AsLong(code) : 1;
        PyErr_Clear();
        Py_XDECREF(code);
        append(buffer, "ended exit %ld\n", status);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
        return;
    }
    const char *name = type != NULL ? ((PyTypeObject *)type)->tp_name : "?";
    append(buffer, "ended raised %s\n", name);
    PyErr_Restore(type, value, traceback);
    PyErr_Print(); /* (the traceback, to the program's stderr) */
}

static PyObject *
run(PyObject *self, PyObject *args)
{
    PyObject *code, *globals, *filename;
    int report_fd, key_fd;
    if (!PyArg_ParseTuple(args, "O!O!iiU", &PyCode_Type, &code, &PyDict_Type, &globals, &report_fd, &key_fd, &filename))
        return NULL;
    if (state != 0) {
        PyErr_SetString(PyExc_RuntimeError, "a metered run happens once per process");
        return NULL;
    }
    char key[KEY_MAX + 1];
    ssize_t got = read(key_fd, key, KEY_MAX);
    close(key_fd);
    if (got <= 0) {
        PyErr_SetString(PyExc_ValueError, "no key to sign the report with");
        return NULL;
    }
    key[got] = '\0';
    key[strcspn(key, "\r\n")] = '\0';
    opcodes_offset = lock_frame_attribute("f_trace_opcodes", &locked_opcodes);
    if (opcodes_offset < 0 || lock_frame_attribute("f_trace_lines", &locked_lines) < 0)
        return NULL;
    if (PySys_AddAuditHook(audit, NULL) < 0)
        return NULL;
    count_builtin_work();
    Py_INCREF(filename);
    own_filename = filename;
    PyEval_SetTrace(trace, NULL); /* (audited: before the hook refuses it) */
    state = 1;
    PyObject *result = PyEval_EvalCode(code, globals, globals);
    Buffer buffer = {NULL, 0, 0};
    append(&buffer, "codegym-meter %s\n", key);
    ending(&buffer, result);
    Py_XDECREF(result);
    flush("stdout");
    flush("stderr");
    int intact = PyThreadState_Get()->c_tracefunc == trace;
    state = 2;
    PyEval_SetTrace(NULL, NULL);
    append(&buffer, "total %llu\nbuiltin %llu\nintact %d\ncomplete %d\n", total, builtin_work / 256, intact, !overflowed);
    append_profile(&buffer);
    append(&buffer, "end %s\n", key);
    if (buffer.data != NULL)
        write_all(report_fd, buffer.data, buffer.length);
    _exit(0);
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS,
     "run(code, globals, report_fd, key_fd, filename): evaluate code, counted; write the report; end the process."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_opcount", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__opcount(void)
{
    return PyModule_Create(&module);
}
