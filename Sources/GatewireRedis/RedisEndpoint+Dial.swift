import CHiredis
import GatewireTransport
import Glibc

extension RedisEndpoint {
    /// Starts hiredis connecting to this endpoint (`redisAsyncConnect`, `redisAsyncConnectUnix`)
    /// and hands `made` the new context, connecting and without error, or why there is none.
    /// Loop thread only; `made` runs on it, at most once: at once for a Unix socket or a
    /// numeric address, after `getaddrinfo` on the loop's ``WorkerPool`` for a host name
    /// (hiredis 0.14 resolves with a blocking getaddrinfo inside `redisAsyncConnect`, which
    /// would stall the loop). After a resolution `stillWanted` is asked first, on the loop:
    /// false (the client was closed meanwhile) makes no context and skips `made`.
    /// The context is the caller's: it must free it (`redisAsyncFree`) or hand it to a ``RedisContext``.
    func dial(loop: EventLoop, stillWanted: @escaping () -> Bool,
              _ made: @escaping (Result<UnsafeMutablePointer<redisAsyncContext>, RedisError>) -> Void) {
        switch address {
        case let .unix(path):
            made(checked(redisAsyncConnectUnix(path)))
        case let .tcp(host, port):
            if Self.isNumeric(host) { return made(checked(redisAsyncConnect(host, Int32(port)))) }
            let waiting = Waiting(stillWanted: stillWanted, made: made)
            loop.offload { [self] _ in
                let resolved = Self.resolve(host)
                loop.execute { [self] in
                    guard waiting.stillWanted() else { return }
                    switch resolved {
                    case let .success(address): waiting.made(checked(redisAsyncConnect(address, Int32(port))))
                    case let .failure(error): waiting.made(.failure(error))
                    }
                }
            }
        }
    }

    /// The caller's closures while the name resolves: created and called on the loop thread
    /// only, carried through the worker pool untouched.
    private final class Waiting: @unchecked Sendable {
        let stillWanted: () -> Bool
        let made: (Result<UnsafeMutablePointer<redisAsyncContext>, RedisError>) -> Void

        init(stillWanted: @escaping () -> Bool,
             made: @escaping (Result<UnsafeMutablePointer<redisAsyncContext>, RedisError>) -> Void) {
            self.stillWanted = stillWanted
            self.made = made
        }
    }

    /// A context hiredis just made, or its error (hiredis fails at once when it cannot make
    /// the socket; the context is freed then).
    private func checked(_ made: UnsafeMutablePointer<redisAsyncContext>?) -> Result<UnsafeMutablePointer<redisAsyncContext>, RedisError> {
        guard let ac = made else {
            return .failure(RedisError(.disconnected, "hiredis could not make a context for \(self) (out of memory)"))
        }
        guard ac.pointee.err == 0 else {
            let message = ac.pointee.errstr.map { String(cString: $0) } ?? "error \(ac.pointee.err)"
            redisAsyncFree(ac)
            return .failure(RedisError(.disconnected, "cannot connect to \(self): \(message)"))
        }
        return .success(ac)
    }

    private static func isNumeric(_ host: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    /// The first address getaddrinfo gives for `host`, as text (blocking: worker pool only).
    private static func resolve(_ host: String) -> Result<String, RedisError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard rc == 0, let first = list, let address = first.pointee.ai_addr else {
            return .failure(RedisError(.disconnected, "cannot resolve \(host): " + String(cString: gai_strerror(rc))))
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = first.pointee.ai_family
        let raw = UnsafeRawPointer(address)
        let source = family == AF_INET6
            ? raw.advanced(by: MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!)
            : raw.advanced(by: MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!)
        guard inet_ntop(family, source, &text, socklen_t(text.count)) != nil else {
            return .failure(RedisError(.disconnected, "cannot resolve \(host): unreadable address"))
        }
        return .success(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
