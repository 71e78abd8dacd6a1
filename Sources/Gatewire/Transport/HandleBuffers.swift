import CCurl

/// The scratch memory of one libcurl easy handle, kept with the handle while the event loop
/// pools it and lent to each ``Transfer`` the handle runs: libcurl's error buffer
/// (`CURLOPT_ERRORBUFFER`, set whenever the handle is set up in full) and the header fields
/// of the response being received. Reused, so a transfer allocates neither.
///
/// Loop thread only, and used by one transfer at a time (the one in flight on the handle).
final class HandleBuffers {
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
