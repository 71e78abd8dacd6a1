import CCurl
import Glibc

/// The event loop's own queue in front of libcurl: per origin (scheme, host and port) and in
/// total, libcurl gets only the transfers that can run now; the rest wait here, first in
/// first out per origin, and are handed over as transfers end, the origins taking turns
/// (round robin): a place freed under `maxConnections` goes to the next origin that waits,
/// so one origin's backlog cannot starve another's calls, and an origin held back by its
/// own limits (`maxConnectionsPerHost`, a connection still being opened) is passed over,
/// never holding up the others. Loop thread only.
///
/// Why not libcurl's queue (the multi handle's pending list): libcurl 7.88 walks that list
/// to unlink every finished transfer (`curl_multi_remove_handle`), so with 10,000 calls
/// waiting each completion costs time in proportion to the queue; and `CURLOPT_PIPEWAIT`
/// waits only for an origin's first connection: once the connections it has are full, each
/// transfer added opens a connection of its own (curl PR #10456, in 8.0.0). Here admitting a
/// call and releasing its place cost about 250 instructions (callgrind, bench/README.md), and
/// a wait one append and one pop.
///
/// What runs at once (``ConnectionLimits``; 0 is no limit):
/// - HTTP/1.1 (plain `http` without prior knowledge, h2c while libcurl cannot reuse it, an
///   `https` origin that answered in HTTP/1.1): one transfer per connection, so at most
///   `maxConnectionsPerHost` per origin.
/// - HTTP/2: `maxConcurrentStreams` per connection the origin has (libcurl 7.88 does not say
///   what the server announced, so the config's value is the bound; a server that allows
///   fewer makes libcurl open connections for the excess). When they are all full, one
///   transfer more, alone, opens the next connection (up to `maxConnectionsPerHost`); the
///   others wait until it has ended over HTTP/2, and then share that connection.
/// - Not known yet (`https`, h2c with prior knowledge): one transfer, whose response says
///   which of the two the origin speaks; when it fails without one, the next waiting one tries.
/// - In total, the connections in use (one per HTTP/1.1 transfer; per HTTP/2 origin, its
///   transfers over `maxConcurrentStreams`, rounded up, and the one opening a connection)
///   stay within `maxConnections`.
///
/// An HTTP/2 connection counts from the first transfer that opened it and ended with an
/// HTTP/2 response (libcurl's `CURLINFO_NUM_CONNECTS` and `CURLINFO_LOCAL_PORT`) until libcurl
/// closes its socket (`CURLOPT_CLOSESOCKETFUNCTION`), so a connection the server closed is
/// no longer counted.
///
/// Its state is not checked for exclusive access at run time (`@exclusivity(unchecked)`, as
/// ``EventLoop``'s): one thread touches it, and the checks cost more than the admission.
final class AdmissionQueue {
    /// What an origin speaks, as far as the queue knows.
    enum Speaks {
        case unknown, http1, http2
    }

    /// One origin's counters and its waiting transfers.
    final class Origin {
        /// `scheme://host[:port]`, as the URLs spell it.
        let key: [UInt8]
        @exclusivity(unchecked) fileprivate(set) var kind: Speaks
        /// Transfers handed to libcurl and not ended.
        @exclusivity(unchecked) fileprivate(set) var inFlight = 0
        /// The transfer admitted alone to learn the protocol or open a connection, while in flight.
        @exclusivity(unchecked) fileprivate var probe: Transfer?
        /// The local ports of the origin's HTTP/2 connections (see the type's comment).
        @exclusivity(unchecked) fileprivate var ports: Set<Int32> = []
        /// The transfers waiting (those cancelled meanwhile are skipped when reached).
        @exclusivity(unchecked) fileprivate var waiting = FIFO<Transfer>()
        /// The connections counted against `maxConnections` (see `held(_:inFlight:probing:)`).
        @exclusivity(unchecked) fileprivate var held = 0
        /// Whether it is in ``AdmissionQueue/backlogged``.
        @exclusivity(unchecked) fileprivate var listed = false
        fileprivate unowned let queue: AdmissionQueue

        fileprivate init(key: [UInt8], kind: Speaks, queue: AdmissionQueue) {
            self.key = key
            self.kind = kind
            self.queue = queue
        }
    }

    private let perHost: Int
    private let total: Int
    private let streams: Int
    /// Every origin seen, kept for the loop's life (a client talks to a few).
    @exclusivity(unchecked) private var origins: [[UInt8]: Origin] = [:]
    /// The origin of the last transfer started: most clients talk to one, found with a byte compare.
    @exclusivity(unchecked) private var last: Origin?
    /// The connections in use, summed over the origins.
    @exclusivity(unchecked) private var heldTotal = 0
    /// The transfers waiting (not yet handed over, not cancelled), and their ids.
    @exclusivity(unchecked) private var queued: Set<ObjectIdentifier> = []
    /// The origins with transfers waiting, in the order of their turns: one that had a
    /// transfer handed over goes to the end (see ``next()``).
    @exclusivity(unchecked) private var backlogged: [Origin] = []
    /// Ports whose sockets libcurl closed since the last ``endRound()``: a transfer that
    /// ended in the same round on such a connection does not count it as open.
    @exclusivity(unchecked) private var closedThisRound: [(origin: Origin, port: Int32)] = []

