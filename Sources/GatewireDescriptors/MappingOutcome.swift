import GatewireJSON
import GatewireMapping

/// What a response means, as decided by ``ResponseMapper/map(_:)``.
///
/// - Success: `accepted` and `error == nil`; `mapped` holds the objects (or nil when nothing
///   was to be mapped).
/// - HTTP failure: `!accepted` (every 4xx/5xx, and other statuses no descriptor lists);
///   `errorObjects` holds what error descriptors mapped.
/// - Mapping failure: `accepted` but `error != nil` (the call fails with kind `mapping`).
package struct MappingOutcome: Sendable {
    /// Whether the status is acceptable (any 2xx, or a 1xx/3xx a matching response descriptor lists).
    package var accepted: Bool
    /// A JSON object keyed by descriptor key path (`""` for the root key path), holding each
    /// key path's mapped object or array of objects, in descriptor registration order.
    /// nil when no descriptor matched or the body was not parsed; `{}` when descriptors
    /// matched but none found anything.
    package var mapped: JSONValue?
    /// On the failure path: a JSON array of the objects error descriptors mapped (an array at
    /// the key path gives one object per element). nil when none were found.
    package var errorObjects: JSONValue?
    /// The decoded path parameters of the descriptors that applied (`["id": "7"]`).
    package var pathParameters: [String: String]
    /// Why a body on the success path could not be parsed or mapped.
    package var error: MappingError?
    /// The body as JSON (see ``ResponseJSON``): the tree the descriptors were mapped from,
    /// or, on the success path with no matching descriptor, the body left to be parsed on
    /// first read. nil when there is neither.
    package var json: ResponseJSON?
    /// The parsed body, nil when there is none or it is not valid JSON; reading it parses a
    /// deferred body (see ``json``).
    package var body: JSONValue? { try? json?.value() }
    /// The response metadata (see ``MappingContext``), when descriptors matched a parsed body.
    package var metadata: JSONValue?

    /// An outcome; everything but `accepted` defaults to empty.
    package init(accepted: Bool, mapped: JSONValue? = nil, errorObjects: JSONValue? = nil,
                pathParameters: [String: String] = [:], error: MappingError? = nil) {
        self.accepted = accepted
        self.mapped = mapped
        self.errorObjects = errorObjects
        self.pathParameters = pathParameters
        self.error = error
    }

    /// The outcome with its trees released on `home`'s thread, whose arena built them (the
    /// pipeline passes the worker that mapped a large body).
    package func homed(_ home: any JSONTreeHome) -> MappingOutcome {
        var outcome = self
        outcome.mapped = mapped.map { JSONValue($0, home: home) }
        outcome.errorObjects = errorObjects.map { JSONValue($0, home: home) }
        outcome.json = json?.homed(home)
        outcome.metadata = metadata.map { JSONValue($0, home: home) }
        return outcome
    }
}
