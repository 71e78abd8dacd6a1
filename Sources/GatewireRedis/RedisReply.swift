import CHiredis

/// A Redis reply (RESP2, as hiredis 0.14 reads it), copied out of hiredis's reply object so
/// it outlives the callback that received it. Pure value.
package enum RedisReply: Hashable, Sendable {
    /// A simple string (`+OK`, `+PONG`).
    case status(String)
    /// An error reply (`-ERR ...`, `-NOSCRIPT ...`, `-MOVED 3999 127.0.0.1:7001`): the whole
    /// line, its first word the error's code. An answer, not a failure of the connection.
    case error(String)
    case integer(Int64)
    /// A bulk string, as bytes (binary-safe).
    case bulk([UInt8])
    case array([RedisReply])
    /// Redis's nil (a missing key's `GET`, a nil bulk string or array).
    case null

    /// Copies hiredis's `reply` (which hiredis frees after the callback).
    init(_ reply: UnsafePointer<redisReply>) {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STATUS: self = .status(Self.text(r))
        case REDIS_REPLY_ERROR: self = .error(Self.text(r))
        case REDIS_REPLY_INTEGER: self = .integer(Int64(r.integer))
        case REDIS_REPLY_STRING:
            self = .bulk(r.len == 0 ? [] : Array(UnsafeRawBufferPointer(start: r.str, count: Int(r.len))))
        case REDIS_REPLY_ARRAY:
            self = .array((0..<Int(r.elements)).map { RedisReply(UnsafePointer(r.element[$0]!)) })
        default: self = .null
        }
    }

    private static func text(_ r: redisReply) -> String {
        String(decoding: UnsafeRawBufferPointer(start: r.str, count: Int(r.len)), as: UTF8.self)
    }

    /// The text of a status or bulk reply (bulk bytes decoded as UTF-8), else nil.
    package var string: String? {
        switch self {
        case let .status(text): text
        case let .bulk(bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// The error reply's code, its first word (`NOSCRIPT`, `MOVED`, `WRONGPASS`), else nil.
    package var errorCode: Substring? {
        guard case let .error(text) = self else { return nil }
        return text.split(separator: " ", maxSplits: 1).first
    }
}
