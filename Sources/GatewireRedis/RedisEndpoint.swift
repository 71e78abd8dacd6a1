import GatewireBase

/// Where a Redis server listens and how a connection logs in: parsed from a URL,
///
/// - `redis://[user:password@]host[:port][/db]`: TCP; `host` a name, an IPv4 address or an
///   IPv6 address in brackets (`[::1]`); `port` 6379 when left out; `db` 0 when left out;
/// - `unix://[user:password@]/path/redis.sock[?db=N]`: a Unix domain socket,
///
/// or from a cluster node's `host:port` (``init(hostPort:field:)``). The user and password
/// are percent-decoded (RFC 3986 section 2.1, as redis-cli reads its `-u` URL); a password
/// alone (`redis://:secret@host`) logs in as Redis's `default` user (`AUTH password`), a user
/// and a password as that ACL user (`AUTH user password`, Redis 6 and later). Pure value.
package struct RedisEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// How the server is reached.
    package enum Address: Hashable, Sendable {
        /// A host name or a numeric address, and a TCP port (1...65535).
        case tcp(host: String, port: Int)
        /// The path of a Unix domain socket.
        case unix(path: String)
    }

    package var address: Address
    /// The ACL user of `AUTH user password`; nil with a password alone (Redis's `default` user).
    package var username: String?
    /// The password `AUTH` sends on every (re)connect; nil: no `AUTH`.
    package var password: String?
    /// The database `SELECT` picks on every (re)connect (0, Redis's default, sends none).
    package var database: Int

    package init(address: Address, username: String? = nil, password: String? = nil, database: Int = 0) {
        self.address = address
        self.username = username
        self.password = password
        self.database = database
    }

    /// Parses a `redis://` or `unix://` URL (the type's comment gives the forms).
    /// - Parameter field: the config field the text came from, named in errors (`"redis"`).
    /// - Throws: ``RedisEndpointError`` naming `field` and what is wrong: another scheme, no
    ///   host, a port or database that is not a number in range, a path that is not absolute.
    package init(parsing text: String, field: String) throws {
        func fail(_ message: String) -> RedisEndpointError { RedisEndpointError(field: field, message: message) }
        let schemes = ["redis://", "unix://"]
        guard let scheme = schemes.first(where: { text.lowercased().hasPrefix($0) }) else {
            throw fail("\"\(Self.redacted(text))\" is not a Redis URL: write redis://[user:password@]host:port[/db] "
                + "or unix:///path/redis.sock[?db=N]")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var username: String?
        var password: String?
        // The userinfo ends at the last "@" before the path (a password may hold an "@").
        let authorityEnd = scheme == "unix://" ? (rest.firstIndex(of: "/") ?? rest.endIndex)
            : (rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex)
        if let at = rest[..<authorityEnd].lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                let user = PercentDecoding.decode(String(userinfo[..<colon]))
                username = user.isEmpty ? nil : user
                password = PercentDecoding.decode(String(userinfo[userinfo.index(after: colon)...]))
            } else {
                // redis-cli reads a lone userinfo as the password.
                password = PercentDecoding.decode(String(userinfo))
            }
            if password?.isEmpty == true { throw fail("the password after \":\" is empty") }
        }
        if scheme == "unix://" {
            let (path, query) = Self.split(rest, at: "?")
            guard path.hasPrefix("/"), path.count > 1 else {
                throw fail("a unix:// URL needs an absolute socket path (unix:///path/redis.sock), not \"\(path)\"")
            }
            var database = 0
            if let query {
                for pair in query.split(separator: "&") {
                    let (name, value) = Self.split(pair, at: "=")
                    guard name == "db" else { throw fail("unknown parameter \"\(name)\" (only db=N)") }
                    database = try Self.database(value ?? "", fail)
                }
            }
            self.init(address: .unix(path: PercentDecoding.decode(String(path))), username: username,
                      password: password, database: database)
            return
        }
        let (authority, pathPart) = Self.split(rest, at: "/")
        guard !authority.contains("?") else { throw fail("a redis:// URL takes no query (the database is the path: /db)") }
        let (host, port) = try Self.hostPort(authority, defaultPort: 6379, fail)
        var database = 0
        if let pathPart, !pathPart.isEmpty { database = try Self.database(pathPart, fail) }
        self.init(address: .tcp(host: host, port: port), username: username, password: password, database: database)
    }

    /// A cluster node's address as `CLUSTER SLOTS` and the `redisCluster` list write it:
    /// `host:port` (`[v6]:port` for IPv6), with the login of `login` (a cluster has only
    /// database 0).
    /// - Throws: ``RedisEndpointError`` naming `field` when the port is missing or out of range.
    package init(hostPort text: String, login: RedisEndpoint? = nil, field: String) throws {
        let (host, port) = try Self.hostPort(Substring(text), defaultPort: nil) {
            RedisEndpointError(field: field, message: "\"\(text)\": \($0)")
        }
        self.init(address: .tcp(host: host, port: port), username: login?.username, password: login?.password)
    }

    /// The URL without the password (`redis://user:***@host:port/db`), for messages.
    package var description: String {
        var login = ""
        if password != nil { login = "\(username ?? ""):***@" } else if let username { login = "\(username)@" }
        switch address {
        case let .tcp(host, port):
            let shown = host.contains(":") ? "[\(host)]" : host
            return "redis://\(login)\(shown):\(port)" + (database == 0 ? "" : "/\(database)")
        case let .unix(path):
            return "unix://\(login)\(path)" + (database == 0 ? "" : "?db=\(database)")
        }
    }

    // MARK: Parsing

    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    private static func hostPort(_ text: Substring, defaultPort: Int?,
                                 _ fail: (String) -> RedisEndpointError) throws -> (String, Int) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw fail("an IPv6 address needs its closing \"]\"") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("\"\(after)\" after the IPv6 address is not \":port\"") }
                portText = after.dropFirst()
            }
        } else {
            (host, portText) = split(text, at: ":")
        }
        guard !host.isEmpty else { throw fail("no host (write host:port)") }
        guard let portText else {
            guard let defaultPort else { throw fail("no port (write host:port)") }
            return (String(host), defaultPort)
        }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw fail("the port \"\(portText)\" is not a number from 1 to 65535")
        }
        return (String(host), port)
    }

    private static func database(_ text: Substring, _ fail: (String) -> RedisEndpointError) throws -> Int {
        guard let database = Int(text), database >= 0, database <= Int(Int32.max) else {
            throw fail("the database \"\(text)\" is not a number from 0 up")
        }
        return database
    }

    /// `text` with the password of a URL-like userinfo hidden (for an error about the URL).
    private static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let colon = text.firstIndex(of: ":"), colon < at else { return text }
        var start = text.index(after: colon)
        while start < at, text[start] == "/" { start = text.index(after: start) }
        return String(text[..<start]) + "***" + String(text[at...])
    }
}

/// A Redis URL or node address that cannot be used: the config field it came from and what
/// is wrong with it (a password never appears).
package struct RedisEndpointError: Error, Equatable, CustomStringConvertible {
    /// The config field, e.g. `redis` or `redisCluster[1]`.
    package let field: String
    package let message: String

    package init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    package var description: String { "\(field): \(message)" }
}
