/*
 * gatewire._speedups: the optional CPython extension behind the binding's hot paths
 * (Client.call_many and AsyncClient), built from the library's own header.
 *
 * The binding works without it (ctypes does the same, slower). What it saves per call: a
 * ctypes foreign call costs a few thousand instructions (argument conversion, libffi) where a
 * C call costs tens; here one Python call starts a call, one takes a whole batch of finished
 * results and builds their Result objects, and the native result is freed by its owner's
 * deallocator instead of a Python __del__.
 *
 * It does not link libGatewire: `bind` gets the addresses of the functions from the library
 * ctypes loaded (the binding's lookup order decides which one), so both paths always talk to
 * the same library. Every function needs the GIL; `take` releases it while it blocks.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* The binding fills the flat layout of versions 1-4 (gatewire.h: gw_call_options_v4). */
#define GW_USE_CALL_OPTIONS_V4
#include "gatewire.h"

/* The library's functions, as `bind` got them (in this order). */
typedef int32_t (*start_fn)(gw_client *, const gw_call_options *, gw_queue *, uint64_t, gw_call_handle **);
typedef int32_t (*wait_fn)(gw_queue *, double, gw_result **, uint64_t *, size_t, size_t *);
typedef int32_t (*read_fn)(const gw_result *, gw_result_fields *);
typedef int32_t (*cache_fn)(const gw_result *);
typedef void (*free_fn)(gw_result *);
typedef void (*release_fn)(gw_call_handle *);
typedef const char *(*text_fn)(const gw_result *);
typedef int32_t (*walk_fn)(const gw_result *, gw_value_visitor, void *);

enum { TEXT_METHOD, TEXT_PATH, TEXT_MAPPED, TEXT_ATTEMPTS, TEXT_HEADERS, TEXT_METADATA, TEXT_URL, TEXT_COUNT };
static const char *const text_keys[TEXT_COUNT] = {"method", "path", "mapped", "attempts", "headers", "metadata", "url"};

static struct {
    start_fn start;
    wait_fn wait;
    read_fn read;
    cache_fn cache;
    free_fn free;
    release_fn release;
    text_fn texts[TEXT_COUNT];
    walk_fn walk;
    PyObject *result_type; /* gatewire.Result */
    PyObject *unset;       /* the Result's "not read yet" marker */
    PyObject *finish;      /* finish(NativeResult or None) -> the outcome of a failure */
    PyObject *names[12];   /* the Result's slot names, interned */
    PyObject *empty;       /* () for object.__new__ */
    PyObject *handle_name; /* "handle", interned */
} api;

static const char *const slot_names[12] = {"_error", "_status", "_cache", "_body", "_raw", "_method",
                                           "_path", "_mapped", "_attempts", "_headers", "_metadata", "_url"};

/* ---- NativeResult: owns one gw_result * --------------------------------------------- */

typedef struct {
    PyObject_HEAD
    gw_result *result;
} NativeResult;

static void native_result_dealloc(NativeResult *self) {
    if (self->result) api.free(self->result);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* raw[key]: the library's text for key ("method", ..., "metadata") as bytes, or None. */
static PyObject *native_result_subscript(NativeResult *self, PyObject *key) {
    const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    for (int index = 0; name && index < TEXT_COUNT; index++) {
        if (strcmp(name, text_keys[index]) != 0) continue;
        const char *text = self->result ? api.texts[index](self->result) : NULL;
        if (!text) Py_RETURN_NONE;
        return PyBytes_FromString(text);
    }
    if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key);
    return NULL;
}

static PyObject *native_result_pointer(NativeResult *self, void *closure) {
    (void)closure;
    return PyLong_FromVoidPtr(self->result);
}

/* The mapped objects rebuilt from gw_result_mapped_walk's values: the containers being
 * filled, each with the name it takes in its parent (NULL in a list, or for the root). */
typedef struct {
    PyObject **containers;
    PyObject **names;
    Py_ssize_t depth, capacity;
    PyObject *root;
    int limit;
} Builder;

/* Puts `item` (a new reference, taken) into the innermost container under `name` (a new
 * reference or NULL, taken), or makes it the root. -1 with an exception set on failure. */
