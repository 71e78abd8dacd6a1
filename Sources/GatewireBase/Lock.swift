import Glibc

/// A value guarded by a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer understands pthread
/// mutexes but reports false races on Mutex's PI-futex slow path, which it does not model.
/// `package`: the C-ABI target shares it. The value is not checked for exclusive access at
/// run time (`@exclusivity(unchecked)`): the mutex already makes every access exclusive, and
/// the check cost about 80 instructions per `withLock`.
package final class Lock<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. `body` must not block or re-enter.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
