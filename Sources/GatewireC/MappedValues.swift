import CGatewireABI
import Gatewire

// The in-place reads of mapped objects behind gw_result_mapped_value and gw_result_mapped_walk
// (ResultExports.swift): finding one value, and a node as a gw_value.

/// The three steps of gw_result_mapped_value: the descriptor's key path, the object's index
/// (an array's element, or index 0 for one object), the field's key path inside it.
func lookup(in mapped: JSONNode, keyPath: UnsafePointer<CChar>?, index: Int, field: UnsafePointer<CChar>?) -> JSONNode? {
    guard let atKeyPath = keyPath.map({ mapped.member($0) }) ?? mapped.member("") else { return nil }
    let object: JSONNode?
    switch (index, atKeyPath.kind) {
    case (-1, _): object = atKeyPath
    case (_, .array): object = atKeyPath.element(at: index)
    case (0, _): object = atKeyPath
    default: object = nil
    }
    guard let object else { return nil }
    return field.map { object.descendant(atPath: $0) } ?? object
}

/// Sets `value` to what `node` is (gw_value: only the fields of its type).
func fill(_ value: inout gw_value, from node: JSONNode) {
    switch node.kind {
    case .null: value.type = GW_VALUE_NULL
    case .bool:
        value.type = GW_VALUE_BOOL
        value.boolean = node.bool == true ? 1 : 0
    case .integer:
        value.type = GW_VALUE_INTEGER
        value.integer = node.integer ?? 0
        value.real = node.number ?? 0
    case .real:
        value.type = GW_VALUE_REAL
        value.real = node.number ?? 0
    case .string:
        value.type = GW_VALUE_STRING
        if let bytes = node.stringBytes {
            value.string = bytes.baseAddress.map { UnsafePointer($0) }
            value.length = bytes.count
        }
    case .object:
        value.type = GW_VALUE_OBJECT
        value.count = node.count
    case .array:
        value.type = GW_VALUE_ARRAY
        value.count = node.count
    }
}
