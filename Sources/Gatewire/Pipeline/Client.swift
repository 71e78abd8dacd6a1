import Glibc

/// A REST gateway client: one base URL, its descriptors, routes, retry policy, plugins and
/// failure observers, and one libcurl event loop on its own thread that runs every call.
///
/// Set up once and then shared freely: every method is safe from any thread. Completions,
/// plugins and observers run on the client's event-loop thread and must not block.
/// ``close()`` (or releasing the last reference) ends the calls still running with kind
/// `cancelled`.
///
/// Response bodies of 16 KiB or more are parsed and mapped on a worker pool shared by every
/// client of the process (one pthread per online core, started when first needed and joined
/// when the last client that used it closes), so a client uses more than one core; the
/// outcome comes back to the event-loop thread, where the call finishes as any other. A
/// process that may run on one CPU only maps on the loop thread. `GATEWIRE_OFFLOAD_BYTES` in
/// the environment changes the threshold (0: every body).
///
/// ```swift
/// let client = try Client(configFile: "examples/httpbin.json")
/// let result = try await client.send(Request(route: "slideshow"))
/// let show = try result.decode(Slideshow.self, at: "slideshow")
/// ```
public final class Client: Sendable {
    let core: ClientCore

    /// A client for `config`, with `plugins` after the config's own (auth first).
    /// - Parameter config: the gateway config.
    /// - Parameter plugins: run after the config's own plugins.
    /// - Parameter randomSeed: seeds the retry jitter per call, for exact tests; nil (default)
    ///   seeds from the system.
    /// - Throws: ``ConfigError`` naming `plugins[i].path` when the config names a shared-object
    ///   plugin: this product cannot load one (the C ABI library and the `gatewire` CLI do);
    ///   pass the plugin here instead.
    public convenience init(config: GatewayConfig, plugins: [any Plugin] = [], randomSeed: UInt64? = nil) throws(ConfigError) {
        try self.init(config: config, plugins: plugins, registry: .builtIn, randomSeed: randomSeed)
    }

    /// A client for `config` whose config plugins `registry` builds (the C ABI library and the
    /// CLI pass one that loads shared objects), with `plugins` after them.
    /// - Throws: ``ConfigError`` from `registry` (``PluginRegistry/plugins(for:catalog:)``), or
    ///   for a path or URL with a NUL byte (``GatewayConfig/cStringProblem``).
    package init(config: GatewayConfig, plugins: [any Plugin], registry: PluginRegistry, randomSeed: UInt64?) throws(ConfigError) {
        if let problem = config.cStringProblem { throw problem }
        let configPlugins = try registry.plugins(for: config.plugins, catalog: config.catalog)
        let storedCookies = try config.cookies?.storedCookies() ?? []
        core = ClientCore(config: config, plugins: configPlugins + plugins, randomSeed: randomSeed, storedCookies: storedCookies)
    }

    /// A client with only a base URL and every default (the default retry policy, no
    /// descriptors: results carry the raw body).
    /// - Throws: ``ConfigError`` unless `baseURL` is an absolute http(s) URL with a host.
    public convenience init(baseURL: String, plugins: [any Plugin] = []) throws(ConfigError) {
        try self.init(config: GatewayConfig.Source.baseURL(baseURL).load(), plugins: plugins)
    }

    /// A client from a gateway config file (JSON).
    /// - Throws: ``ConfigError`` naming the field that is wrong (a shared-object plugin
    ///   included: see ``init(config:plugins:randomSeed:)``).
    public convenience init(configFile path: String, plugins: [any Plugin] = []) throws(ConfigError) {
        try self.init(config: GatewayConfig.Source.file(path).load(), plugins: plugins)
    }

    deinit {
        core.telemetry.flush(on: core.loop)
        core.loop.shutdown()
    }

    /// The config the client was built from.
    public var config: GatewayConfig { core.config }

    /// Stops the event loop: calls still running complete with kind `cancelled` (observers
    /// see them), later calls fail at once with kind `cancelled`. Blocks until the loop
    /// thread has ended, unless called from it. Idempotent. With an OTLP endpoint
    /// (``TelemetrySettings``), first sends the spans still queued, waiting at most 3 s.
    public func close() {
        core.telemetry.flush(on: core.loop)
        core.loop.shutdown()
    }

    /// Like ``close()``, then runs `cleanup` once every call has completed: on the loop
    /// thread as its last act, so state the callbacks use can be released safely even when
    /// this is called from a callback. `cleanup` does not run if the client was already closed.
    public func close(then cleanup: @escaping @Sendable () -> Void) {
        core.telemetry.flush(on: core.loop)
        core.loop.shutdown(then: cleanup)
    }

    /// Whether the caller runs on this client's event-loop thread (inside a completion,
    /// plugin, retry test or observer), where a blocking call would deadlock.
    public var isOnEventLoopThread: Bool { core.loop.isCurrentThread }

