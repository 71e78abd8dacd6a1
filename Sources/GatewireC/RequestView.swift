import Gatewire

/// The object behind a borrowed `gw_request *` in a plugin's `prepare`.
final class RequestView {
    var request: HTTPRequest
    let strings = CStringCache()
    /// Bumped when the URL changes, so `gw_request_url` hands out a fresh string.
    var urlVersion = 0

    init(_ request: HTTPRequest) { self.request = request }
}
