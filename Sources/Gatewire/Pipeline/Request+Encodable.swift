extension Request.Body {
    /// A JSON body of any `Encodable` value: `.json(["name": "Ann"])`, `.json(account)`.
    ///
    /// The value is encoded by `JSONNodeEncoder` when the call is prepared (on the client's
    /// event-loop thread, once per call; see that type for integers, optionals and dates).
    /// An encoding error fails the call with kind `invalidArgument`, before anything is sent.
    /// A ``JSONValue`` argument picks the `json` case itself and is sent as it is.
    public static func json<Value: Encodable & Sendable>(_ value: Value) -> Request.Body { .encodable(value) }

    /// An `Encodable` object of the configured type `type` (nil: the route's `objectType`),
    /// encoded by `JSONNodeEncoder` and then turned into the body by that type's request
    /// descriptor (attribute mapping and `rootKeyPath`) as for a ``JSONValue`` object. Its
    /// top-level string, number and boolean properties fill the path's `:name` segments.
    /// An encoding error fails the call with kind `invalidArgument`.
    public static func object<Value: Encodable & Sendable>(_ value: Value, type: String? = nil) -> Request.Body {
        .encodableObject(value, type: type)
    }
}

extension Request.Body {
    /// The object type an object body names (nil: none, or the route's).
    var objectType: String? {
        switch self {
        case .object(_, let type), .encodableObject(_, let type): type
        default: nil
        }
    }

    /// The tree of an `Encodable` body (`JSONNodeEncoder`).
    /// - Throws: a message for the call's `invalidArgument` failure: where in the value
    ///   (its coding path, `items[2].price`) and why.
    static func tree(of value: any Encodable) throws(EncodingFailure) -> JSONValue {
        do {
            return try JSONNodeEncoder().encode(value)
        } catch let EncodingError.invalidValue(_, context) {
            let path = context.codingPath.reduce("") { path, key in
                key.intValue.map { "\(path)[\($0)]" } ?? (path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)")
            }
            throw EncodingFailure(message: "the body could not be encoded"
                + (path.isEmpty ? "" : " at \(path)") + ": \(context.debugDescription)")
        } catch {
            throw EncodingFailure(message: "the body could not be encoded: \(error)")
        }
    }

    /// Why an `Encodable` body could not be encoded.
    struct EncodingFailure: Error {
        let message: String
    }
}
