/// Why a Redis command got no reply: every command's completion gets either a
/// ``RedisReply`` (an error reply included: Redis answered) or one of these.
package struct RedisError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Kind: String, Hashable, Sendable {
        /// No reply within the command's timeout (its late reply, if any, is dropped).
        case timeout
        /// The connection is down (connecting failed, or it broke with the command in flight,
        /// or it waits to reconnect): the command was not sent, or its fate is unknown.
        case disconnected
        /// Too many commands wait already (``RedisConnectionOptions/maxPending``): refused
        /// without sending, so a stalled server cannot grow the client's memory.
        case overloaded
        /// The client was closed (or its event loop) before a reply came.
        case closed
        /// The command cannot be sent as given (no arguments, keys of several cluster slots).
        case invalidArgument
        /// A cluster kept redirecting the command (MOVED/ASK) past the bound.
        case redirections
        /// A reply of a shape the client does not expect (a `CLUSTER SLOTS` it cannot read).
        case unexpectedReply
    }

    package let kind: Kind
    /// What happened, with the server's address and hiredis's own message where there is one.
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { "redis \(kind.rawValue): \(message)" }
}

/// What a command's completion receives, exactly once, on the loop thread.
package typealias RedisCompletion = (Result<RedisReply, RedisError>) -> Void
