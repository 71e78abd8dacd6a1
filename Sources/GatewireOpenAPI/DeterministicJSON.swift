import CJansson
import GatewireJSON

/// The one way the importer writes JSON: Jansson's dump with every object's keys sorted
/// (`JSON_SORT_KEYS`, by bytes), two spaces of indentation (or compact), integers exactly and
/// reals with 17 significant digits, so that the same tree gives the same bytes on every run
/// and a config diffs well under version control.
enum DeterministicJSON {
    /// `value` as text; indented by two spaces and ended by a newline, or compact on one line.
    static func text(_ value: JSONValue, indented: Bool) -> String {
        let flags = gw_json_dump_flags(indented ? 2 : 0, 17) | Int(JSON_SORT_KEYS)
        let text = value.pointer.serialized(flags: flags)
        return indented ? text + "\n" : text
    }
}