    /// The one rule of every wait on calls (``sendAndWait(_:)``, C's `gw_call`,
    /// `gw_paginator_next`, `gw_client_check_blocking` for bindings that wait on their own, and
    /// `gw_queue_wait`): why the calling thread must not block, or nil. On an event-loop thread
    /// (in a completion, plugin, retry test or observer) the calls it would wait for could
    /// never complete: those of `client`'s loop, or with `client` nil (a completion queue,
    /// which may hold calls of any client) of any loop. Each caller adds its name and remedy.
    package static func waitProblem(waitingOn client: Client?) -> String? {
        if let client {
            return client.isOnEventLoopThread
                ? "called on the client's event-loop thread (in a callback), where waiting would deadlock" : nil
        }
        return isOnAnyEventLoopThread ? "called on an event-loop thread (in a callback), where waiting would deadlock" : nil
    }

    /// Whether the caller runs on any client's event-loop thread (in a completion, observer,
    /// monitor or plugin hook), where a blocking wait would stall that loop's calls.
    public static var isOnAnyEventLoopThread: Bool { LoopThread.isCurrent }

    // MARK: Failure observers

    /// Registers `observer` to see every failed call from now on, exactly once per call,
    /// after the call's last attempt and before its own completion (the RestKit pattern).
    /// - Returns: a token for ``removeFailureObserver(_:)``.
    @discardableResult
    public func addFailureObserver(_ observer: @escaping FailureObserver) -> ObserverToken {
        core.observers.add(observer)
    }

    /// Registers `observer` for the failed calls that pass `filter` (status codes or classes,
    /// no response, error kinds, path pattern), exactly once per such call.
    /// - Returns: a token for ``removeFailureObserver(_:)``.
    @discardableResult
    public func addFailureObserver(filter: FailureFilter, _ observer: @escaping FailureObserver) -> ObserverToken {
        core.observers.add(observer, filter: filter)
    }

    /// Registers `monitor` to see every ``CallEvent`` of every call from now on.
    /// - Returns: a token for ``removeEventMonitor(_:)``.
    @discardableResult
    public func addEventMonitor(_ monitor: @escaping EventMonitor) -> ObserverToken {
        core.events.add(monitor)
    }

    /// Removes an event monitor. - Returns: whether it was registered.
    @discardableResult
    public func removeEventMonitor(_ token: ObserverToken) -> Bool { core.events.remove(token) }

    /// Registers `exporter` to receive the spans of every sampled call from now on
    /// (``SpanExporter``); registering one turns tracing on for the client.
    /// - Returns: a token for ``removeSpanExporter(_:)``.
    @discardableResult
    public func addSpanExporter(_ exporter: any SpanExporter) -> ObserverToken {
        core.telemetry.addExporter(exporter)
    }

    /// The spans the client's OTLP exporter has sent and dropped (``SpanExportCounts``), or
    /// nil when it has no OTLP endpoint (``TelemetrySettings/otlpEndpoint``). Any thread.
    public var spanExportCounts: SpanExportCounts? { core.telemetry.exportCounts }

    /// The client's metrics as values (``MetricsSnapshot``: `http.client.request.duration`,
    /// `http.client.active_requests` and Gatewire's own, cumulative since the client was made;
    /// docs/telemetry.md), the same the OTLP exporter sends to `/v1/metrics`. Recorded while
    /// telemetry is on (the config's `telemetry`, `OTEL_EXPORTER_OTLP_ENDPOINT`, or a span
    /// or measurement exporter registered).
    /// - Returns: nil when telemetry is off or the client is closed.
    /// - Note: any thread; from another than the client's event loop it waits for the loop to
    ///   read the values (as long as a callback running on the loop takes).
    public func metricsSnapshot() -> MetricsSnapshot? { core.telemetry.metricsSnapshot(on: core.loop) }

    /// ``metricsSnapshot()`` as the OTLP/HTTP JSON `ExportMetricsServiceRequest` (what the
    /// OTLP exporter sends to `/v1/metrics` with `http/json`; C
    /// `gw_client_telemetry_metrics_json`), or nil when
    /// telemetry is off or the client is closed. Any thread, as ``metricsSnapshot()``.
    package func otlpMetricsJSON() -> [UInt8]? { core.telemetry.otlpMetricsJSON(on: core.loop) }

    /// Registers `exporter` to receive every measurement the client records from the next
    /// call's start on (``MeasurementExporter``: each attempt's duration, the requests on
    /// the wire, retries, breaker changes, ...; every call, sampled or not), in batches on
    /// the event-loop thread; registering one turns telemetry on for the client, as a span
    /// exporter does.
    /// - Returns: a token for ``removeMeasurementExporter(_:)``.
    @discardableResult
    public func addMeasurementExporter(_ exporter: any MeasurementExporter) -> ObserverToken {
        core.telemetry.addMeasurementExporter(exporter)
    }

    /// Removes a measurement exporter; batches delivered afterwards do not reach it.
    /// - Returns: whether it was registered.
    @discardableResult
    public func removeMeasurementExporter(_ token: ObserverToken) -> Bool {
        core.telemetry.removeMeasurementExporter(token)
    }

