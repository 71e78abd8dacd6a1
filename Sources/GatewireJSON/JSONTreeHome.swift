import CJansson

/// The thread whose arena (``JSONArena``) holds a tree, where the tree's last reference must
/// be released: an arena is thread-local, so its slots go back to its own thread.
///
/// The layer that owns such threads (the transport's worker pool) conforms; JSON only holds
/// one per ``JSONValue`` and calls it from `deinit`, so it never depends on that layer.
package protocol JSONTreeHome: Sendable {
    /// Hands over the reference to `tree` to be released on the home thread.
    /// - Returns: false when it cannot (the caller then releases `tree` on its own thread).
    func release(_ tree: UnsafeMutablePointer<json_t>) -> Bool
}
