import Gatewire

/// The object behind a borrowed `gw_attempt *` in a retry test or a plugin's `did_receive`.
final class AttemptView {
    let number: Int
    let status: Int
    let errorKind: ErrorKind?
    let elapsed: Double
    let headers: HTTPHeaders
    let strings = CStringCache()

    init(number: Int, status: Int, errorKind: ErrorKind?, elapsed: Double, headers: HTTPHeaders) {
        self.number = number
        self.status = status
        self.errorKind = errorKind
        self.elapsed = elapsed
        self.headers = headers
    }

    /// Runs `body` with a borrowed handle to this view (valid only inside `body`).
    func withHandle<R>(_ body: (OpaquePointer) -> R) -> R {
        withExtendedLifetime(self) { body(OpaquePointer(Unmanaged.passUnretained(self).toOpaque())) }
    }
}