static int builder_add(Builder *builder, PyObject *name, PyObject *item) {
    int status = 0;
    if (builder->depth == 0) {
        builder->root = item;
        Py_XDECREF(name);
        return 0;
    }
    PyObject *parent = builder->containers[builder->depth - 1];
    status = name ? PyDict_SetItem(parent, name, item) : PyList_Append(parent, item);
    Py_DECREF(item);
    Py_XDECREF(name);
    return status;
}

static int32_t builder_visit(void *user_data, const char *key, size_t key_length, const gw_value *value) {
    Builder *builder = user_data;
    if (value->type == GW_VALUE_END) {
        builder->depth--;
        return builder_add(builder, builder->names[builder->depth], builder->containers[builder->depth]) < 0;
    }
    PyObject *name = key ? PyUnicode_DecodeUTF8(key, (Py_ssize_t)key_length, "replace") : NULL;
    if (key && !name) return 1;
    PyObject *item;
    switch (value->type) {
    case GW_VALUE_BOOL: item = Py_NewRef(value->boolean ? Py_True : Py_False); break;
    case GW_VALUE_INTEGER: item = PyLong_FromLongLong(value->integer); break;
    case GW_VALUE_REAL: item = PyFloat_FromDouble(value->real); break;
    case GW_VALUE_STRING: item = PyUnicode_DecodeUTF8(value->string, (Py_ssize_t)value->length, "replace"); break;
    case GW_VALUE_OBJECT: item = PyDict_New(); break;
    case GW_VALUE_ARRAY: item = PyList_New(0); break;
    default: item = Py_NewRef(Py_None); break;
    }
    if (!item) {
        Py_XDECREF(name);
        return 1;
    }
    if (value->type != GW_VALUE_OBJECT && value->type != GW_VALUE_ARRAY) return builder_add(builder, name, item) < 0;
    /* As deep as json.loads would go before its RecursionError, so both paths agree. */
    if (builder->depth >= builder->limit) {
        PyErr_SetString(PyExc_RecursionError, "the mapped objects nest deeper than the recursion limit");
    } else if (builder->depth == builder->capacity) {
        Py_ssize_t capacity = builder->capacity ? builder->capacity * 2 : 32;
        PyObject **containers = PyMem_Realloc(builder->containers, (size_t)capacity * sizeof *containers);
        if (containers) builder->containers = containers;
        PyObject **names = containers ? PyMem_Realloc(builder->names, (size_t)capacity * sizeof *names) : NULL;
        if (names) {
            builder->names = names;
            builder->capacity = capacity;
        } else {
            PyErr_NoMemory();
        }
    }
    if (PyErr_Occurred()) {
        Py_DECREF(item);
        Py_XDECREF(name);
        return 1;
    }
    builder->containers[builder->depth] = item;
    builder->names[builder->depth] = name;
    builder->depth++;
    return 0;
}

/* raw.mapped(): the mapped objects as Python objects (dict, list, str, int, float, bool,
 * None: what json.loads makes of gw_result_mapped_json's text), or None when nothing was
 * mapped. Raises RecursionError past the recursion limit, MemoryError. */
static PyObject *build_mapped(const gw_result *result) {
    Builder builder = {.limit = Py_GetRecursionLimit()};
    int32_t status = result && api.walk ? api.walk(result, builder_visit, &builder) : GW_OK;
    while (builder.depth > 0) {  /* a stopped walk leaves containers open */
        builder.depth--;
        Py_DECREF(builder.containers[builder.depth]);
        Py_XDECREF(builder.names[builder.depth]);
    }
    PyMem_Free(builder.containers);
    PyMem_Free(builder.names);
    if (status != GW_OK) {
        Py_CLEAR(builder.root);
        if (!PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "gw_result_mapped_walk returned %d", (int)status);
        return NULL;
    }
    if (!builder.root) Py_RETURN_NONE;
    return builder.root;
}

static PyObject *native_result_mapped(NativeResult *self, PyObject *unused) {
    (void)unused;
    return build_mapped(self->result);
}

static int unpack_pointers(PyObject *const *args, Py_ssize_t count, void **out);

/* walk(result): build_mapped of a gw_result * (an int) the caller owns: the ctypes reader's
 * NativeResult.mapped runs this walk when the extension is there. */
