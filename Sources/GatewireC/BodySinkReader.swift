import CGatewireABI
import Gatewire

/// `gw_call_options`' version 4 fields as the call's ``BodySink``: `download_path`, or
/// `on_chunk` with its user data, capped by `download_max_bytes`.
enum BodySinkReader {
    /// The sink the options ask for, or nil (none, or a version before 4).
    /// - Throws: ``CallOptionsReader/Failure`` naming the fields: both a path and a consumer,
    ///   or a negative cap.
    static func sink(_ options: gw_call_options) throws(CallOptionsReader.Failure) -> BodySink? {
        guard options.version >= 4 else { return nil }
        if options.download_path != nil, options.on_chunk != nil {
            throw CallOptionsReader.Failure(status: GW_ERROR_INVALID_ARGUMENT,
                                            message: "download_path and on_chunk: set at most one body sink")
        }
        guard options.download_max_bytes >= 0 else {
            throw CallOptionsReader.Failure(status: GW_ERROR_INVALID_ARGUMENT,
                                            message: "download_max_bytes: \(options.download_max_bytes) is negative (0 = no limit)")
        }
        let cap = options.download_max_bytes > 0 ? Int(options.download_max_bytes) : nil
        if let path = options.download_path {
            return .file(String(cString: path), maxBytes: cap)
        }
        guard let consumer = options.on_chunk else { return nil }
        let context = UInt(bitPattern: options.on_chunk_user_data)  // raw pointers are not Sendable
        return .chunks(maxBytes: cap) { bytes in
            let answer = consumer(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                                  UnsafeMutableRawPointer(bitPattern: context))
            switch answer {
            case GW_CHUNK_CONTINUE: return .proceed
            case GW_CHUNK_PAUSE: return .pause
            default: return .stop
            }
        }
    }
}
