/* zlib (Debian's zlib1g) for the streamed bodies Gatewire decodes itself, and a typed
 * wrapper for inflateInit2, a macro Swift cannot call.
 * static inline: compiled into the Swift module, never exported from libGatewire.so. */
#ifndef GATEWIRE_CZLIB_SHIM_H
#define GATEWIRE_CZLIB_SHIM_H
#include <zlib.h>

static inline int gw_inflate_init2(z_stream *stream, int window_bits) { return inflateInit2(stream, window_bits); }

#endif
