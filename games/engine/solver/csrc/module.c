/* games.engine.solver._native: the C search (search.c) as a CPython type, Core.
 *
 * games/engine/solver/native.py turns the rules and the state into Core's arguments and
 * its answers back into engine actions; _native.pyi types it. The search runs without
 * the GIL, so other threads go on while it does. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "search.h"

typedef struct {
    PyObject_HEAD
    ns_search *search;
    /* Whether a thread is in run(): the search is not shared between threads. */
    int busy;
} CoreObject;

/* Bits of Core's ``flags``, as native.py sets them. */
enum {
    F_SAME_SUIT = 1,
    F_KING_ONLY = 2,
    F_WHOLE_OK = 4,
    F_ANY_TIME = 8,
    F_SAFE_JOINS = 16,
    F_FOCUS = 32,
    F_JITTER = 64,
};

/* A small int from ``item`` into ``*out``: 0 with an exception set when it is none. */
static int small_int(PyObject *item, int low, int high, int *out)
{
    long value = PyLong_AsLong(item);
    if (value == -1 && PyErr_Occurred())
        return 0;
    if (value < low || value > high) {
        PyErr_SetString(PyExc_ValueError, "the position is outside the native core's limits");
        return 0;
    }
    *out = (int)value;
    return 1;
}

/* Each item of the tuple ``items`` as a byte into ``out`` (room for ``room``); the count,
 * or -1 with an exception set. */
static Py_ssize_t read_bytes(PyObject *items, uint8_t *out, Py_ssize_t room)
{
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (n > room) {
        PyErr_SetString(PyExc_ValueError, "the position is outside the native core's limits");
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        int value;
        if (!small_int(PyTuple_GET_ITEM(items, k), 0, 255, &value))
            return -1;
        out[k] = (uint8_t)value;
    }
    return n;
}

/* A search from (down, columns, cells, reserve, reserve_to, removed, decks, mode, flags):
 * the state's own tuples (a cell None when empty) and the rules' fields; NULL with an
 * exception set (ValueError when the core does not take the position). */
static ns_search *new_search(PyObject *down, PyObject *columns, PyObject *cells, PyObject *reserve,
                             PyObject *reserve_to, int removed, int decks, int mode, int flags)
{
    ns_setup setup;
    Py_ssize_t ncols = PyTuple_GET_SIZE(columns), ncells = PyTuple_GET_SIZE(cells);
    if (ncols < 1 || ncols > NS_MAXCOLS || PyTuple_GET_SIZE(down) != ncols || ncells > NS_MAXCELLS) {
        PyErr_SetString(PyExc_ValueError, "the position is outside the native core's limits");
        return NULL;
    }
    setup.ncols = (int)ncols;
    Py_ssize_t at = 0;
    for (Py_ssize_t c = 0; c < ncols; c++) {
        PyObject *cards = PyTuple_GET_ITEM(columns, c);
        int face_down;
        if (!PyTuple_Check(cards)) {
            PyErr_SetString(PyExc_TypeError, "columns must be tuples of cards");
            return NULL;
        }
        if (at >= NS_DATA || !small_int(PyTuple_GET_ITEM(down, c), 0, 255, &face_down)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "the position is outside the native core's limits");
            return NULL;
        }
        setup.data[at] = (uint8_t)face_down;
        Py_ssize_t n = read_bytes(cards, setup.data + at + 1, NS_DATA - at - 1);
        if (n < 0)
            return NULL;
        setup.lens[c] = (int)n + 1;
        at += n + 1;
    }
    setup.ncells = (int)ncells;
    for (Py_ssize_t n = 0; n < ncells; n++) {
        PyObject *card = PyTuple_GET_ITEM(cells, n);
        if (card == Py_None)
            setup.cells[n] = -1;
        else if (!small_int(card, 0, 255, &setup.cells[n]))
            return NULL;
    }
    Py_ssize_t nreserve = read_bytes(reserve, setup.reserve, NS_MAXRESERVE);
    Py_ssize_t nreserve_to = read_bytes(reserve_to, setup.reserve_to, NS_MAXRESERVE);
    if (nreserve < 0 || nreserve_to < 0)
        return NULL;
    setup.nreserve = (int)nreserve;
    setup.nreserve_to = (int)nreserve_to;
    setup.removed = removed;
    setup.decks = decks;
    setup.mode = mode;
    setup.same_suit = !!(flags & F_SAME_SUIT);
    setup.king_only = !!(flags & F_KING_ONLY);
    setup.whole_ok = !!(flags & F_WHOLE_OK);
    setup.any_time = !!(flags & F_ANY_TIME);
    setup.safe_joins = !!(flags & F_SAFE_JOINS);
    setup.focus = !!(flags & F_FOCUS);
    setup.jitter = !!(flags & F_JITTER);
    const char *error = NULL;
    ns_search *search = ns_new(&setup, &error);
    if (!search)
        PyErr_SetString(PyExc_ValueError, error);
    return search;
}

