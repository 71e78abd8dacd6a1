import Glibc

/// The thread-local message behind `gw_last_error_message()`: the last failure on this thread
/// (a `strdup` copy, freed when replaced or when the thread exits; successes leave it).
enum LastError {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    /// Records `message` for this thread and returns `status`, for `return LastError.fail(...)`.
    static func fail(_ status: Int32, _ message: String) -> Int32 {
        set(message)
        return status
    }

    static func set(_ message: String) {
        free(pthread_getspecific(key))
        // A message may quote a caller's JSON string, which may hold U+0000 ("\u0000"): in the
        // C copy it would end the message there, so it is written as the two characters \0.
        let text = message.utf8.contains(0)
            ? message.split(separator: "\0", omittingEmptySubsequences: false).joined(separator: "\\0") : message
        pthread_setspecific(key, strdup(text))
    }

    /// The message, or nil when none was recorded on this thread.
    static var message: UnsafePointer<CChar>? {
        pthread_getspecific(key).map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) }
    }
}
