import GatewireBase
import GatewireTransport

/// One OTLP/HTTP export request (the OTLP specification's `POST /v1/traces` or `/v1/metrics`
/// with a JSON body), the same for spans and metrics: bounded in time and in the reply read,
/// and accepted on any 2xx (a collector that refuses, hangs or is absent costs only this
/// transfer).
enum OTLPPost {
    /// Seconds one export may take, connecting included (`OTEL_EXPORTER_OTLP_TIMEOUT`'s 10 s).
    static let timeout = 10.0

    /// The transfer that POSTs `body` to `url`; `completion` hears whether the collector
    /// accepted it (a 2xx), on the loop thread. The caller starts it on its loop.
    static func transfer(url: String, body: [UInt8], completion: @escaping (_ accepted: Bool) -> Void) -> Transfer {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json")
        let request = HTTPRequest(method: .post, url: url, headers: headers, body: body)
        var options = TransferOptions()
        options.connectTimeout = timeout
        options.timeout = timeout
        options.maxResponseBytes = 1 << 20
        return Transfer(request: request, options: options) { result in
            completion(result.response.map { (200..<300).contains($0.status) } ?? false)
        }
    }
}
