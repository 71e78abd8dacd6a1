import Glibc

/// UTF-8 text the library hands to C (JSON, mostly): NUL-terminated, with its length in
/// bytes without the NUL, as the header's callbacks and `out_json` parameters take it.
enum CText {
    /// Calls `body` with `text` NUL-terminated (the pointer borrowed for the call only) and
    /// its length without the NUL.
    static func borrow<Result>(_ text: [UInt8], _ body: (UnsafePointer<CChar>, Int) -> Result) -> Result {
        (text + [0]).withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { body($0, bytes.count - 1) }
        }
    }

    /// `text` as a `malloc`ed C string the caller frees with `gw_string_free`; nil when out
    /// of memory.
    static func copy(_ text: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        borrow(text) { pointer, _ in strdup(pointer) }
    }
}
