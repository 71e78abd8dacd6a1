/// One Redis command as its arguments (argv), each sent as a bulk string: binary-safe, no
/// quoting, no format string (hiredis's `redisAsyncCommandArgv`). Pure value.
///
///     RedisCommand("SET", "counter", "1")
///     RedisCommand(["SET", "blob"].map { Array($0.utf8) } + [[0, 13, 10, 255]])
package struct RedisCommand: Hashable, Sendable {
    /// The command's name first, then its arguments.
    package var arguments: [[UInt8]]

    package init(_ arguments: [[UInt8]]) { self.arguments = arguments }

    /// A command whose arguments are text (sent as their UTF-8 bytes).
    package init(_ arguments: String...) { self.arguments = arguments.map { Array($0.utf8) } }
}
