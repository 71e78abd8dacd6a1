import CCurl
import GatewireBase
import Glibc

/// A libcurl header list (`CURLOPT_HTTPHEADER`) built as one allocation: the `curl_slist`
/// nodes first, then each line NUL-terminated, each node pointing at its line. libcurl only
/// reads the list it is given (it never frees or changes it), so one block serves as well as
/// `curl_slist_append`'s list, which costs two allocations per line (a node and a copy of
/// the line) and a walk to the list's end on each append. Freed whole with ``free(_:)``,
/// never with `curl_slist_free_all`.
package enum HeaderBlock {
    /// The list of `fields` (`name: value`, or `name;` for an empty value: libcurl's way to
    /// send one), then `first` and `second` as given (whole lines, e.g. `Expect:`), or nil
    /// when there is no line. The caller owns it (``free(_:)``). The fields were checked:
    /// no NUL, CR or LF.
    package static func make(_ fields: HTTPHeaders, _ first: String?, _ second: String?) -> UnsafeMutablePointer<curl_slist>? {
        var lines = 0, bytes = 0
        for field in fields {
            lines += 1
            bytes += lineLength(field) + 1
        }
        if let first {
            lines += 1
            bytes += first.utf8.count + 1
        }
        if let second {
            lines += 1
            bytes += second.utf8.count + 1
        }
        guard lines > 0 else { return nil }
        let nodesSize = lines * MemoryLayout<curl_slist>.stride
        guard let raw = malloc(nodesSize + bytes) else { return nil }
        let nodes = raw.bindMemory(to: curl_slist.self, capacity: lines)
        var text = (raw + nodesSize).bindMemory(to: UInt8.self, capacity: bytes)
        var index = 0
        // Ends the line begun at `start` (its NUL at `text`) and links node `index` to it.
        func endLine(from start: UnsafeMutablePointer<UInt8>) {
            text.pointee = 0
            text += 1
            let next = index + 1 < lines ? nodes + index + 1 : nil
            (nodes + index).initialize(to: curl_slist(data: UnsafeMutableRawPointer(start).assumingMemoryBound(to: CChar.self),
                                                      next: next))
            index += 1
        }
        for field in fields {
            let start = text
            text = write(field.name.utf8, at: text)
            if field.value.isEmpty {
                text.pointee = UInt8(ascii: ";")
                text += 1
            } else {
                text[0] = UInt8(ascii: ":")
                text[1] = UInt8(ascii: " ")
                text = write(field.value.utf8, at: text + 2)
            }
            endLine(from: start)
        }
        if let first {
            let start = text
            text = write(first.utf8, at: text)
            endLine(from: start)
        }
        if let second {
            let start = text
            text = write(second.utf8, at: text)
            endLine(from: start)
        }
        return nodes
    }

    /// Frees a list ``make(_:_:_:)`` returned (nil: nothing).
    package static func free(_ list: UnsafeMutablePointer<curl_slist>?) { Glibc.free(list) }

    /// The bytes of `field`'s line without its NUL.
    private static func lineLength(_ field: HTTPHeaders.Field) -> Int {
        field.name.utf8.count + (field.value.isEmpty ? 1 : 2 + field.value.utf8.count)
    }

    /// Copies `bytes` to `destination`; returns the byte after the last copied.
    private static func write(_ bytes: String.UTF8View, at destination: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let count = bytes.count
        let buffer = UnsafeMutableBufferPointer(start: destination, count: count)
        _ = buffer.initialize(fromContentsOf: bytes)
        return destination + count
    }
}
