extension Response {
    /// This response as a failure, for a plugin's ``Plugin/process(_:context:)`` that finds an
    /// error reported in a 2xx body (`{"ok": false, "error": "..."}`). Keeps the status, the
    /// response and the attempt history. `kind` defaults to `plugin`; `errorObjects` (a JSON
    /// array, e.g. the body's `errors` mapped by `ObjectMapper`) reaches the caller and the
    /// observers as an error descriptor's do (``GatewireError/errorObjects``; C
    /// `gw_result_error_objects_json`, Python `CallError.error_objects`).
    public func failure(_ kind: ErrorKind = .plugin, message: String, errorObjects: JSONValue? = nil) -> GatewireError {
        GatewireError(kind: kind, status: status, message: message, method: method, path: path,
                      errorObjects: errorObjects, response: http, attempts: attempts)
    }
}
