/// What the breaker script publishes when it makes a transition (``BreakerScript``), so that
/// every client of the fleet learns it at once, by push, instead of from the reply to its own
/// next batch, which costs it one more failing call (docs/fleet.md). Pure value.
///
/// - Channel: `<keyPrefix>breakers:<database>`, one per fleet. Pub/sub has no databases
///   ("Pub/Sub has no relation to the key space", Redis's documentation), so the channel
///   names the one the keys live in: fleets that use one prefix in two databases of one
///   server stay apart. A channel is not a key: nothing is stored, nothing expires.
/// - Payload, text fields separated by one space (the state key last, as it is):
///   - `open <ms> <state key>`: the breaker of that state key opened (closed to open, or half-open
///     to open after a failed trial) for `<ms>` more milliseconds, as Redis's clock measured it
///     when the script ran. A receiver counts them from receipt on its own monotonic clock:
///     a duration, never a time, as every reply (docs/fleet.md's clock rule).
///   - `closed <state key>`: the breaker's trial succeeded; it is closed with an empty window.
enum BreakerNews: Equatable {
    /// Open for `left` more seconds from receipt.
    case opened(stateKey: String, left: Double)
    case closed(stateKey: String)

    /// The breaker's state key (``SharedCircuitBreaker/stateKey``).
    var stateKey: String {
        switch self {
        case let .opened(key, _), let .closed(key): key
        }
    }

    /// Reads a payload; nil for any other text (a newer publisher's verbs are ignored).
    init?(_ payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        let fields = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard fields.count == 2 else { return nil }
        switch fields[0] {
        case "open":
            let rest = fields[1].split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard rest.count == 2, !rest[1].isEmpty, let ms = Int(rest[0]), ms >= 0 else { return nil }
            self = .opened(stateKey: String(rest[1]), left: Double(ms) / 1000)
        case "closed":
            guard !fields[1].isEmpty else { return nil }
            self = .closed(stateKey: String(fields[1]))
        default:
            return nil
        }
    }

    /// The fleet's channel for `settings` (a cluster's keys are in database 0).
    static func channel(_ settings: SharedStateSettings) -> [UInt8] {
        let database: Int
        switch settings.server {
        case let .single(endpoint): database = endpoint.database
        case .cluster: database = 0
        }
        return Array((settings.keyPrefix + "breakers:\(database)").utf8)
    }
}
