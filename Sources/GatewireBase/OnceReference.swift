import Synchronization

/// An object made on first use and then shared, safe to first use from many threads at once
/// without a lock: the first one made is published with a compare-and-swap, a thread that
/// loses the race drops its own. Released when this value goes (it is not copyable, so it
/// lives in one place, e.g. a `let` of a class).
///
/// For things most instances never need (a result's C-string cache, a response's parsed
/// header strings): no allocation, no lock and no mutex set-up until the first use.
/// `package`: the C-ABI target uses it too.
package struct OnceReference<Object: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The object's `Unmanaged` bit pattern (+1), 0 before the first use.
    private let bits = Atomic<UInt>(0)

    /// Nothing made yet.
    package init() {}

    deinit {
        let current = bits.load(ordering: .acquiring)
        if current != 0 { Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: current)!).release() }
    }

    /// The object, made with `make` on the first call (any thread; `make` may run on more
    /// than one racing thread, and only one result is kept).
    package func get(_ make: () -> Object) -> Object {
        let current = bits.load(ordering: .acquiring)
        if current != 0 { return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue() }
        let made = Unmanaged.passRetained(make())
        let (exchanged, winner) = bits.compareExchange(expected: 0, desired: UInt(bitPattern: made.toOpaque()),
                                                       ordering: .acquiringAndReleasing)
        if exchanged { return made.takeUnretainedValue() }
        made.release()  // another thread published first
        return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: winner)!).takeUnretainedValue()
    }
}
