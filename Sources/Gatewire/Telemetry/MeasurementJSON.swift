/// Measurements as the C measurement exporter's JSON text: `[{"name", "value",
/// "attributes": {key: value}}]`, a counter's value a JSON integer, a histogram's a real
/// (seconds), attribute values JSON strings, integers, reals or booleans.
package enum MeasurementJSON {
    /// `measurements` as one JSON array.
    package static func array(_ measurements: [MetricMeasurement]) -> [UInt8] {
        var writer = OTLPJSONWriter(capacity: 2 + measurements.count * 200)
        writer.raw("[")
        for (index, measurement) in measurements.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{\"name\":")
            writer.string(measurement.name)
            writer.raw(",\"value\":")
            if measurement.kind == .histogram {
                writer.number(measurement.value)
            } else {
                writer.integer(Int64(measurement.value))
            }
            writer.raw(",\"attributes\":{")
            for (index, attribute) in measurement.attributes.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.string(attribute.key)
                writer.raw(":")
                switch attribute.value {
                case .string(let text): writer.string(text)
                case .int(let number): writer.integer(number)
                case .double(let number): writer.number(number)
                case .bool(let flag): writer.raw(flag ? "true" : "false")
                }
            }
            writer.raw("}}")
        }
        writer.raw("]")
        return writer.bytes
    }
}
