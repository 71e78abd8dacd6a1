/* Arenas for the Jansson trees of large response bodies.
 *
 * Why: parsing and mapping a 137 KB body makes ~30,000 small Jansson allocations, and
 * freeing the trees as many frees; glibc malloc/free were a quarter of the CPU of a call.
 * Inside a scope, an allocation here is a pointer bump in a 64 KiB slot; a free is counted
 * off its slot's live allocations (in runs: one atomic subtraction per stretch of frees into
 * one slot).
 *
 * How (json_set_alloc_funcs is process-global, and the application may use the same
 * libjansson.so, so the allocator must be right for every caller):
 *   - Jansson's allocator is replaced once, and only when it is still malloc/free (an
 *     application that installed its own keeps it, and Gatewire then uses no arenas).
 *   - arena_malloc serves a thread only inside its scope (gw_arena_begin/gw_arena_end,
 *     which only Gatewire's parse-and-map code opens, never around user code). Everywhere
 *     else, and for allocations over GW_ARENA_MAX_ALLOCATION, it is plain malloc.
 *   - arena_free tells the two apart by address: every slot lies in one region reserved at
 *     start (mmap PROT_NONE; a slot is made writable when first used), so a pointer in
 *     the region is an arena allocation and anything else goes to free(). Pointers the
 *     application allocated before the switch are therefore still freed with free().
 *   - Nodes are freed one by one, by Jansson, as usual (json_decref whenever a count drops to
 *     0), on any thread. A slot goes back to the pool when its last allocation is freed and
 *     it is sealed (no scope carves from it any more), whatever thread frees last. A thread
 *     counts its frees into one slot in a run and subtracts the run when it frees into
 *     another slot, calls gw_arena_flush (Gatewire does after every release it makes) or
 *     exits: so a thread's pending run holds back at most one slot. So a tree
 *     may be mutated after it was built (nodes added later are malloc'ed, since no scope is
 *     open then, and freed with free(); nodes removed are counted off their slot), shared,
 *     kept in part (a subtree outliving its root keeps only its slots), or released on
 *     another thread.
 * Rules that follow:
 *   1. Memory Jansson allocated inside a scope must only be released through Jansson
 *      (json_decref); never free() it. Gatewire never lets Jansson hand it memory in a
 *      scope (its JSON text comes from json_dump_callback into its own buffers).
 *   2. No user code runs inside a scope (its allocations would land in slots).
 *   3. An application that calls json_set_alloc_funcs must do so before creating its first
 *     Gatewire client; if it replaces the allocator later, arena nodes still alive would
 *     be given to its free function.
 * A live node keeps its whole slot (64 KiB) from the pool; slots in the pool beyond
 * GW_ARENA_KEEP_FREE_SLOTS have their pages returned to the system (MADV_DONTNEED). When the
 * region is exhausted, allocations fall back to malloc.
 *
 * Slot layout: a 64-byte header (the live count) then allocations of multiples of 16
 * bytes (malloc's alignment). The live count starts at OPEN_BIAS while a scope carves from
 * the slot; the scope counts its allocations without atomics and, when it seals the slot,
 * adds them and removes the bias in one atomic step, so frees that happen meanwhile (on
 * any thread) can never bring it to 0 early. */
#define _GNU_SOURCE
#include "gatewire_arena.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define REGION_BYTES ((size_t)8 << 30) /* address space only: 131,072 slots */
#define SLOT_COUNT (REGION_BYTES / GW_ARENA_SLOT_BYTES)
#define HEADER_BYTES ((size_t)64)
#define OPEN_BIAS ((int64_t)1 << 40)
#define GW_ARENA_KEEP_FREE_SLOTS 256 /* 16 MiB kept warm for the next trees */

struct slot_header {
    _Atomic int64_t live;
};

/* The calling thread's arena state: its scope (the slot it carves from and what it carved
 * there) and its run of frees (consecutive frees into one slot, not yet subtracted). */
struct scope {
    int active;
    char *cursor, *limit;
    struct slot_header *slot;
    int64_t carved;
    struct slot_header *run_slot;
    int64_t run_count;
    int exit_flush; /* the thread-exit destructor is registered */
    size_t taken, recycled; /* slots this thread took from / gave back to the pool (tests) */
};

