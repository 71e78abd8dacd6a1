import Gatewire

/// The object behind a `gw_client *`: the Swift client, its C plugins and C observers, event
/// monitors, span and measurement exporters (whose `destroy` functions run when the client is freed or
/// the observer removed).
final class ClientBox: @unchecked Sendable {
    let client: Client
    let plugins: [CPlugin]
    private let observers = ObserverTable()
    private let monitors = ObserverTable()
    private let exporters = ObserverTable()
    private let measurementExporters = ObserverTable()

    init(client: Client, plugins: [CPlugin]) {
        self.client = client
        self.plugins = plugins
    }

    func addObserver(_ token: ObserverToken, destroy: (() -> Void)?) -> UInt64 {
        observers.add(token, destroy: destroy)
    }

    func removeObserver(_ id: UInt64) -> Bool {
        guard let entry = observers.remove(id) else { return false }
        client.removeFailureObserver(entry.token)
        entry.destroy?()
        return true
    }

    func addMonitor(_ token: ObserverToken, destroy: (() -> Void)?) -> UInt64 {
        monitors.add(token, destroy: destroy)
    }

    func removeMonitor(_ id: UInt64) -> Bool {
        guard let entry = monitors.remove(id) else { return false }
        client.removeEventMonitor(entry.token)
        entry.destroy?()
        return true
    }

    func addExporter(_ token: ObserverToken, destroy: (() -> Void)?) -> UInt64 {
        exporters.add(token, destroy: destroy)
    }

    func removeExporter(_ id: UInt64) -> Bool {
        guard let entry = exporters.remove(id) else { return false }
        client.removeSpanExporter(entry.token)
        entry.destroy?()
        return true
    }

    func addMeasurementExporter(_ token: ObserverToken, destroy: (() -> Void)?) -> UInt64 {
        measurementExporters.add(token, destroy: destroy)
    }

    func removeMeasurementExporter(_ id: UInt64) -> Bool {
        guard let entry = measurementExporters.remove(id) else { return false }
        client.removeMeasurementExporter(entry.token)
        entry.destroy?()
        return true
    }

    /// Closes the client; once its loop has completed every call, destroys the observers'
    /// and plugins' user data (on the loop thread when freed from a callback).
    func close() {
        let observers = observers
        let monitors = monitors
        let exporters = exporters
        let measurementExporters = measurementExporters
        let plugins = plugins
        client.close {
            for entry in observers.removeAll() { entry.destroy?() }
            for entry in monitors.removeAll() { entry.destroy?() }
            for entry in exporters.removeAll() { entry.destroy?() }
            for entry in measurementExporters.removeAll() { entry.destroy?() }
            for plugin in plugins { plugin.destroy() }
        }
    }
}

/// Registered C observers by id. Thread-safe.
final class ObserverTable: Sendable {
    struct Entry: @unchecked Sendable {
        let token: ObserverToken
        let destroy: (() -> Void)?
    }

    private let state = Lock<(next: UInt64, entries: [UInt64: Entry])>((1, [:]))

    func add(_ token: ObserverToken, destroy: (() -> Void)?) -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            state.entries[state.next] = Entry(token: token, destroy: destroy)
            return state.next
        }
    }

    func remove(_ id: UInt64) -> Entry? { state.withLock { $0.entries.removeValue(forKey: id) } }

    func removeAll() -> [Entry] {
        state.withLock { state in
            defer { state.entries.removeAll() }
            return state.entries.keys.sorted().map { state.entries[$0]! }
        }
    }
}
