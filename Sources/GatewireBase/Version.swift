import Glibc

/// The library's version, as the repository's `VERSION` file gives it.
///
/// Written here as a literal so that the lowest layer needs no C header: the
/// `version_agrees` test (Tests/tools/check_version.py) fails when this literal, the header's
/// `GW_VERSION_*` macros, `gw_version()` of the built library or the CLI's `--version` differ
/// from `VERSION`.
public enum Version {
    /// "MAJOR.MINOR.PATCH", e.g. "0.1.0".
    public static let string: String = "0.1.0"

    /// The same text as a NUL-terminated C string that lives as long as the process (for
    /// `gw_version`): copied once, never freed. Held as an address because a pointer is not
    /// `Sendable`.
    public static var cString: UnsafePointer<CChar> {
        UnsafePointer(bitPattern: cStringAddress)!
    }
    private static let cStringAddress = UInt(bitPattern: strdup(string))
}
