import CCurl
import GatewireBase

/// The scratch memory of one transfer, kept by the event loop between transfers and lent to
/// each ``Transfer`` it starts: libcurl's error buffer (`CURLOPT_ERRORBUFFER`) and the header
/// fields of the response being received. Reused, so a transfer allocates neither.
///
/// Loop thread only, and used by one transfer at a time.
package final class HandleBuffers {
    /// libcurl's message for a failed transfer; empty (a NUL) until it writes one.
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    /// The last response's header fields so far, from libcurl's header callback.
    @exclusivity(unchecked) var headers = RawHeaderBlock.Builder()

    init() { errorBuffer[0] = 0 }

    deinit {
        errorBuffer.deallocate()
        headers.deallocate()
    }

    /// Empties both for the next transfer (keeping their memory).
    func clear() {
        errorBuffer[0] = 0
        headers.removeAll()
    }
}
