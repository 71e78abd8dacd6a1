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
