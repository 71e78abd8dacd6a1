import Glibc

/// Marks the threads that run an ``EventLoop``, so a blocking wait that is not tied to one
/// client (a completion queue several clients share) can tell it would stall a loop: any
/// loop's thread, not just one client's.
package enum LoopThread {
    /// A thread-specific slot, non-NULL on a loop thread (created once per process).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Marks the calling thread as a loop thread (its loop's `run`, once).
    static func markCurrent() { pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1)) }

    /// Whether the calling thread runs some event loop (any client's).
    package static var isCurrent: Bool { pthread_getspecific(key) != nil }
}
