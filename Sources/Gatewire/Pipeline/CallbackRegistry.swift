/// Callbacks registered on a client (failure observers, event monitors) under tokens:
/// registration, removal and snapshots are safe from any thread.
final class CallbackRegistry<Entry>: @unchecked Sendable {
    // @unchecked: entries are only read or written under the lock; callers store Sendable closures.
    private let entries = Lock<(next: Int, list: [(id: Int, entry: Entry)])>((1, []))

    /// Registers `entry`; the token removes it.
    func add(_ entry: Entry) -> ObserverToken {
        entries.withLock { state in
            defer { state.next += 1 }
            state.list.append((state.next, entry))
            return ObserverToken(id: state.next)
        }
    }

    /// Returns whether the token was registered.
    @discardableResult
    func remove(_ token: ObserverToken) -> Bool {
        entries.withLock { state in
            let before = state.list.count
            state.list.removeAll { $0.id == token.id }
            return state.list.count != before
        }
    }

    /// The entries registered now, in registration order.
    var snapshot: [Entry] { entries.withLock { $0.list.map(\.entry) } }
}
