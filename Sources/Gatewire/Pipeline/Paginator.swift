/// Walks a paged API lazily, one call per page, as its ``Pagination`` says (page numbers,
/// `Link: rel="next"` headers, or a next cursor in the body).
///
/// Swift code walks the pages with ``Client/pages(_:pagination:)`` (an `AsyncSequence`); a
/// paginator is its blocking form, for threads that cannot await (tools, the C ABI's
/// `gw_paginator_next`), as ``Client/sendAndWait(_:)`` is for one call. Each ``next()``
/// sends one call and returns its ``Response``, or nil once the walk has ended: after the
/// last page, after `maxPages` pages, or after a failed page (whose error the call that
/// fetched it threw). The calls are ordinary calls of the client: retries, plugins and
/// failure observers apply to each.
/// Safe to share between threads; pages are fetched one at a time, in order.
///
/// ```swift
/// for try await page in client.pages(Request(route: "channels")) {
///     print(page.mappingResult.all(at: "channels").count)
/// }
/// ```
public final class Paginator: Sendable {
    private struct State {
        var next: Request?
        var pages = 0
        var page: Int
    }

    private let client: Client
    /// How the pages are walked.
    public let pagination: Pagination
    private let state: Lock<State>

    /// A paginator for `request`, with `pagination` or, when nil, its route's.
    /// - Throws: ``GatewireError`` of kind `invalidArgument` when neither gives a pagination.
    @available(*, deprecated, renamed: "Client.paginator(_:pagination:)")
    public convenience init(client: Client, request: Request, pagination: Pagination? = nil) throws(GatewireError) {
        try self.init(walking: request, on: client, pagination: pagination)
    }

    /// A paginator for `request` on `client`, with `pagination` or, when nil, its route's.
    /// - Throws: ``GatewireError`` of kind `invalidArgument` when neither gives a pagination.
    package init(walking request: Request, on client: Client, pagination: Pagination?) throws(GatewireError) {
        if let name = request.route, client.config.routes[name] == nil {
            throw GatewireError(kind: .invalidArgument, message: client.config.unknownRouteMessage(name),
                                method: request.method, path: name)
        }
        guard let pagination = pagination ?? request.route.flatMap({ client.config.routes[$0]?.pagination }) else {
            throw GatewireError(kind: .invalidArgument,
                                message: request.route.map { "route \"\($0)\" has no pagination: configure routes.\($0).pagination" }
                                    ?? "only a route with a pagination can be paged (a path has none)",
                                method: request.method, path: request.route ?? request.path)
        }
        self.client = client
        self.pagination = pagination
        var first = request
        first.readsJSONBody = pagination.style != .link
        if pagination.style == .page {
            first.parameters[pagination.pageParameter] = String(pagination.firstPage)
            first.parameters[pagination.perPageParameter] = String(pagination.perPage)
        }
        state = Lock(State(next: first, page: pagination.firstPage))
    }

    /// The number of pages fetched so far (failed ones included).
    public var pageCount: Int { state.withLock { $0.pages } }

    /// Fetches the next page, blocking the calling thread; nil when the walk has ended.
    /// - Throws: the page's ``GatewireError`` (the walk then ends); a page or cursor page whose
    ///   body is declared JSON but is not valid JSON fails with kind `mapping`.
    public func next() throws(GatewireError) -> Response? {
        guard let request = take() else { return nil }
        do {
            let response = try client.sendAndWait(request)
            advance(after: response, request: request)
            return response
        } catch {
            state.withLock { $0.next = nil }
            throw error
        }
    }

    /// Fetches the next page asynchronously; nil when the walk has ended.
    @available(*, deprecated, message: "iterate Client.pages(_:pagination:)")
    public func nextPage() async throws(GatewireError) -> Response? { try await fetchNext() }

    /// Fetches the next page asynchronously (``Pages``' iterator); nil when the walk has ended.
    /// - Throws: the page's ``GatewireError`` (the walk then ends); a page or cursor page whose
    ///   body is declared JSON but is not valid JSON fails with kind `mapping`.
    package func fetchNext() async throws(GatewireError) -> Response? {
        guard let request = take() else { return nil }
        do {
            let response = try await client.send(request)
            advance(after: response, request: request)
            return response
        } catch {
            state.withLock { $0.next = nil }
            throw error
        }
    }

    /// The request of the next page, counted as fetched; nil when the walk has ended.
    private func take() -> Request? {
        state.withLock { state in
            guard let request = state.next, state.pages < pagination.maxPages else {
                state.next = nil
                return nil
            }
            state.next = nil
            state.pages += 1
            return request
        }
    }

    private func advance(after response: Response, request: Request) {
        let following = Self.following(after: response, request: request, pagination: pagination,
                                       page: state.withLock { $0.page }, baseURL: client.config.baseURL)
        state.withLock { state in
            state.next = following
            state.page += 1
        }
    }

