/// The thread whose arena (``JSONArena``) holds a tree, where the tree's last reference must
/// be released: an arena is thread-local, so its slots go back to its own thread.
///
/// The layer that owns such threads (the transport's worker pool, joined to JSON by the
/// pipeline) conforms; JSON only holds one per ``JSONValue`` and calls it from `deinit`, so it
/// never depends on that layer, and that layer never sees Jansson.
package protocol JSONTreeHome: Sendable {
    /// Runs `release` (which drops the one reference handed over and flushes the arena's count)
    /// on the home thread, later.
    /// - Returns: false when it cannot (then `release` is dropped without running and the
    ///   caller releases the tree on its own thread).
    func release(_ release: @escaping @Sendable () -> Void) -> Bool
}
