import CCurl
import Glibc

/// The cookie engine of one event loop: the loop's share holds the cookies
/// (`CURL_LOCK_DATA_COOKIE`), so a cookie set on one transfer's handle is sent by the next
/// transfer's new handle; a handle of its own (never performed) loads the jar's file, lists
/// the cookies and writes the file.
///
/// The share needs no lock callbacks: only the loop thread performs transfers or touches
/// this engine after the loop starts (listing goes through the loop, ``EventLoop/cookies(_:)``).
final class CookieEngine {
    private var handle: UnsafeMutableRawPointer?

    /// Turns cookie sharing on in `share` (no handle may have joined it yet) and loads
    /// `jar.file`, if any. Runs before the loop thread starts.
    init(share: UnsafeMutableRawPointer, jar: CookieJar) {
        _ = gw_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        handle = curl_easy_init()
        guard let handle else { return }
        _ = gw_easy_setopt_ptr(handle, CURLOPT_SHARE, share)
        // An empty name starts the engine without reading a file (libcurl's documented idiom).
        _ = gw_easy_setopt_str(handle, CURLOPT_COOKIEFILE, jar.file ?? "")
        if let file = jar.file {
            // Cookie values are credentials: a new jar file is made private to its owner now
            // (libcurl keeps an existing file's mode when it rewrites it; it would create a
            // new one with the umask's, often world-readable).
            let created = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if created >= 0 { Glibc.close(created) }
            _ = gw_easy_setopt_str(handle, CURLOPT_COOKIEJAR, file)
            // Reads the file into the share now, not when a transfer first starts.
            _ = gw_easy_setopt_str(handle, CURLOPT_COOKIELIST, "RELOAD")
        }
    }

    deinit { close() }

    /// Lets transfer handle `easy` send and store cookies. The handle joins the share
    /// separately (``EventLoop/start(_:)``): the cookies are the share's, not the handle's.
    func enable(on easy: UnsafeMutableRawPointer) {
        _ = gw_easy_setopt_str(easy, CURLOPT_COOKIEFILE, "")
    }

    /// Every cookie in the jar, expired ones left out (libcurl drops them when listing).
    func cookies() -> [Cookie] {
        guard let handle else { return [] }
        var list: UnsafeMutableRawPointer?
        guard gw_easy_getinfo_ptr(handle, CURLINFO_COOKIELIST, &list) == CURLE_OK, let list else { return [] }
        let head = list.assumingMemoryBound(to: curl_slist.self)
        defer { curl_slist_free_all(head) }
        var cookies: [Cookie] = []
        var node: UnsafeMutablePointer<curl_slist>? = head
        while let current = node {
            if let data = current.pointee.data, let cookie = Cookie(netscapeLine: String(cString: data)) {
                cookies.append(cookie)
            }
            node = current.pointee.next
        }
        return cookies
    }

    /// Writes the jar's file (when it has one) and releases the engine's handle; must run
    /// before the share is cleaned up. Idempotent.
    func close() {
        guard let handle else { return }
        self.handle = nil
        curl_easy_cleanup(handle)  // writes CURLOPT_COOKIEJAR, the file, with every cookie of the share
    }
}