static PyObject *walk(PyObject *module, PyObject *argument) {
    (void)module;
    void *pointer;
    if (unpack_pointers(&argument, 1, &pointer) < 0) return NULL;
    if (!pointer) return PyErr_Format(PyExc_ValueError, "walk: the result is NULL");
    return build_mapped(pointer);
}

static PyMethodDef native_result_methods[] = {
    {"mapped", (PyCFunction)native_result_mapped, METH_NOARGS,
     "The mapped objects built from gw_result_mapped_walk (as json.loads of gw_result_mapped_json), or None."},

    {NULL, NULL, 0, NULL},
};

static PyMappingMethods native_result_mapping = {.mp_subscript = (binaryfunc)native_result_subscript};
static PyGetSetDef native_result_getset[] = {
    {"pointer", (getter)native_result_pointer, NULL, "the owned gw_result * (int); freed with this object", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject NativeResultType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gatewire._speedups.NativeResult",
    .tp_basicsize = sizeof(NativeResult),
    .tp_dealloc = (destructor)native_result_dealloc,
    .tp_as_mapping = &native_result_mapping,
    .tp_getset = native_result_getset,
    .tp_methods = native_result_methods,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One owned gw_result *: raw[key] reads its texts; freed (gw_result_free) with the object.",
};

/* ---- bind --------------------------------------------------------------------------- */

static PyObject *bind(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *addresses, *result_type, *unset, *finish;
    if (!PyArg_ParseTuple(args, "O!OOO", &PyTuple_Type, &addresses, &result_type, &unset, &finish)) return NULL;
    if (!PyCallable_Check(finish)) return PyErr_Format(PyExc_TypeError, "finish must be callable");
    if (PyTuple_GET_SIZE(addresses) != 7 + TEXT_COUNT) {
        PyErr_Format(PyExc_ValueError, "bind needs %d function addresses", 7 + TEXT_COUNT);
        return NULL;
    }
    void *found[7 + TEXT_COUNT];
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(addresses); index++) {
        found[index] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(addresses, index));
        if (!found[index]) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a function address is NULL");
            return NULL;
        }
    }
    for (int index = 0; index < 12; index++) {
        if (!api.names[index] && !(api.names[index] = PyUnicode_InternFromString(slot_names[index]))) return NULL;
    }
    if (!api.handle_name && !(api.handle_name = PyUnicode_InternFromString("handle"))) return NULL;
    api.start = (start_fn)found[0];
    api.wait = (wait_fn)found[1];
    api.read = (read_fn)found[2];
    api.cache = (cache_fn)found[3];
    api.free = (free_fn)found[4];
    api.release = (release_fn)found[5];
    for (int index = 0; index < TEXT_COUNT; index++) api.texts[index] = (text_fn)found[6 + index];
    api.walk = (walk_fn)found[6 + TEXT_COUNT];
    Py_INCREF(result_type);
    Py_XSETREF(api.result_type, result_type);
    Py_INCREF(unset);
    Py_XSETREF(api.unset, unset);
    Py_INCREF(finish);
    Py_XSETREF(api.finish, finish);
    Py_RETURN_NONE;
}

/* ---- start -------------------------------------------------------------------------- */

static int unpack_pointers(PyObject *const *args, Py_ssize_t count, void **out) {
    for (Py_ssize_t index = 0; index < count; index++) {
        out[index] = args[index] == Py_None ? NULL : PyLong_AsVoidPtr(args[index]);
        if (!out[index] && PyErr_Occurred()) return -1;
    }
    return 0;
}

/* gw_call_async_queued on `client` with the rest of start's arguments (args[1...4]):
 * (status, call handle or 0). */
static PyObject *start_with(void *client, PyObject *const *args) {
    void *pointers[2];
    if (unpack_pointers(args + 1, 2, pointers) < 0) return NULL;
    unsigned long long tag = PyLong_AsUnsignedLongLong(args[3]);
    if (tag == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    int want = PyObject_IsTrue(args[4]);
    if (want < 0) return NULL;
    gw_call_handle *call = NULL;
    int32_t status = api.start(client, pointers[0], pointers[1], tag, want ? &call : NULL);
    return Py_BuildValue("(iN)", status, PyLong_FromVoidPtr(call));
}

/* start(client, options, queue, tag, want_handle) -> (status, call handle or 0) */
static PyObject *start(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "start(client, options, queue, tag, want_handle)");
        return NULL;
    }
    if (!api.start) return PyErr_Format(PyExc_RuntimeError, "gatewire._speedups is not bound");
    void *client;
    if (unpack_pointers(args, 1, &client) < 0) return NULL;
    return start_with(client, args);
}