    /// Removes a span exporter. - Returns: whether it was registered.
    @discardableResult
    public func removeSpanExporter(_ token: ObserverToken) -> Bool { core.telemetry.removeExporter(token) }

    /// Every plugin of the client in registration order: the config's `auth`, the config's
    /// `plugins`, then those passed to the initialiser.
    public var plugins: [any Plugin] { core.plugins }

    /// Removes an observer; calls that finish afterwards no longer notify it.
    /// - Returns: whether it was registered.
    @discardableResult
    public func removeFailureObserver(_ token: ObserverToken) -> Bool {
        core.observers.remove(token)
    }

    // MARK: Calls

    /// Starts a call and returns at once.
    ///
    /// `completion` runs exactly once, on the client's event-loop thread, with the response
    /// or the error; failure observers run just before it. A call that cannot be built
    /// (unknown route, missing parameter, an option outside its range: ``CallOptions/maxRetries``
    /// 0...100, ``Timeouts``' ranges, ``CallOptions/maxResponseBytes`` 1...2^62) fails with
    /// `invalidArgument` before anything is sent. The call's trace parent is
    /// ``CallOptions/traceParent``, else ``TraceContext/current`` of the calling task.
    @discardableResult
    public func start(_ request: Request,
                      completion: @escaping @Sendable (Result<Response, GatewireError>) -> Void) -> CallHandle {
        let request = request.tracedInCurrentTask
        let core = core
        let handle = CallHandle(loop: core.loop)
        let accepted = core.loop.execute {
            do throws(GatewireError) {
                let prepared = try core.prepare(request)
                let sink = try request.options.bodySink.map { sink throws(GatewireError) in
                    try BodySinkSession(sink, method: request.method, path: core.redactor.url(prepared.path))
                }
                let plan = ResolvedCall(prepared, options: request.options, config: core.config, streamsBody: sink != nil)
                let call = Call(core: core, plan: plan, options: request.options, sink: sink, completion: completion)
                handle.attach(call)
                call.start()
            } catch {
                Call.failUnbuilt(error, core: core, completion: completion)
            }
        }
        if !accepted {
            let error = GatewireError(kind: .cancelled, message: "the client was closed", method: request.method,
                                      path: request.route ?? request.path)
            Call.failUnbuilt(error, core: core, completion: completion)
        }
        return handle
    }

    /// Sends a call and waits for its result (async/await). Cancelling the task cancels the
    /// call (kind `cancelled`).
    /// - Throws: ``GatewireError``; kind `invalidArgument`, before anything is sent, for a
    ///   call that cannot be built, as ``start(_:completion:)`` says (an option out of range).
    public func send(_ request: Request) async throws(GatewireError) -> Response {
        let handle = Lock<(handle: CallHandle?, cancelled: Bool)>((nil, false))
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, GatewireError>, Never>) in
                let started = start(request) { continuation.resume(returning: $0) }
                let cancelled = handle.withLock { state -> Bool in
                    state.handle = started
                    return state.cancelled
                }
                if cancelled { started.cancel() }
            }
        } onCancel: {
            let started = handle.withLock { state -> CallHandle? in
                state.cancelled = true
                return state.handle
            }
            started?.cancel()
        }
        return try result.get()
    }

    /// Sends a call and decodes the mapped object at `keyPath` into `T`; when no response
    /// descriptor matched, the body itself (at `keyPath`, `""` for all of it), as Alamofire's
    /// `responseDecodable`: ``Response/decode(_:at:)``.
    ///
    /// Decoding is part of the call here: when it fails, the call fails with kind `mapping`
    /// (with the response's status and attempts) and the failure observers see it, once.
    /// - Throws: ``GatewireError``.
    public func send<T: Decodable>(_ request: Request, decoding type: T.Type, at keyPath: String = "")
        async throws(GatewireError) -> T
    {
        let response = try await send(request)
        do {
            return try response.decode(type, at: keyPath)
        } catch {
            core.observers.notify(error)
            throw error
        }
    }

    /// Sends a call and blocks the calling thread until it completes.
    ///
    /// - Throws: ``GatewireError``; kind `invalidArgument` at once, without sending, when
    ///   called on the client's event-loop thread (from a completion, plugin or observer),
    ///   where waiting would deadlock; `invalidArgument`, before anything is sent, for a
    ///   call that cannot be built, as ``start(_:completion:)`` says (an option out of range).
    public func sendAndWait(_ request: Request) throws(GatewireError) -> Response {
        if let problem = Self.waitProblem(waitingOn: self) {
            throw GatewireError(kind: .invalidArgument, message: "sendAndWait: \(problem); use send or start",
                                method: request.method, path: request.route ?? request.path)
        }
        let waiter = Waiter<Result<Response, GatewireError>>()
        start(request) { waiter.put($0) }
        return try waiter.wait().get()
    }
}
