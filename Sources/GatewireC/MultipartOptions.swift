import CGatewireABI
import Gatewire

/// The parts of a call (`gw_body.parts` of GW_BODY_MULTIPART; version 4's `parts`) as a
/// ``Request/Body/multipart(_:object:type:)`` body, joined with the body the other fields
/// set: a form's fields come first as text parts, an object body (JSON with an object type)
/// is mapped into fields first.
enum MultipartOptions {
    typealias Failure = CallOptionsReader.Failure

    /// Sets `request`'s body to the parts of `body` after the body it has.
    /// - Throws: ``CallOptionsReader/Failure`` (GW_ERROR_INVALID_ARGUMENT) naming the field:
    ///   the parts NULL with a count, a part without its required field or of an unknown kind,
    ///   or parts with raw bytes or a JSON body of no object type.
    static func setParts(_ body: CallFields.BodyFields, of request: inout Request) throws(Failure) {
        let names = body.names
        guard let pointer = body.parts else {
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT,
                          message: "\(names.parts): NULL with \(names.partCount) \(body.partCount) (NULL is no parts)")
        }
        var parts: [MultipartPart] = []
        parts.reserveCapacity(body.partCount)
        for index in 0..<body.partCount { parts.append(try part(pointer[index], field: "\(names.parts)[\(index)]")) }
        switch request.body {
        case nil: request.body = .multipart(parts)
        case .form(let fields): request.body = .multipart(fields.map { .field($0.name, $0.value) } + parts)
        case .object(let value, let type): request.body = .multipart(parts, object: value, type: type)
        default:
            throw Failure(status: GW_ERROR_INVALID_ARGUMENT, message: names.partsConflict)
        }
    }

    /// One `gw_part`, its strings copied.
    private static func part(_ part: gw_part, field: String) throws(Failure) -> MultipartPart {
        guard let name = part.name else { throw invalid("\(field).name: required") }
        let filename = part.filename.map { String(cString: $0) }
        let contentType = part.content_type.map { String(cString: $0) }
        let content: MultipartPart.Content
        switch part.kind {
        case GW_PART_FIELD:
            guard let value = part.value else { throw invalid("\(field).value: required for GW_PART_FIELD") }
            content = .text(String(cString: value))
        case GW_PART_FILE:
            guard let path = part.path else { throw invalid("\(field).path: required for GW_PART_FILE") }
            content = .file(path: String(cString: path))
        case GW_PART_BYTES:
            if let problem = SizeArgument.problem(part.length, field: "\(field).length") { throw invalid(problem) }
            guard part.bytes != nil || part.length == 0 else {
                throw invalid("\(field).bytes: NULL with length \(part.length)")
            }
            content = .bytes(Array(UnsafeRawBufferPointer(start: part.bytes, count: part.length)))
        default:
            throw invalid("\(field).kind: unknown kind \(part.kind) (expected GW_PART_FIELD, GW_PART_FILE or GW_PART_BYTES)")
        }
        return MultipartPart(name: String(cString: name), content: content, filename: filename, contentType: contentType)
    }

    private static func invalid(_ message: String) -> Failure { Failure(status: GW_ERROR_INVALID_ARGUMENT, message: message) }
}
