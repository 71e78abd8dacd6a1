import CGatewireArena
import Glibc

/// Scopes in which the Jansson trees of a large response body are allocated from arenas
/// (a pointer bump per node; frees counted off 64 KiB slots in runs; see
/// `Sources/CGatewireArena/arena.c` for the design and its rules). Measured on the bench's
/// 137 KB body of 1,000 objects, the whole mapped call through the C ABI: 30% fewer
/// instructions (48.7M -> 33.9M) and 35% less CPU (3.32 -> 2.17 ms) than with glibc malloc.
///
/// ``ResponseMapper`` parses and maps a body of at least ``minimumBodyBytes`` inside a
/// scope, on whatever thread maps it (an event loop or a ``WorkerPool`` worker). The trees
/// are ordinary Jansson trees afterwards: read, shared, mutated, released on any thread,
/// through Jansson or ``JSONValue`` as usual; a node kept alive keeps its whole slot.
/// Smaller bodies are not worth a 64 KiB slot (with 1,000 small calls in flight that would
/// be 64 MiB) and use malloc. An application that installs its own Jansson allocator before
/// its first client keeps it, and no arenas are used.
///
/// Rules for code inside a scope: only Gatewire's own parse-and-map code, never user code
/// (plugins, callbacks); and never `free()` memory Jansson returned (no `json_dumps`: text
/// is written with ``JSONPointer``'s `serialized`, into Swift buffers).
package enum JSONArena {
    /// Bodies at least this large are parsed and mapped in an arena scope: 16 KiB, whose
    /// trees fill a few slots. `GATEWIRE_ARENA_BYTES` in the environment overrides it (a
    /// huge value: never), for A/B runs.
    package static let minimumBodyBytes: Int = {
        if let text = getenv("GATEWIRE_ARENA_BYTES"), let value = Int(String(cString: text)) { return value }
        return 16 * 1024
    }()

    /// Runs `body` inside an arena scope on the calling thread when `bodyBytes` reaches
    /// ``minimumBodyBytes`` and arenas are available (else simply runs it). `body` must
    /// follow the rules above. Not reentrant: a scope inside a scope runs without one.
    package static func scope<R, E: Error>(bodyBytes: Int, _ body: () throws(E) -> R) throws(E) -> R {
        guard bodyBytes >= minimumBodyBytes, gw_arena_begin() != 0 else { return try body() }
        defer { gw_arena_end() }
        return try body()
    }
}
