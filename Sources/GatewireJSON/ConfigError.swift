/// A mistake in a gateway config: where it is and why it is wrong.
///
/// `path` names the field in JSONPath-like form from the root, e.g.
/// `responseDescriptors[1].statusCodes` or `mappings.User.attributes.created_at.type`.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field, from the config's root (empty for the whole document).
    public let path: String
    /// Why the field is wrong, in words a user can act on.
    public let message: String

    /// An error about the field at `path` (empty for the whole document).
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