    /// A queue that keeps `limits`.
    init(limits: ConnectionLimits) {
        perHost = limits.maxConnectionsPerHost
        total = limits.maxConnections
        streams = limits.maxConcurrentStreams
    }

    /// How many transfers wait.
    var backlog: Int { queued.count }

    /// The origin of `transfer`'s URL, made on its first transfer: `https` may speak HTTP/2;
    /// `http` too with prior knowledge, where libcurl can reuse such a connection
    /// (``PriorKnowledgeReuse``), else it is HTTP/1.1.
    func origin(of transfer: Transfer) -> Origin {
        var url = transfer.request.url
        return url.withUTF8 { bytes in
            // The last origin's key, then the end of the origin: no scan.
            if let last, bytes.count >= last.key.count,
               bytes.count == last.key.count || Self.endsOrigin(bytes[last.key.count]),
               last.key.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) == 0 }) {
                return last
            }
            let end = Self.originEnd(bytes)
            let key = Array(bytes[..<end])
            let found = origins[key] ?? {
                let cleartext = end >= 5 && key[4] == UInt8(ascii: ":")  // "http:" (the scheme in any case)
                let mayMultiplex = !cleartext || (transfer.options.http2PriorKnowledge && PriorKnowledgeReuse.works)
                let made = Origin(key: key, kind: mayMultiplex ? .unknown : .http1, queue: self)
                origins[key] = made
                return made
            }()
            last = found
            return found
        }
    }

    /// Where the origin ends in `url`: the first `/`, `?` or `#` after `://`, or its end.
    private static func originEnd(_ url: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        while index + 2 < url.count, !(url[index] == UInt8(ascii: ":") && url[index + 1] == UInt8(ascii: "/")
                                        && url[index + 2] == UInt8(ascii: "/")) {
            index += 1
        }
        index += 3
        while index < url.count, !endsOrigin(url[index]) { index += 1 }
        return min(index, url.count)
    }

    /// Whether `byte` ends a URL's origin (`/`, `?` or `#`).
    private static func endsOrigin(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// Whether `origin` may hand a transfer over now; marks it admitted (in flight) if so.
    /// A transfer that arrives while others wait waits behind them.
    func admit(_ transfer: Transfer, to origin: Origin) -> Bool {
        guard origin.waiting.isEmpty, mayRun(origin) else { return false }
        admitted(transfer, origin)
        return true
    }

    /// Puts `transfer` at the end of `origin`'s queue.
    func enqueue(_ transfer: Transfer, in origin: Origin) {
        origin.waiting.push(transfer)
        queued.insert(ObjectIdentifier(transfer))
        if !origin.listed {
            origin.listed = true
            backlogged.append(origin)
        }
    }

    /// Takes `transfer` out of the queue; false when it is not waiting (in flight, or ended).
    func cancel(_ transfer: Transfer) -> Bool {
        queued.remove(ObjectIdentifier(transfer)) != nil
    }

    /// The transfers still waiting, oldest first per origin (for the timeout sweep).
    func forEachWaiting(_ body: (Transfer) -> Void) {
        for origin in backlogged {
            origin.waiting.forEach { transfer in
                if queued.contains(ObjectIdentifier(transfer)) { body(transfer) }
            }
        }
    }

    /// Empties the queue; returns the transfers that were waiting (the loop is closing).
    func removeAllWaiting() -> [Transfer] {
        var waiting: [Transfer] = []
        forEachWaiting { waiting.append($0) }
        for origin in backlogged {
            _ = origin.waiting.removeAll()
            origin.listed = false
        }
        backlogged.removeAll()
        queued.removeAll()
        return waiting
    }

    /// The next waiting transfer that may run now, marked admitted, with its origin; nil when
    /// none may. Origins take turns: the first in ``backlogged`` that may run gives its oldest
    /// transfer and goes to the end of the list, behind every other origin that waits. So
    /// one origin's burst delays another origin's call by a turn, not by the burst (OkHttp's
    /// Dispatcher hands a freed place to the oldest call of any host; aiohttp's
    /// `BaseConnector._release_waiter` to a host picked at random).
    func next() -> (Transfer, Origin)? {
        var index = 0
        while index < backlogged.count {
            let origin = backlogged[index]
            while mayRun(origin), let transfer = origin.waiting.pop() {
                guard queued.remove(ObjectIdentifier(transfer)) != nil else { continue }  // cancelled
                admitted(transfer, origin)
                if origin.waiting.isEmpty {
                    unlist(at: index)
                } else if backlogged.count > 1 {
                    backlogged.remove(at: index)
                    backlogged.append(origin)
                }
                return (transfer, origin)
            }
            if origin.waiting.isEmpty {
                unlist(at: index)
            } else {
                index += 1
            }
        }
        return nil
    }

    private func unlist(at index: Int) {
        backlogged[index].listed = false
        backlogged.remove(at: index)
    }

    /// Whether one more transfer of `origin` may run (see the type's comment).
    private func mayRun(_ origin: Origin) -> Bool {
        let opens = opensConnection(origin)
        switch origin.kind {
        case .http1:
            guard perHost == 0 || origin.inFlight < perHost else { return false }
        case .unknown:
            guard origin.probe == nil else { return false }
        case .http2:
            guard !opens || (origin.probe == nil && (perHost == 0 || origin.ports.count < perHost)) else { return false }
        }
        guard total > 0 else { return true }
        let wouldHold = held(origin.kind, inFlight: origin.inFlight + 1, probing: origin.probe != nil || opens)
        return heldTotal - origin.held + wouldHold <= total
    }

    /// Whether the next transfer of `origin` would be admitted alone, to open a connection:
    /// the protocol is not known yet, or every HTTP/2 connection it has is full.
    private func opensConnection(_ origin: Origin) -> Bool {
        switch origin.kind {
        case .http1: false
        case .unknown: true
        case .http2: origin.inFlight - (origin.probe == nil ? 0 : 1) >= origin.ports.count * streams
        }
    }

    private func admitted(_ transfer: Transfer, _ origin: Origin) {
        if opensConnection(origin) { origin.probe = transfer }
        origin.inFlight += 1
        updateHeld(origin)
    }

    /// The connections `origin` uses with `inFlight` transfers, `probing` one of them alone.
    private func held(_ kind: Speaks, inFlight: Int, probing: Bool) -> Int {
        switch kind {
        case .http1, .unknown: return inFlight
        case .http2:
            let shared = inFlight - (probing ? 1 : 0)
            return (shared + streams - 1) / streams + (probing ? 1 : 0)
        }
    }

    private func updateHeld(_ origin: Origin) {
        let now = held(origin.kind, inFlight: origin.inFlight, probing: origin.probe != nil)
        heldTotal += now - origin.held
        origin.held = now
    }

    /// `transfer` of `origin` ended; `easy` (nil when it was aborted) says, for an origin that
    /// may speak HTTP/2, in what protocol it was answered and on which connection.
    func finished(_ transfer: Transfer, _ origin: Origin, easy: UnsafeMutableRawPointer?, code: CURLcode) {
        origin.inFlight -= 1
        if origin.probe === transfer { origin.probe = nil }
        if origin.kind != .http1, let easy, code == CURLE_OK { learn(origin, easy) }
        updateHeld(origin)
    }

    /// Reads the protocol of `easy`'s response, and the connection it opened, if any.
    private func learn(_ origin: Origin, _ easy: UnsafeMutableRawPointer) {
        var version = 0
        _ = gw_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        guard version == CURL_HTTP_VERSION_2_0 else {
            if origin.kind == .unknown, version != 0 { origin.kind = .http1 }
            return
        }
        origin.kind = .http2
        var connects = 0
        _ = gw_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        guard connects > 0 else { return }
        var port = 0
        guard gw_easy_getinfo_long(easy, CURLINFO_LOCAL_PORT, &port) == CURLE_OK, port > 0 else { return }
        let local = Int32(port)
        guard !closedThisRound.contains(where: { $0.origin === origin && $0.port == local }) else { return }
        origin.ports.insert(local)
    }

    /// Forgets the sockets closed in the round that ended (see ``closedThisRound``).
    func endRound() {
        if !closedThisRound.isEmpty { closedThisRound.removeAll(keepingCapacity: true) }
    }

    /// Sets, on a transfer's handle, the socket close callback that keeps `origin`'s
    /// connection count (only for an origin that may speak HTTP/2). libcurl copies it into the
    /// connection the transfer opens, which may outlive the transfer: the origin lives as long
    /// as the queue, which the loop keeps until after `curl_multi_cleanup`.
    func watchConnections(of origin: Origin, _ easy: UnsafeMutableRawPointer) -> CURLcode {
        guard origin.kind != .http1 else { return CURLE_OK }
        let context = Unmanaged.passUnretained(origin).toOpaque()
        let code = gw_easy_setopt_ptr(easy, CURLOPT_CLOSESOCKETDATA, context)
        guard code == CURLE_OK else { return code }
        return gw_easy_setopt_closesocketcb(easy) { context, socket in
            let origin = Unmanaged<Origin>.fromOpaque(context!).takeUnretainedValue()
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            if named == 0 { origin.queue.closed(origin, port: AdmissionQueue.port(of: address)) }
            return close(socket)
        }
    }

    /// libcurl closed `origin`'s socket on local `port` (a connection, or an attempt at one).
    private func closed(_ origin: Origin, port: Int32) {
        guard port > 0 else { return }
        origin.ports.remove(port)
        closedThisRound.append((origin, port))
    }

    /// The port of an IPv4 or IPv6 socket address, in host order; 0 for another family.
    private static func port(of address: sockaddr_storage) -> Int32 {
        var address = address
        return withUnsafePointer(to: &address) { pointer in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET: pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int32(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6: pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int32(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default: 0
            }
        }
    }
}