#define SEARCH_FORMAT "O!O!O!O!O!iiii"
#define SEARCH_NAMES "down", "columns", "cells", "reserve", "reserve_to", "removed", "decks", "mode", "flags"
#define SEARCH_ARGS(down, columns, cells, reserve, reserve_to, removed, decks, mode, flags)               \
    &PyTuple_Type, &down, &PyTuple_Type, &columns, &PyTuple_Type, &cells, &PyTuple_Type, &reserve,          \
        &PyTuple_Type, &reserve_to, &removed, &decks, &mode, &flags

/* Core(down, columns, cells, reserve, reserve_to, removed, decks, mode, flags) */
static int Core_init(CoreObject *self, PyObject *args, PyObject *kwds)
{
    static char *names[] = {SEARCH_NAMES, NULL};
    PyObject *down, *columns, *cells, *reserve, *reserve_to;
    int removed, decks, mode, flags;
    /* A search running in another thread (without the GIL) must not be freed under it. */
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Core.run is running in another thread");
        return -1;
    }
    /* A Core whose __init__ fails has no search: run() then raises, as on a Core made
     * without __init__ (Core.__new__), rather than going on with an older one. */
    ns_free(self->search);
    self->search = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, SEARCH_FORMAT, names,
                                     SEARCH_ARGS(down, columns, cells, reserve, reserve_to, removed,
                                                 decks, mode, flags)))
        return -1;
    ns_search *search = new_search(down, columns, cells, reserve, reserve_to, removed, decks, mode, flags);
    if (!search)
        return -1;
    self->search = search;
    return 0;
}

static void Core_dealloc(CoreObject *self)
{
    ns_free(self->search);
    self->search = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The random source's state from random.Random.getstate()'s middle item. */
static int read_mt(PyObject *words, uint32_t state[NS_MT_WORDS])
{
    if (!PyTuple_Check(words) || PyTuple_GET_SIZE(words) != NS_MT_WORDS) {
        PyErr_SetString(PyExc_ValueError, "mt must be a tuple of 625 ints");
        return 0;
    }
    for (Py_ssize_t k = 0; k < NS_MT_WORDS; k++) {
        unsigned long word = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(words, k));
        if (word == (unsigned long)-1 && PyErr_Occurred())
            return 0;
        state[k] = (uint32_t)word;
    }
    return 1;
}

static PyObject *write_mt(const uint32_t state[NS_MT_WORDS])
{
    PyObject *words = PyTuple_New(NS_MT_WORDS);
    if (!words)
        return NULL;
    for (Py_ssize_t k = 0; k < NS_MT_WORDS; k++) {
        PyObject *word = PyLong_FromUnsignedLong(state[k]);
        if (!word) {
            Py_DECREF(words);
            return NULL;
        }
        PyTuple_SET_ITEM(words, k, word);
    }
    return words;
}

