import GatewireJSON

/// What one schema is, as a mapping sees it: ``SchemaAnalyzer`` reads a Schema Object (3.0
/// section 4.7.24, 3.1 section 4.8.24, JSON Schema's keywords) into this.
struct SchemaShape {
    /// The kinds a mapping tells apart.
    enum Kind {
        /// A scalar attribute: `type` is the config's attribute type (`string`, `integer`,
        /// `number`, `boolean`, `date`), `dateFormat` set for dates.
        case scalar(type: String, dateFormat: String?)
        /// Any JSON value kept as it is (`json`): free-form objects, schemas without a type,
        /// unions without a discriminator, several types.
        case json
        /// An object with properties (`allOf` members merged into it).
        case object(properties: [(name: String, schema: Located)], required: Set<String>)
        /// An array of `items` (nil: items of any kind).
        case array(items: Located?)
        /// A `oneOf`/`anyOf` of two or more members with a `discriminator`.
        case union(members: [Located], discriminator: Located)
    }

    /// What the schema is.
    var kind: Kind
    /// Whether `null` is a value of it (`nullable: true`, `type: [..., "null"]`, a `null`
    /// member of a `oneOf`/`anyOf`).
    var nullable: Bool
    /// Where the schema is, after its `$ref`s: a component's location names its mapping.
    var location: Location
}
