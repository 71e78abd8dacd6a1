/// A Lua script run with `EVALSHA` by its SHA-1 (``RedisConnection/evalsha(_:keys:arguments:timeout:_:)``),
/// loaded with `SCRIPT LOAD` where the server does not have it yet. Pure value; make it
/// once per script (its SHA-1 is computed here).
package struct RedisScript: Hashable, Sendable {
    /// The Lua source, as Redis receives it.
    package let source: [UInt8]
    /// The SHA-1 of `source`, 40 lower-case hex digits: the name `EVALSHA` calls it by, the
    /// one `SCRIPT LOAD` answers.
    package let sha1: String

    package init(_ source: String) {
        self.source = Array(source.utf8)
        sha1 = SHA1.hex(self.source)
    }
}
