/// Sends a request id (`X-Request-ID` by default) that is the same for every attempt of a
/// call and different between calls: `<prefix>-<call id>`, the prefix random per plugin
/// instance. A call that sets the header itself keeps its own. Config: `{"name": "requestId",
/// "header"?: "X-Request-ID"}`.
public struct RequestIDPlugin: Plugin {
    public let name = "requestId"
    /// The header name.
    public let header: String
    let prefix: String

    /// A plugin that sends ids in `header`.
    public init(header: String = "X-Request-ID") {
        self.header = header
        var generator = SeededGenerator()
        prefix = String(generator.next() & 0xFFFF_FFFF_FFFF, radix: 16)
    }

    /// The id of the call `callID`.
    public func requestID(callID: UInt64) -> String { "\(prefix)-\(callID)" }

    public func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        if !request.headers.contains(header) { request.headers.set(header, requestID(callID: context.callID)) }
    }
}
