/// A bearer-style credential that is refreshed when the server answers 401 (Alamofire's
/// `AuthenticationInterceptor`, with its known faults designed out).
///
/// - `prepare` signs every attempt with the current token (`Authorization: Bearer <token>` by
///   default). A request that already carries the header (set by the call itself, e.g. the
///   refresh call) is left alone and never triggers a refresh: the refresh bypasses the credential.
/// - On a 401 the call asks `unauthorized(signedWith:sentAt:completion:)`:
///   - signed with an older token than the current one: replayed at once, no refresh;
///   - a refresh is running: waits for it (single flight per credential version);
///   - else one refresh starts: the provider is asked once for a new token.
///   When it answers with a token every waiting call replays once; when it answers nil every
///   waiting call fails with kind `auth` (status 401), and so does any call signed with the
///   same token before the failure (remembered, so stragglers do not start another refresh).
/// - Each call replays at most once: credentials that keep failing end as the 401.
/// - A refresh budget (default 5 per 30 s) stops refresh loops: past it, the 401 stands.
///
/// The provider may answer later, from any thread; it is called on the event-loop thread and
/// must not block there (hand blocking work to another thread or task).
public final class RefreshingCredential: Plugin, Sendable {
    /// Asked for a new token: `current` is the token that was refused (nil when there was
    /// none); call `done` exactly once with the new token, or nil when it cannot be refreshed.
    public typealias Provider = @Sendable (_ current: String?, _ done: @escaping @Sendable (String?) -> Void) -> Void

    /// What a call does after its 401.
    public enum Verdict: Sendable, Equatable {
        /// Replay the request (signed with the current token).
        case replay
        /// Fail with kind `auth`, status 401, this message.
        case fail(String)
        /// Keep the 401 as the call's outcome.
        case keep(String)
    }

    public let name = "RefreshingCredential"
    /// The header a credential sets unless told otherwise: `Authorization` (RFC 9110 section
    /// 11.6.2). The one copy of the default: the initialisers, the C
    /// `gw_credential_options_init` and the Python binding read it.
    public static let defaultHeader = "Authorization"
    /// Written before the token unless told otherwise: `"Bearer "` (RFC 6750 section 2.1), also
    /// the prefix of the `bearer` plugin and the config's bearer `auth`.
    public static let defaultPrefix = "Bearer "
    /// At most 5 refreshes per 30 seconds unless told otherwise: enough for a token that
    /// expires now and then, few enough to stop a refresh loop.
    public static let defaultBudget: (maximum: Int, interval: Double) = (5, 30)
    /// The header that carries the credential (default `Authorization`).
    public let header: String
    /// Written before the token, e.g. `"Bearer "` (default); `""` for a raw API key header.
    public let prefix: String
    /// At most `maximum` refreshes per `interval` seconds.
    public let budget: (maximum: Int, interval: Double)
    private let provider: Provider

    private struct State {
        var token: String?
        var refreshing = false
        var waiters: [@Sendable (Verdict) -> Void] = []
        var failure: (token: String?, at: Double, message: String)?
        var refreshTimes: [Double] = []
        var refreshCount = 0
    }

    private let state: Lock<State>

    /// A credential starting with `token` (nil: unsigned until the first refresh).
    public init(token: String?, header: String = defaultHeader, prefix: String = defaultPrefix,
                budget: (maximum: Int, interval: Double) = defaultBudget, provider: @escaping Provider) {
        self.header = header
        self.prefix = prefix
        self.budget = budget
        self.provider = provider
        state = Lock(State(token: token))
    }

    /// A credential whose provider is an async function (run in a task, off the loop thread).
    public convenience init(token: String?, header: String = defaultHeader, prefix: String = defaultPrefix,
                            budget: (maximum: Int, interval: Double) = defaultBudget,
                            refresh: @escaping @Sendable (_ current: String?) async -> String?) {
        self.init(token: token, header: header, prefix: prefix, budget: budget) { current, done in
            Task { done(await refresh(current)) }
        }
    }

    /// The current token.
    public var token: String? { state.withLock { $0.token } }

    /// How many refreshes have been started.
    public var refreshCount: Int { state.withLock { $0.refreshCount } }

    /// The header that carries the token.
    public var secretNames: (headers: [String], queryParameters: [String]) { ([header], []) }

    public func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        guard !request.headers.contains(header), let token else { return }
        request.headers.set(header, prefix + token)
    }

    /// Decides what a call does after a 401 whose request carried `value` in the credential's
    /// header, sent at `sentAt` (``MonotonicClock`` seconds). `completion` runs exactly once,
    /// at once or when the refresh ends, on any thread.
    func unauthorized(signedWith value: String?, sentAt: Double, completion: @escaping @Sendable (Verdict) -> Void) {
        enum Next { case answer(Verdict), wait, refresh(String?) }
        let now = MonotonicClock.now()
        let next: Next = state.withLock { state in
            // No header at all: the credential had no token when the attempt was signed.
            if let value, !value.hasPrefix(prefix) {
                return .answer(.keep("the request carried its own \(header), not the credential's"))
            }
            let signed = value.map { String($0.dropFirst(prefix.count)) }
            if signed != state.token, state.token != nil { return .answer(.replay) }
            if let failure = state.failure, failure.token == state.token, sentAt <= failure.at {
                return .answer(.fail(failure.message))
            }
            if state.refreshing {
                state.waiters.append(completion)
                return .wait
            }
            state.refreshTimes.removeAll { now - $0 >= budget.interval }
            guard state.refreshTimes.count < budget.maximum else {
                return .answer(.keep("the refresh budget (\(budget.maximum) per \(budget.interval.formatted) s) is spent"))
            }
            state.refreshTimes.append(now)
            state.refreshCount += 1
            state.refreshing = true
            state.waiters = [completion]
            return .refresh(state.token)
        }
        switch next {
        case .answer(let verdict): completion(verdict)
        case .wait: break
        case .refresh(let current):
            let answered = Lock(false)
            provider(current) { [self] newToken in
                let first = answered.withLock { done -> Bool in
                    defer { done = true }
                    return !done
                }
                guard first else {
                    return Diagnostics.report("a refresh provider answered more than once (ignored)")
                }
                finishRefresh(newToken)
            }
        }
    }

    private func finishRefresh(_ newToken: String?) {
        let now = MonotonicClock.now()
        let (waiters, verdict) = state.withLock { state -> ([@Sendable (Verdict) -> Void], Verdict) in
            state.refreshing = false
            defer { state.waiters = [] }
            if let newToken {
                state.token = newToken
                state.failure = nil
                return (state.waiters, .replay)
            }
            let message = "the credential was refused (401) and could not be refreshed"
            state.failure = (state.token, now, message)
            return (state.waiters, .fail(message))
        }
        for waiter in waiters { waiter(verdict) }
    }
}