    /// The request of the page after `response`, or nil at the end. A page, cursor, next-URL
    /// or keyset pagination reads the body the call parsed (``Request/readsJSONBody``).
    static func following(after response: Response, request: Request, pagination: Pagination, page: Int,
                          baseURL: String) -> Request? {
        switch pagination.style {
        case .page:
            guard let total = try? response.body.flatMap({ try pagination.totalKeyPath.value(in: $0.node) }),
                  let count = total.node.integer ?? total.node.string.flatMap({ Int64($0) }),
                  Int64(page - pagination.firstPage + 1) * Int64(pagination.perPage) < count
            else { return nil }
            var next = request
            next.parameters[pagination.pageParameter] = String(page + 1)
            return next
        case .cursor:
            guard let found = try? response.body.flatMap({ try pagination.cursorKeyPath.value(in: $0.node) }) else { return nil }
            let cursor: String
            switch found.node.kind {
            case .string: cursor = found.node.string ?? ""
            case .integer: cursor = String(found.node.integer ?? 0)
            default: return nil
            }
            guard !cursor.isEmpty, cursor != "0" else { return nil }
            var next = request
            next.parameters[pagination.parameter] = cursor
            return next
        case .link:
            let field = response.http.headers.values(for: "Link").joined(separator: ", ")
            guard let target = LinkHeader.target("next", in: field) else { return nil }
            return following(at: target, after: response, request: request, baseURL: baseURL)
        case .nextURL:
            guard let found = try? response.body.flatMap({ try pagination.urlKeyPath.value(in: $0.node) }),
                  let target = found.node.string, !target.isEmpty else { return nil }
            return following(at: target, after: response, request: request, baseURL: baseURL)
        case .keyset:
            guard let more = try? response.body.flatMap({ try pagination.hasMoreKeyPath.value(in: $0.node) }),
                  more.node.bool == true,
                  let items = try? response.body.flatMap({ try pagination.itemsKeyPath.value(in: $0.node) }),
                  let last = items.node.elements.last,
                  let id = try? pagination.idKeyPath.value(in: last) else { return nil }
            let key: String
            switch id.node.kind {
            case .string: key = id.node.string ?? ""
            case .integer: key = String(id.node.integer ?? 0)
            default: return nil
            }
            guard !key.isEmpty else { return nil }
            var next = request
            next.parameters[pagination.parameter] = key
            return next
        }
    }

    /// The request of the page at `target` (a URL or an absolute path), a GET of `response`'s
    /// method with the request's headers and options, or nil when it lies outside the base URL.
    private static func following(at target: String, after response: Response, request: Request,
                                  baseURL: String) -> Request? {
        guard let path = relativePath(target, baseURL: baseURL) else { return nil }
        var next = Request(response.method, path, headers: request.headers, options: request.options)
        next.route = nil
        next.readsJSONBody = request.readsJSONBody
        return next
    }

    /// `relativePath(_:baseURL:)` for tests.
    package static func relativePathForTesting(_ target: String, baseURL: String) -> String? {
        relativePath(target, baseURL: baseURL)
    }

    /// `target` relative to the base URL, with `:` written `%3A` so that the router does not
    /// read it as a parameter; nil when it lies elsewhere.
    static func relativePath(_ target: String, baseURL: String) -> String? {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        var rest: Substring
        if target.hasPrefix(base), target.count == base.count || ["/", "?"].contains(target.dropFirst(base.count).first) {
            rest = target.dropFirst(base.count)
        } else if target.hasPrefix("/"), let schemeEnd = base.firstRange(of: "://"),
                  !base[schemeEnd.upperBound...].contains("/") {
            rest = Substring(target)
        } else {
            return nil
        }
        if !rest.hasPrefix("/") { rest = "/" + rest }
        return String(rest).replacingAll(":", with: "%3A")
    }
}

/// The pages of a paged call as an `AsyncSequence` of ``Response`` (see ``Paginator``).
public struct Pages: AsyncSequence, Sendable {
    public typealias Element = Response
    let make: @Sendable () throws(GatewireError) -> Paginator

    /// Iterates the pages; the first page is fetched by the first `next()`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var paginator: Paginator?
        var failure: GatewireError?

        public mutating func next() async throws -> Response? {
            if let failure {
                self.failure = nil
                throw failure
            }
            return try await paginator?.fetchNext()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        do {
            return AsyncIterator(paginator: try make(), failure: nil)
        } catch {
            return AsyncIterator(paginator: nil, failure: error)
        }
    }
}

extension Client {
    /// The pages of `request` as an `AsyncSequence`, walked with `pagination` or its route's.
    public func pages(_ request: Request, pagination: Pagination? = nil) -> Pages {
        Pages { () throws(GatewireError) in try Paginator(walking: request, on: self, pagination: pagination) }
    }

    /// The blocking form of ``pages(_:pagination:)``: a ``Paginator`` whose ``Paginator/next()``
    /// waits for each page on the calling thread, for code that cannot await (as
    /// ``sendAndWait(_:)``). Not on the client's event-loop thread (``Paginator/next()`` fails there).
    /// - Throws: ``GatewireError`` of kind `invalidArgument` when no pagination is configured.
    public func paginator(_ request: Request, pagination: Pagination? = nil) throws(GatewireError) -> Paginator {
        try Paginator(walking: request, on: self, pagination: pagination)
    }
}
