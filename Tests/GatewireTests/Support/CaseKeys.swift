import Gatewire

/// The shared case files' runners read only the keys they know; a misspelt key would check
/// nothing, so each runner names every other key before running a case, as
/// `case "NAME": unknown key "PATH"` (PATH dotted from the case, e.g. `expect.stauts`), the
/// same text as the C and Python runners.
enum CaseKeys {
    /// The keys of `node` (none when it is absent or not an object) missing from `known`,
    /// each as a problem of case `name` at `prefix` + key, in the file's order.
    static func unknown(in node: JSONNode?, known: Set<String>, case name: String, prefix: String = "") -> [String] {
        guard let node, node.kind == .object else { return [] }
        return node.members.filter { !known.contains($0.key) }.map { "case \"\(name)\": unknown key \"\(prefix)\($0.key)\"" }
    }
}