/* release(call): gw_call_handle_free of a handle start gave (0 or None: nothing). */
static PyObject *release(PyObject *module, PyObject *call) {
    (void)module;
    void *pointer;
    if (unpack_pointers(&call, 1, &pointer) < 0) return NULL;
    if (pointer && api.release) api.release(pointer);
    Py_RETURN_NONE;
}

/* ---- notifier: a queue's notify function that writes to an eventfd ------------------
 *
 * The ctypes notify function takes the GIL on the library's loop thread for every batch,
 * which stalls that thread while Python code runs elsewhere. This one only writes 1 to an
 * eventfd the asyncio loop watches (loop.add_reader), without the GIL. The fd is read under
 * a mutex, so `notifier_close` ends the writes before the fd is closed: a call may still push
 * (and notify) after gw_queue_free, since its completion holds the queue. For that reason the
 * few bytes of a notifier are never freed. */

typedef struct {
    pthread_mutex_t lock;
    int fd; /* -1 once closed */
} Notifier;

static void notifier_notify(gw_queue *queue, void *user_data) {
    (void)queue;
    Notifier *notifier = user_data;
    pthread_mutex_lock(&notifier->lock);
    if (notifier->fd >= 0) {
        uint64_t one = 1;
        ssize_t written = write(notifier->fd, &one, sizeof one); /* EAGAIN: the count is already up */
        (void)written;
    }
    pthread_mutex_unlock(&notifier->lock);
}

/* notifier(fd) -> (notifier, notify): a notifier writing to eventfd `fd`, and the address of
 * the gw_queue_notify_fn to give gw_queue_set_notify with the notifier as its user_data. */
static PyObject *notifier(PyObject *module, PyObject *argument) {
    (void)module;
    long fd = PyLong_AsLong(argument);
    if (fd == -1 && PyErr_Occurred()) return NULL;
    if (fd < 0 || fd > INT32_MAX) return PyErr_Format(PyExc_ValueError, "fd must be a file descriptor, got %ld", fd);
    Notifier *made = PyMem_RawMalloc(sizeof *made);
    if (!made) return PyErr_NoMemory();
    pthread_mutex_init(&made->lock, NULL);
    made->fd = (int)fd;
    return Py_BuildValue("(NN)", PyLong_FromVoidPtr(made), PyLong_FromVoidPtr((void *)(uintptr_t)notifier_notify));
}

/* notifier_close(notifier): no write to its fd from now on (the caller closes the fd). */
static PyObject *notifier_close(PyObject *module, PyObject *argument) {
    (void)module;
    Notifier *closing = PyLong_AsVoidPtr(argument);
    if (!closing) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "notifier is NULL");
        return NULL;
    }
    pthread_mutex_lock(&closing->lock);
    closing->fd = -1;
    pthread_mutex_unlock(&closing->lock);
    Py_RETURN_NONE;
}

/* start_on(native_client, options, queue, tag, want_handle) -> (status, call handle or 0):
 * as start, with the client's handle read from `native_client.handle` in the same C call.
 * The GIL is held from that read to the return of gw_call_async_queued, and the binding's
 * `free` clears `handle` (under the GIL) before it frees the client: so the handle used is
 * never freed meanwhile, without a lock of the binding's own. Status -1: the client is closed
 * (`handle` is None or 0). */
static PyObject *start_on(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "start_on(native_client, options, queue, tag, want_handle)");
        return NULL;
    }
    if (!api.start) return PyErr_Format(PyExc_RuntimeError, "gatewire._speedups is not bound");
    PyObject *handle = PyObject_GetAttr(args[0], api.handle_name);
    if (!handle) return NULL;
    void *client = handle == Py_None ? NULL : PyLong_AsVoidPtr(handle);
    Py_DECREF(handle);
    if (!client) {
        if (PyErr_Occurred()) return NULL;
        return Py_BuildValue("(ii)", -1, 0);
    }
    return start_with(client, args);
}

