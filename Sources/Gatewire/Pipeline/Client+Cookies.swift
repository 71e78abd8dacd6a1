extension Client {
    /// The cookies in the client's jar (config `cookies`), read on the event-loop thread;
    /// empty when the client has no jar, or once it is closed.
    ///
    /// Blocks until the loop has read them (microseconds), or reads them at once on the loop's
    /// own thread (in a completion, plugin or observer). Values are secrets: nothing in the
    /// library logs them (``Redactor`` hides `Cookie` and `Set-Cookie`).
    public var cookies: [Cookie] {
        let loop = core.loop
        if loop.isCurrentThread { return loop.cookies() ?? [] }
        let waiter = Waiter<[Cookie]>()
        guard loop.execute({ waiter.put(loop.cookies() ?? []) }) else { return [] }
        return waiter.wait()
    }
}

extension CookieJar {
    /// The cookie lines of the jar's file, read when a client is made (``CookieFile/read(_:)``:
    /// never through a symbolic link); none for a jar in memory or a file that does not
    /// exist yet (it is created empty, mode 0600).
    /// - Throws: ``ConfigError`` at `cookies.file` when the path is a symbolic link, not a
    ///   regular file, or cannot be read.
    func storedCookies() throws(ConfigError) -> [String] {
        guard let file else { return [] }
        do throws(CookieFileError) {
            return try CookieFile.read(file)
        } catch {
            throw ConfigError(path: "cookies.file", message: error.message)
        }
    }
}
