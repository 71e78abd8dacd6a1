/* hiredis 0.14 (Debian's libhiredis0.14): the RESP protocol and the async API the Redis
 * client drives from Gatewire's event loop (its own adapter, no event library), and typed
 * wrappers for what Swift cannot call as it is.
 * static inline: compiled into the Swift module, never exported from libGatewire.so. */
#ifndef GATEWIRE_CHIREDIS_SHIM_H
#define GATEWIRE_CHIREDIS_SHIM_H
#include <hiredis/hiredis.h>
#include <hiredis/async.h>

/* The event hooks of hiredis's adapters (adapters/*.h), set on a context in one call:
 * `ev.addRead` and its siblings are plain function pointers whose argument is `ev.data`. */
typedef void (*gw_redis_event_hook)(void *privdata);

static inline void gw_redis_set_event_hooks(redisAsyncContext *ac, void *data,
                                            gw_redis_event_hook add_read, gw_redis_event_hook del_read,
                                            gw_redis_event_hook add_write, gw_redis_event_hook del_write,
                                            gw_redis_event_hook cleanup) {
    ac->ev.data = data;
    ac->ev.addRead = add_read;
    ac->ev.delRead = del_read;
    ac->ev.addWrite = add_write;
    ac->ev.delWrite = del_write;
    ac->ev.cleanup = cleanup;
}

#endif