static PyObject *Core_run(CoreObject *self, PyObject *args)
{
    long long budget;
    PyObject *mt = Py_None;
    double deadline = 0;
    if (!PyArg_ParseTuple(args, "L|Od", &budget, &mt, &deadline))
        return NULL;
    if (!self->search) {
        PyErr_SetString(PyExc_RuntimeError, "Core was not initialised");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Core.run is already running in another thread");
        return NULL;
    }
    uint32_t state[NS_MT_WORDS];
    if (mt != Py_None) {
        if (!read_mt(mt, state))
            return NULL;
        ns_mt_set(self->search, state);
    }
    int verdict;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    verdict = ns_run(self->search, (int64_t)budget, deadline);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (verdict == NS_NOMEMORY)
        return PyErr_NoMemory();
    const uint8_t *steps;
    size_t n = ns_line(self->search, &steps);
    PyObject *after = Py_None;
    if (mt != Py_None) {
        ns_mt_get(self->search, state);
        if (!(after = write_mt(state)))
            return NULL;
    } else {
        Py_INCREF(after);
    }
    /* y# makes None of a NULL pointer: an empty line is b"". */
    return Py_BuildValue("iy#LN", verdict, n ? (const char *)steps : "", (Py_ssize_t)(4 * n),
                         (long long)ns_nodes(self->search), after);
}

/* The answer of a run: (verdict, line, nodes), or NULL when out of memory. */
static PyObject *answer(ns_search *search, int verdict)
{
    if (verdict == NS_NOMEMORY)
        return PyErr_NoMemory();
    const uint8_t *steps;
    size_t n = ns_line(search, &steps);
    /* y# makes None of a NULL pointer: an empty line is b"". */
    return Py_BuildValue("iy#L", verdict, n ? (const char *)steps : "", (Py_ssize_t)(4 * n),
                         (long long)ns_nodes(search));
}

/* search(down, ..., flags, budget): Core(...).run(budget) without a probe's random
 * source, in one call (the solver's common case: one search, run once). */
static PyObject *search_once(PyObject *module, PyObject *args, PyObject *kwds)
{
    (void)module;
    static char *names[] = {SEARCH_NAMES, "budget", "deadline", NULL};
    PyObject *down, *columns, *cells, *reserve, *reserve_to;
    int removed, decks, mode, flags;
    long long budget;
    double deadline = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, SEARCH_FORMAT "L|d", names,
                                     SEARCH_ARGS(down, columns, cells, reserve, reserve_to, removed,
                                                 decks, mode, flags),
                                     &budget, &deadline))
        return NULL;
    if (flags & F_JITTER) {
        PyErr_SetString(PyExc_ValueError, "a probe needs Core, with its random source");
        return NULL;
    }
    ns_search *search = new_search(down, columns, cells, reserve, reserve_to, removed, decks, mode, flags);
    if (!search)
        return NULL;
    int verdict;
    Py_BEGIN_ALLOW_THREADS
    verdict = ns_run(search, (int64_t)budget, deadline);
    Py_END_ALLOW_THREADS
    PyObject *result = answer(search, verdict);
    ns_free(search);
    return result;
}

/* interrupt(): cut every search of the process, running or to come (NS_CUT). */
static PyObject *interrupt(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    ns_interrupt();
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"interrupt", interrupt, METH_NOARGS,
     "interrupt(): every search of this process, running or to come, ends as CUT."},
    {"search", (PyCFunction)(void (*)(void))search_once, METH_VARARGS | METH_KEYWORDS,
     "search(down, columns, cells, reserve, reserve_to, removed, decks, mode, flags, budget) -> "
     "(verdict, line, nodes): one search, run once; deadline= as Core.run's."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef Core_methods[] = {
    {"run", (PyCFunction)Core_run, METH_VARARGS,
     "run(budget, mt=None, deadline=0) -> (verdict, line, nodes, mt): Search.run, the line as "
     "4 bytes a step; mt is the state of a probe's random source, given and given back; "
     "CUT once time.monotonic() passes deadline (0: none)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "games.engine.solver._native.Core",
    .tp_doc = "One search from one position (games.engine.solver.search.Search in C).",
    .tp_basicsize = sizeof(CoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "games.engine.solver._native",
    .m_doc = "The native core of games.engine.solver (see native.py).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "WON", NS_WON) < 0 || PyModule_AddIntConstant(m, "LOST", NS_LOST) < 0 ||
        PyModule_AddIntConstant(m, "UNKNOWN", NS_UNKNOWN) < 0 ||
        PyModule_AddIntConstant(m, "CUT", NS_CUT) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
