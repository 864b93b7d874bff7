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

/* A bytecode count alone charges `sum(a[i:j])`, `a.count(x)` or `x in a` as one instruction
   whatever the length of `a`. So each item a builtin iterator yields and each comparison of a
   builtin type also counts one, through the types' own slots (wrapped while counting): the
   loops builtins run over sequences, dicts, sets, ranges and strings, and the comparisons of
   numbers, strings, tuples and lists (in `in`, `count`, `index`, `max`, `min`). */
#define ITERATORS(X)                                                                              \
    X(0, PyListIter_Type) X(1, PyListRevIter_Type) X(2, PyTupleIter_Type) X(3, PyRangeIter_Type) \
    X(4, PyLongRangeIter_Type) X(5, PyDictIterKey_Type) X(6, PyDictIterValue_Type)               \
    X(7, PyDictIterItem_Type) X(8, PySetIter_Type) X(9, PyUnicodeIter_Type)                     \
    X(10, PyBytesIter_Type) X(11, PyByteArrayIter_Type) X(12, PySeqIter_Type)                   \
    X(13, PyDictRevIterKey_Type) X(14, PyDictRevIterValue_Type) X(15, PyDictRevIterItem_Type)
#define COMPARED(X)                                                                               \
    X(0, PyLong_Type) X(1, PyFloat_Type) X(2, PyUnicode_Type) X(3, PyTuple_Type) X(4, PyList_Type) \
    X(5, PyBytes_Type)

static unsigned long long builtin_work = 0;
static iternextfunc original_next[16];
static richcmpfunc original_compare[6];

#define NEXT(i, type)                          \
    static PyObject *next_##i(PyObject *self)  \
    {                                          \
        if (state == 1)                        \
            builtin_work++;                    \
        return original_next[i](self);         \
    }
#define COMPARE(i, type)                                               \
    static PyObject *compare_##i(PyObject *a, PyObject *b, int op)     \
    {                                                                  \
        if (state == 1)                                                \
            builtin_work++;                                            \
        return original_compare[i](a, b, op);                          \
    }
ITERATORS(NEXT)
COMPARED(COMPARE)

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
    ITERATORS(WRAP_NEXT)
    COMPARED(WRAP_COMPARE)
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
    append(&buffer, "total %llu\nbuiltin %llu\nintact %d\ncomplete %d\n", total, builtin_work, intact, !overflowed);
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
