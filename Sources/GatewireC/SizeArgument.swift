/// The `size_t` arguments and fields of the ABI (a count, a length, a capacity) as Swift reads
/// them: as `Int`, so a value above `Int.max`, more than any buffer in memory can hold,
/// arrives negative. Each is checked here before it sizes a loop or a buffer (where a
/// negative count would stop the process) and refused with GW_ERROR_INVALID_ARGUMENT.
enum SizeArgument {
    /// Why the `size_t` `value` of `field` cannot be used, or nil: it is above `Int.max` or
    /// below `minimum` (`"part_count: 18446744073709551615 is out of range (0...9223372036854775807)"`).
    static func problem(_ value: Int, field: String, minimum: Int = 0) -> String? {
        value >= minimum ? nil : "\(field): \(UInt(bitPattern: value)) is out of range (\(minimum)...\(Int.max))"
    }
}