/* initial-exec: a direct %fs access instead of a __tls_get_addr call per allocation
 * (measured: 11 of ~41 instructions). Its 80 bytes come from the static TLS surplus glibc
 * keeps for libraries loaded with dlopen (as by Python's ctypes). */
static __thread struct scope current __attribute__((tls_model("initial-exec")));

static char *region;               /* SLOT_BYTES-aligned; NULL: no arenas */
static int installed;              /* the allocator is ours */
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

/* The pool, under one mutex: free slots whose pages are kept (warm, reused first), free
 * slots whose pages went back to the system (cold), and the next never-used slot. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *warm_slots, *cold_slots;
static size_t warm_count, cold_count, fresh_next;

static void *arena_malloc(size_t size);
static void arena_free(void *pointer);
static pthread_key_t exit_key;
static void flush_at_exit(void *unused);

static void lock_pool(void) { pthread_mutex_lock(&pool_lock); }
static void unlock_pool(void) { pthread_mutex_unlock(&pool_lock); }

static inline int in_region(const void *pointer) {
    return (uintptr_t)pointer - (uintptr_t)region < REGION_BYTES;
}

static void setup(void) {
    json_malloc_t m;
    json_free_t f;
    json_get_alloc_funcs(&m, &f);
    if (m != malloc || f != free) return; /* the application's allocator: leave it */
    size_t bytes = REGION_BYTES + GW_ARENA_SLOT_BYTES;
    void *reserved = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) return;
    warm_slots = malloc(GW_ARENA_KEEP_FREE_SLOTS * sizeof *warm_slots);
    cold_slots = malloc(SLOT_COUNT * sizeof *cold_slots);
    if (!warm_slots || !cold_slots) {
        free(warm_slots);
        free(cold_slots);
        munmap(reserved, bytes);
        return;
    }
    uintptr_t aligned = ((uintptr_t)reserved + GW_ARENA_SLOT_BYTES - 1) & ~(uintptr_t)(GW_ARENA_SLOT_BYTES - 1);
    if (pthread_key_create(&exit_key, flush_at_exit) != 0) {
        free(warm_slots);
        free(cold_slots);
        munmap(reserved, bytes);
        return;
    }
    region = (char *)aligned;
    /* As glibc does for malloc: a child forked while another thread holds the pool lock
     * must not inherit it locked. */
    pthread_atfork(lock_pool, unlock_pool, unlock_pool);
    json_set_alloc_funcs(arena_malloc, arena_free);
    installed = 1;
}

/* A slot from the pool (warm, then cold, then never used), opened with the bias; NULL
 * when the region is exhausted. */
