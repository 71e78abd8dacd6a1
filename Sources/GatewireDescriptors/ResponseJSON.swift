import GatewireBase
import GatewireJSON

/// A response body read as JSON: either the tree the ``ResponseMapper`` parsed for its
/// descriptors, or, when no descriptor needed the body, its bytes, parsed on the first read.
///
/// Why deferred: a call whose response no descriptor maps has nothing to map, so it never
/// fails with a mapping error (see ``ResponseMapper``, rule 4), and most callers of such
/// routes read the raw bytes (the C ABI's `gw_result_body`, Python's `Result.body`).
/// Parsing them anyway cost about 47,000 instructions (~4 us) per call for a 224-byte
/// object (the bench's workload (a)) and was the largest part of what Gatewire added
/// over raw libcurl. So the rules that pick a JSON body (rules 2 and 3: not HEAD, 204, 205,
/// 304 or a blank body; an `application/json` or `+json` content type) run on the first
/// read, and the parse with them.
///
/// Thread safety: any thread may read; the first read parses (inside a `JSONArena` scope
/// for a large body) and publishes its result with `OnceReference` (racing first readers
/// may each parse; one result is kept). The result is then shared by every copy of the
/// ``Response``.
package final class ResponseJSON: Sendable {
    /// What a read of a deferred body finds: the tree, nil when the body is not JSON (see
    /// above), or the parse error with its line and column.
    private final class Parsed: Sendable {
        let result: Result<JSONValue?, JSONParseError>
        init(_ result: Result<JSONValue?, JSONParseError>) { self.result = result }
    }

    private enum Source: Sendable {
        case parsed(JSONValue)
        case deferred(MappableResponse)
    }

    private let source: Source
    private let deferredResult = OnceReference<Parsed>()

    /// The tree the mapper parsed.
    init(parsed tree: JSONValue) {
        source = .parsed(tree)
    }

    /// A response no descriptor mapped: its body is read as JSON on the first ``value()``.
    init(deferred response: MappableResponse) {
        source = .deferred(response)
    }

    /// The body as JSON; nil when it is not JSON by rules 2 and 3 of ``ResponseMapper``
    /// (HEAD, 204, 205, 304, a blank body, or a content type other than `application/json`
    /// and `+json`). The first call on a deferred body parses it (Jansson: a few
    /// microseconds for a few hundred bytes, ~2 ms for 137 KB); later calls return the same
    /// tree.
    /// - Throws: ``JSONParseError`` (Jansson's message, line, column and byte offset) when
    ///   the body is declared JSON but is not valid JSON.
    package func value() throws(JSONParseError) -> JSONValue? {
        switch source {
        case .parsed(let tree): return tree
        case .deferred(let response): return try deferredResult.get { Parsed(Self.parse(response)) }.result.get()
        }
    }

    private static func parse(_ response: MappableResponse) -> Result<JSONValue?, JSONParseError> {
        guard !ResponseMapper.hasNoBody(response), ResponseMapper.isJSON(response.contentType) else { return .success(nil) }
        return JSONArena.scope(bodyBytes: response.body.count) { ResponseMapper.parseBody(response).map(Optional.some) }
    }

    /// This body with a parsed tree released on `home`'s thread, whose arena built it.
    package func homed(_ home: any JSONTreeHome) -> ResponseJSON {
        guard case .parsed(let tree) = source else { return self }
        return ResponseJSON(parsed: JSONValue(tree, home: home))
    }
}
