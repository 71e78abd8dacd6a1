import Glibc

/// A one-shot value handed from one thread to another: `wait` blocks until `put`.
package final class Waiter<Value: Sendable>: @unchecked Sendable {
    // Heap-allocated: pthread objects must not move, and Swift gives no address stability
    // for stored properties passed with `&`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var value: Value?

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Hands over the value and wakes the waiter. Call once.
    package func put(_ value: Value) {
        pthread_mutex_lock(mutex)
        self.value = value
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Blocks until ``put(_:)`` and returns the value.
    package func wait() -> Value {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while value == nil { pthread_cond_wait(condition, mutex) }
        return value!
    }
}
