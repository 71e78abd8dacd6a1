import CGatewireABI
import Glibc

/// The library's version, from `include/gatewire.h` (`GW_VERSION_STRING`, which the
/// repository's `VERSION` file feeds; the `version_agrees` test checks every copy).
public enum Version {
    /// "MAJOR.MINOR.PATCH", e.g. "0.1.0".
    public static let string: String = GW_VERSION_STRING

    /// The same text as a NUL-terminated C string that lives as long as the process (for
    /// `gw_version`): copied once, never freed. Held as an address because a pointer is not
    /// `Sendable`.
    public static var cString: UnsafePointer<CChar> {
        UnsafePointer(bitPattern: cStringAddress)!
    }
    private static let cStringAddress = UInt(bitPattern: strdup(string))
}
