import Synchronization

/// Callbacks registered on a client (failure observers, event monitors) under tokens:
/// registration, removal and snapshots are safe from any thread.
final class CallbackRegistry<Entry>: @unchecked Sendable {
    // @unchecked: entries are only read or written under the lock; callers store Sendable closures.
    private let entries = Lock<(next: Int, list: [(id: Int, entry: Entry)])>((1, []))
    /// The number of entries, written under the lock: a snapshot of none (the usual case:
    /// no monitor, no observer) takes no lock, as every call asks several times.
    private let count = Atomic<Int>(0)

    /// Registers `entry`; the token removes it.
    func add(_ entry: Entry) -> ObserverToken {
        entries.withLock { state in
            defer { state.next += 1 }
            state.list.append((state.next, entry))
            count.store(state.list.count, ordering: .releasing)
            return ObserverToken(id: state.next)
        }
    }

    /// Returns whether the token was registered. The entry is released after the lock is
    /// dropped, so what it captures may register or remove callbacks in its deinit.
    @discardableResult
    func remove(_ token: ObserverToken) -> Bool {
        let removed = entries.withLock { state -> Entry? in
            guard let index = state.list.firstIndex(where: { $0.id == token.id }) else { return nil }
            defer { count.store(state.list.count, ordering: .releasing) }
            return state.list.remove(at: index).entry
        }
        return removed != nil
    }

    /// Whether no entry is registered now, without the lock.
    var isEmpty: Bool { count.load(ordering: .acquiring) == 0 }

    /// The entries registered now, in registration order.
    var snapshot: [Entry] {
        guard count.load(ordering: .acquiring) > 0 else { return [] }
        return entries.withLock { $0.list.map(\.entry) }
    }
}