/* ---- take --------------------------------------------------------------------------- */

/* A NativeResult owning `result`; on failure it frees `result` and returns NULL. */
static PyObject *wrap(gw_result *result) {
    NativeResult *raw = PyObject_New(NativeResult, &NativeResultType);
    if (!raw) {
        api.free(result);
        return NULL;
    }
    raw->result = result;
    return (PyObject *)raw;
}

/* A Result for the successful `result` (owned by its NativeResult `raw`), built as
 * result.outcome_from_queued builds it: status, cache and body now, the texts on first
 * access. NULL with an exception set on failure. */
static PyObject *make_result(PyObject *raw, const gw_result_fields *fields) {
    gw_result *result = ((NativeResult *)raw)->result;
    PyObject *self = PyBaseObject_Type.tp_new((PyTypeObject *)api.result_type, api.empty, NULL);
    if (!self) return NULL;
    PyObject *values[5] = {
        Py_NewRef(Py_None),
        PyLong_FromLong(fields->status),
        PyLong_FromLong(api.cache(result)),
        fields->body_length ? PyBytes_FromStringAndSize((const char *)fields->body, (Py_ssize_t)fields->body_length)
                            : PyBytes_FromStringAndSize(NULL, 0),
        Py_NewRef(raw),
    };
    int failed = 0;
    for (int index = 0; index < 12; index++) {
        PyObject *value = index < 5 ? values[index] : api.unset;
        if (!failed && (!value || PyObject_GenericSetAttr(self, api.names[index], value) < 0)) failed = 1;
    }
    for (int index = 0; index < 5; index++) Py_XDECREF(values[index]);
    if (failed) {
        Py_DECREF(self);
        return NULL;
    }
    return self;
}

/* The outcome of a failed (or unreadable) result: finish(raw), raw a NativeResult owning it
 * or None when not even that could be made. `finish` is not meant to raise; if it does, the
 * exception is dropped and finish(None) says the result could not be read. */
static PyObject *finished(PyObject *raw) {
    PyObject *outcome = PyObject_CallOneArg(api.finish, raw ? raw : Py_None);
    if (!outcome) {
        PyErr_Clear();
        outcome = PyObject_CallOneArg(api.finish, Py_None);
        if (!outcome) PyErr_Clear();
    }
    return outcome;
}

/* take(queue, timeout, capacity) -> [(tag, outcome), ...], oldest first.
 *
 * Waits as gw_queue_wait (at most `timeout` seconds; < 0 or infinity: until a result arrives;
 * NaN: ValueError; the GIL released when it may block) and
 * takes up to `capacity` finished results. Each outcome is a Result (a success) or what
 * `finish` made of the rest: a NativeResult owning a failed result (or one gw_result_read
 * refused), or None when not even that could be made (out of memory; the result is freed).
 * Every result taken has its item: when memory runs out, (tag, None), or None for the item
 * itself when not even that tuple can be made. */
