/* Arenas for the Jansson trees of large response bodies (internal to libGatewire.so: every
 * symbol here is hidden). The design and its rules are in arena.c. */
#ifndef GATEWIRE_ARENA_H
#define GATEWIRE_ARENA_H
#include <stddef.h>

#define GW_ARENA_HIDDEN __attribute__((visibility("hidden")))

/* Starts an arena scope on the calling thread: until gw_arena_end, the Jansson allocations
 * this thread makes are carved from arena slots. Installs the arena allocator into Jansson
 * on first use. Returns 1 when the scope is active, 0 when arenas are unavailable (Jansson
 * has another allocator, the address space could not be reserved): Jansson then allocates
 * with malloc as usual. Scopes do not nest: a thread already in a scope gets 0. */
GW_ARENA_HIDDEN int gw_arena_begin(void);

/* Ends the calling thread's scope (a no-op without one): its current slot is sealed, so
 * it returns to the pool once every node in it has been freed. */
GW_ARENA_HIDDEN void gw_arena_end(void);

/* Subtracts the calling thread's pending run of frees from its slot (see arena_free), so
 * a slot whose last node this thread freed goes back to the pool now. Cheap; any thread. */
GW_ARENA_HIDDEN void gw_arena_flush(void);

/* Whether `pointer` lies in the arena region (for tests). */
GW_ARENA_HIDDEN int gw_arena_contains(const void *pointer);

/* The slots the calling thread has taken from the pool (to carve in its scopes) and given
 * back (by sealing or freeing the last allocation of a slot), since it started. For tests:
 * a tree built in one thread's scope and freed on others is gone, slots included, when
 * the slots the builder took equal the slots the builder and the freeing threads gave back
 * (after each flushed). */
GW_ARENA_HIDDEN void gw_arena_thread_slots(size_t *taken, size_t *recycled);

/* Bytes in one slot, and the largest allocation carved from a slot (larger ones use malloc). */
#define GW_ARENA_SLOT_BYTES ((size_t)64 * 1024)
#define GW_ARENA_MAX_ALLOCATION ((size_t)8 * 1024)

#endif
