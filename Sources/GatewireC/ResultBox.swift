import Gatewire

/// The object behind a `gw_result *`: a call's outcome plus the C strings handed out for it.
final class ResultBox: @unchecked Sendable {
    let result: Result<Response, GatewireError>
    let strings = CStringCache()

    init(_ result: Result<Response, GatewireError>) { self.result = result }

    var response: Response? { try? result.get() }

    var error: GatewireError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    /// The final HTTP response, on success or failure.
    var http: HTTPResponse? { response?.http ?? error?.response }

    var attempts: [Attempt] { response?.attempts ?? error?.attempts ?? [] }
}
