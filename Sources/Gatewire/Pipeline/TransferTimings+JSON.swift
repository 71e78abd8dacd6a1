extension TransferTimings {
    /// `{"dns", "connect", "tls", "first_byte", "total", "queued"}` in seconds.
    public var json: JSONValue {
        let object = JSONValue.object()
        object.set("dns", .number(dns))
        object.set("connect", .number(connect))
        object.set("tls", .number(tls))
        object.set("first_byte", .number(firstByte))
        object.set("total", .number(total))
        object.set("queued", .number(queued))
        return object
    }
}