static struct slot_header *take_slot(void) {
    char *slot = NULL;
    pthread_mutex_lock(&pool_lock);
    if (warm_count > 0) {
        slot = region + (size_t)warm_slots[--warm_count] * GW_ARENA_SLOT_BYTES;
    } else if (cold_count > 0) {
        slot = region + (size_t)cold_slots[--cold_count] * GW_ARENA_SLOT_BYTES;
    } else if (fresh_next < SLOT_COUNT) {
        slot = region + fresh_next * GW_ARENA_SLOT_BYTES;
        if (mprotect(slot, GW_ARENA_SLOT_BYTES, PROT_READ | PROT_WRITE) == 0)
            fresh_next++;
        else
            slot = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    if (!slot) return NULL;
    current.taken++;
    struct slot_header *header = (struct slot_header *)slot;
    atomic_store_explicit(&header->live, OPEN_BIAS, memory_order_relaxed);
    return header;
}

/* Back to the pool: called by whoever brought the live count to 0 (after acquiring it).
 * Beyond GW_ARENA_KEEP_FREE_SLOTS warm slots, its pages go back to the system first
 * (outside the lock: nobody else can reach the slot until it is pushed). */
static void recycle(struct slot_header *header) {
    char *slot = (char *)header;
    uint32_t index = (uint32_t)((size_t)(slot - region) / GW_ARENA_SLOT_BYTES);
    current.recycled++;
    pthread_mutex_lock(&pool_lock);
    if (warm_count < GW_ARENA_KEEP_FREE_SLOTS) {
        warm_slots[warm_count++] = index;
        pthread_mutex_unlock(&pool_lock);
        return;
    }
    pthread_mutex_unlock(&pool_lock);
    madvise(slot, GW_ARENA_SLOT_BYTES, MADV_DONTNEED);
    pthread_mutex_lock(&pool_lock);
    cold_slots[cold_count++] = index;
    pthread_mutex_unlock(&pool_lock);
}

/* The scope stops carving from its slot: its allocations are added and the bias removed. */
static void seal(struct scope *scope) {
    struct slot_header *header = scope->slot;
    if (!header) return;
    scope->slot = NULL;
    scope->cursor = scope->limit = NULL;
    int64_t delta = scope->carved - OPEN_BIAS;
    scope->carved = 0;
    if (atomic_fetch_add_explicit(&header->live, delta, memory_order_acq_rel) + delta == 0) recycle(header);
}

/* Outside a scope, for allocations that do not fit the slot's rest, and to open a slot. */
__attribute__((noinline)) static void *arena_malloc_slow(struct scope *scope, size_t size) {
    size_t rounded = (size + 15) & ~(size_t)15;
    if (scope->active && rounded <= GW_ARENA_MAX_ALLOCATION) {
        seal(scope);
        struct slot_header *header = take_slot();
        if (header) {
            scope->slot = header;
            scope->cursor = (char *)header + HEADER_BYTES + rounded;
            scope->limit = (char *)header + GW_ARENA_SLOT_BYTES;
            scope->carved = 1;
            return (char *)header + HEADER_BYTES;
        }
    }
    return malloc(size);
}

/* Outside a scope cursor == limit == NULL, so every allocation takes the slow path (malloc). */
static void *arena_malloc(size_t size) {
    struct scope *scope = &current;
    size_t rounded = (size + 15) & ~(size_t)15;
    char *cursor = scope->cursor;
    if (__builtin_expect((size_t)(scope->limit - cursor) >= rounded && rounded != 0, 1)) {
        scope->cursor = cursor + rounded;
        scope->carved++;
        return cursor;
    }
    return arena_malloc_slow(scope, size);
}

/* Subtracts the thread's run of frees from its slot (which may then go back to the pool). */
static void flush_run(struct scope *scope) {
    struct slot_header *header = scope->run_slot;
    if (!header) return;
    int64_t count = scope->run_count;
    scope->run_slot = NULL;
    scope->run_count = 0;
    if (atomic_fetch_sub_explicit(&header->live, count, memory_order_acq_rel) == count) recycle(header);
}

static void flush_at_exit(void *unused) {
    (void)unused;
    flush_run(&current);
}

/* Frees are counted in runs: freeing a tree touches its slots in long stretches, so one
 * atomic subtraction per stretch replaces one per node (an atomic per free measured 9% of
 * the CPU of a mapped call). A run waits until the thread frees into another slot, calls
 * gw_arena_flush (Gatewire does after each release it makes) or exits. */
static void arena_free(void *pointer) {
    if (!in_region(pointer)) {
        free(pointer);
        return;
    }
    struct slot_header *header =
        (struct slot_header *)((uintptr_t)pointer & ~(uintptr_t)(GW_ARENA_SLOT_BYTES - 1));
    struct scope *scope = &current;
    if (header == scope->run_slot) {
        scope->run_count++;
        return;
    }
    flush_run(scope);
    scope->run_slot = header;
    scope->run_count = 1;
    if (!scope->exit_flush) {
        scope->exit_flush = 1;
        pthread_setspecific(exit_key, scope); /* any non-NULL value: the destructor runs at exit */
    }
}

void gw_arena_flush(void) { flush_run(&current); }

int gw_arena_begin(void) {
    pthread_once(&setup_once, setup);
    struct scope *scope = &current;
    if (!installed || scope->active) return 0;
    json_malloc_t m;
    json_free_t f;
    json_get_alloc_funcs(&m, &f);
    if (m != arena_malloc || f != arena_free) return 0; /* replaced since: rule 3 */
    scope->active = 1;
    return 1;
}

void gw_arena_end(void) {
    struct scope *scope = &current;
    if (!scope->active) return;
    seal(scope);
    flush_run(scope);
    scope->active = 0;
}

int gw_arena_contains(const void *pointer) { return region && in_region(pointer); }

void gw_arena_thread_slots(size_t *taken, size_t *recycled) {
    *taken = current.taken;
    *recycled = current.recycled;
}
