/// A cluster node's answer that a key's slot is served elsewhere (Redis Cluster
/// specification, "Redirection and resharding"): `-MOVED <slot> <host>:<port>` (the slot has
/// moved for good: update the map) or `-ASK <slot> <host>:<port>` (the slot is being
/// migrated: send this one command to that node, after `ASKING`). Pure value.
package struct RedisRedirection: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        case moved
        case ask
    }

    package let kind: Kind
    package let slot: Int
    /// The node to ask, `host:port` (`[v6]:port` for IPv6).
    package let node: String

    package init(kind: Kind, slot: Int, node: String) {
        self.kind = kind
        self.slot = slot
        self.node = node
    }

    /// The redirection an error reply carries, or nil for any other reply.
    package init?(_ reply: RedisReply) {
        guard case let .error(text) = reply else { return nil }
        let words = text.split(separator: " ")
        guard words.count == 3, let slot = Int(words[1]), (0..<RedisHashSlot.count).contains(slot) else { return nil }
        switch words[0] {
        case "MOVED": kind = .moved
        case "ASK": kind = .ask
        default: return nil
        }
        self.slot = slot
        node = String(words[2])
    }
}
