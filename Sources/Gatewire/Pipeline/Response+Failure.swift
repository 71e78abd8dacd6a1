extension Response {
    /// This response as a failure, for a plugin's ``Plugin/process(_:context:)`` that finds an
    /// error reported in a 2xx body (`{"ok": false, "error": "..."}`). Keeps the status, the
    /// response and the attempt history. `kind` defaults to `plugin`.
    public func failure(_ kind: ErrorKind = .plugin, message: String) -> GatewireError {
        GatewireError(kind: kind, status: status, message: message, method: method, path: path, response: http,
                      attempts: attempts)
    }
}
