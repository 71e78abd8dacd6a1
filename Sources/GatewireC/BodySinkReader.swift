import CGatewireABI
import Gatewire

/// A call's download fields (`gw_download_options`; version 4's `download_path`, `on_chunk`
/// and `download_max_bytes`) as its ``BodySink``: a file, or the consumer with its user
/// data, capped by the largest body.
enum BodySinkReader {
    /// The sink the fields ask for, or nil (none).
    /// - Throws: ``CallOptionsReader/Failure`` naming the fields: both a path and a consumer,
    ///   or a negative cap.
    static func sink(_ download: CallFields.DownloadFields) throws(CallOptionsReader.Failure) -> BodySink? {
        if download.path != nil, download.onChunk != nil {
            throw CallOptionsReader.Failure(status: GW_ERROR_INVALID_ARGUMENT,
                                            message: "\(download.pathName) and \(download.onChunkName): set at most one body sink")
        }
        guard download.maxBytes >= 0 else {
            throw CallOptionsReader.Failure(status: GW_ERROR_INVALID_ARGUMENT,
                                            message: "\(download.maxBytesName): \(download.maxBytes) is negative (0 = no limit)")
        }
        let cap = download.maxBytes > 0 ? Int(download.maxBytes) : nil
        if let path = download.path {
            return .file(String(cString: path), maxBytes: cap)
        }
        guard let consumer = download.onChunk else { return nil }
        let context = UInt(bitPattern: download.onChunkUserData)  // raw pointers are not Sendable
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
