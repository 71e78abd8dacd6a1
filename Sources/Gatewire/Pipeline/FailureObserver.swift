/// A global failure observer: called exactly once for every failed call of the client,
/// after its last attempt and before the call's own completion, as RestKit apps did with one
/// notification per failed request (status 0 = no connection, 401 = log in again).
///
/// Runs on the client's event-loop thread; it must not block (a blocking call from inside it
/// fails with `invalidArgument` instead of deadlocking). An error it throws is contained:
/// written to the client's diagnostics (``Diagnostics``) and never breaks the call.
public typealias FailureObserver = @Sendable (GatewireError) throws -> Void

/// Identifies a registered observer, for ``Client/removeFailureObserver(_:)``.
public struct ObserverToken: Sendable, Hashable {
    let id: Int
}

/// The client's observers; registration and removal are safe from any thread.
final class FailureObservers: Sendable {
    private let registry = CallbackRegistry<(filter: FailureFilter, observer: FailureObserver)>()

    func add(_ observer: @escaping FailureObserver, filter: FailureFilter = FailureFilter()) -> ObserverToken {
        registry.add((filter, observer))
    }

    /// Returns whether the token was registered.
    @discardableResult
    func remove(_ token: ObserverToken) -> Bool { registry.remove(token) }

    /// Calls every observer registered now whose filter matches, once each; a thrown error
    /// is contained (reported to ``Diagnostics``).
    func notify(_ error: GatewireError) {
        let observers = registry.snapshot.filter { $0.filter.matches(error) }.map(\.observer)
        for observer in observers {
            do {
                try observer(error)
            } catch let thrown {
                Diagnostics.report("a failure observer threw \(thrown) (contained) for \(error.method) \(error.path)")
            }
        }
    }
}