static PyObject *take(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "take(queue, timeout, capacity)");
        return NULL;
    }
    if (!api.wait) return PyErr_Format(PyExc_RuntimeError, "gatewire._speedups is not bound");
    void *queue;
    if (unpack_pointers(args, 1, &queue) < 0) return NULL;
    double timeout = PyFloat_AsDouble(args[1]);
    if (timeout == -1.0 && PyErr_Occurred()) return NULL;
    if (isnan(timeout)) return PyErr_Format(PyExc_ValueError, "timeout is NaN (0 = do not wait, < 0 or inf = no limit)");
    Py_ssize_t capacity = PyLong_AsSsize_t(args[2]);
    if (capacity == -1 && PyErr_Occurred()) return NULL;
    if (capacity < 1 || capacity > 65536) return PyErr_Format(PyExc_ValueError, "capacity must be 1...65536");
    gw_result **results = PyMem_RawMalloc((size_t)capacity * (sizeof *results + sizeof(uint64_t)));
    if (!results) return PyErr_NoMemory();
    uint64_t *tags = (uint64_t *)(results + capacity);
    size_t count = 0; /* a status other than GW_OK (a bad queue) takes nothing: the list is empty */
    if (timeout == 0) {
        (void)api.wait(queue, 0, results, tags, (size_t)capacity, &count);
    } else {
        Py_BEGIN_ALLOW_THREADS
        (void)api.wait(queue, timeout, results, tags, (size_t)capacity, &count);
        Py_END_ALLOW_THREADS
    }
    PyObject *list = PyList_New((Py_ssize_t)count);
    for (size_t index = 0; index < count; index++) {
        if (!list) {  /* out of memory: nobody can take these any more */
            api.free(results[index]);
            continue;
        }
        gw_result_fields fields = {.version = GW_RESULT_FIELDS_VERSION};
        PyObject *raw = wrap(results[index]);
        PyObject *outcome = NULL;
        if (raw && api.read(results[index], &fields) == GW_OK && fields.ok) {
            outcome = make_result(raw, &fields);
        }
        if (!outcome) {
            PyErr_Clear(); /* make_result's or wrap's error: finish says what became of the result */
            outcome = finished(raw);
        }
        Py_XDECREF(raw);
        PyObject *item = PyTuple_New(2);
        PyObject *tag = PyLong_FromUnsignedLongLong(tags[index]);
        if (!item || !tag) {
            PyErr_Clear();
            Py_XDECREF(item);
            Py_XDECREF(tag);
            Py_XDECREF(outcome);
            item = Py_BuildValue("(KO)", (unsigned long long)tags[index], Py_None);
            if (!item) PyErr_Clear();
        } else {
            PyTuple_SET_ITEM(item, 0, tag);
            PyTuple_SET_ITEM(item, 1, outcome ? outcome : Py_NewRef(Py_None));
        }
        if (!item) item = Py_NewRef(Py_None);
        PyList_SET_ITEM(list, (Py_ssize_t)index, item);
    }
    PyMem_RawFree(results);
    return list;
}

static PyMethodDef methods[] = {
    {"bind", bind, METH_VARARGS,
     "bind(addresses, result_type, unset, finish): the library's functions (addresses, ints: gw_call_async_queued, "
     "gw_queue_wait, gw_result_read, gw_result_cache, gw_result_free, gw_call_handle_free, then gw_result_method, _path, "
     "_mapped_json, _attempts_json, _headers_json, _metadata_json, _url, then gw_result_mapped_walk), the Result class, "
     "its unset marker, and finish(NativeResult or None) -> outcome, which take calls for each result that is not "
     "a success."},
    {"start", (PyCFunction)(void (*)(void))start, METH_FASTCALL,
     "start(client, options, queue, tag, want_handle) -> (status, call): gw_call_async_queued with "
     "pointers as ints; call is the gw_call_handle * (0 unless want_handle) the caller frees."},
    {"start_on", (PyCFunction)(void (*)(void))start_on, METH_FASTCALL,
     "start_on(native_client, options, queue, tag, want_handle) -> (status, call): start with the handle read "
     "from native_client.handle in the same C call (no lock: see the C source); status -1: the client is closed."},
    {"walk", walk, METH_O,
     "walk(result) -> the mapped objects of the gw_result * (an int, borrowed), built from gw_result_mapped_walk "
     "as NativeResult.mapped builds them, or None."},
    {"release", release, METH_O, "release(call): gw_call_handle_free of a handle start gave (0: nothing)."},
    {"notifier", notifier, METH_O,
     "notifier(fd) -> (notifier, notify): a gw_queue_notify_fn (address) and its user_data that write 1 to "
     "eventfd fd, without the GIL."},
    {"notifier_close", notifier_close, METH_O, "notifier_close(notifier): no more writes to its fd."},
    {"take", (PyCFunction)(void (*)(void))take, METH_FASTCALL,
     "take(queue, timeout, capacity) -> [(tag, outcome), ...]: up to capacity finished results "
     "(waiting at most timeout seconds without the GIL; < 0 or inf: until one arrives; NaN: ValueError); an outcome is a Result or what finish made of a "
     "NativeResult (a failure) or of None (unreadable, freed)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "gatewire._speedups", "The optional C hot paths of the gatewire binding.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    if (PyType_Ready(&NativeResultType) < 0) return NULL;
    if (!api.empty && !(api.empty = PyTuple_New(0))) return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (!module) return NULL;
    if (PyModule_AddObjectRef(module, "NativeResult", (PyObject *)&NativeResultType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
