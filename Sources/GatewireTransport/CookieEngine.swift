import CCurl
import Glibc

/// What a loop's cookie engine starts with: the jar, the cookie lines its file held when the
/// client was made (``CookieFile/read(_:)``, read by the caller so that a refused file is an
/// error of the client's creation), and where a failure to write the file is reported.
package struct CookieEngineSetup: Sendable {
    /// The jar; its `file`, if any, is written when the loop closes.
    package var jar: CookieJar
    /// The lines to load, each given to libcurl as one `CURLOPT_COOKIELIST` line.
    package var stored: [String]
    /// Told, on the loop thread as it closes, why the jar's file was not written (a message
    /// with the path and the reason, never a cookie).
    package var report: @Sendable (String) -> Void

    /// A setup for `jar` with the `stored` lines of its file.
    package init(jar: CookieJar, stored: [String], report: @escaping @Sendable (String) -> Void) {
        self.jar = jar
        self.stored = stored
        self.report = report
    }
}

/// The cookie engine of one event loop: the loop's share holds the cookies
/// (`CURL_LOCK_DATA_COOKIE`), so a cookie set on one transfer's handle is sent by the next
/// transfer's new handle; a handle of its own (never performed) loads the stored cookies,
/// lists the cookies, and lists them for the jar's file when the loop closes.
///
/// The file itself is read and written by ``CookieFile``, never by libcurl (no
/// `CURLOPT_COOKIEJAR`, and `CURLOPT_COOKIEFILE` only as `""`, which starts the engine
/// without a file): libcurl 7.88 follows a symbolic link at the jar's path both ways.
///
/// The share needs no lock callbacks: only the loop thread performs transfers or touches
/// this engine after the loop starts (listing goes through the loop, ``EventLoop/cookies(_:)``).
final class CookieEngine {
    private var handle: UnsafeMutableRawPointer?
    private let file: String?
    private let report: @Sendable (String) -> Void

    /// Turns cookie sharing on in `share` (no handle may have joined it yet) and loads the
    /// setup's stored lines. Runs before the loop thread starts.
    init(share: UnsafeMutableRawPointer, setup: CookieEngineSetup) {
        file = setup.jar.file
        report = setup.report
        _ = gw_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        handle = curl_easy_init()
        guard let handle else { return }
        _ = gw_easy_setopt_ptr(handle, CURLOPT_SHARE, share)
        // An empty name starts the engine without reading a file (libcurl's documented idiom).
        _ = gw_easy_setopt_str(handle, CURLOPT_COOKIEFILE, "")
        for line in setup.stored { _ = gw_easy_setopt_str(handle, CURLOPT_COOKIELIST, line) }
    }

    deinit { close() }

    /// Lets transfer handle `easy` send and store cookies. The handle joins the share
    /// separately (``EventLoop/start(_:)``): the cookies are the share's, not the handle's.
    func enable(on easy: UnsafeMutableRawPointer) {
        _ = gw_easy_setopt_str(easy, CURLOPT_COOKIEFILE, "")
    }

    /// Every cookie in the jar, expired ones left out.
    func cookies() -> [Cookie] { listed().map(\.cookie) }

    /// Writes the jar's file (when it has one), reporting a failure, and releases the
    /// engine's handle; must run before the share is cleaned up. Idempotent.
    func close() {
        guard let handle else { return }
        if let file {
            do throws(CookieFileError) {
                try CookieFile.write(listed().map(\.line), to: file)
            } catch {
                report("the cookie jar was not saved: \(error.message)")
            }
        }
        self.handle = nil
        curl_easy_cleanup(handle)
    }

    /// The jar's cookies as libcurl lists them (`CURLINFO_COOKIELIST`: each Netscape line and
    /// the cookie parsed from it, each domain's in the order they were set), expired ones left
    /// out as libcurl's own jar writer leaves them out (a cookie expires once its time is
    /// past; 0 is a session cookie).
    private func listed() -> [(line: String, cookie: Cookie)] {
        guard let handle else { return [] }
        var list: UnsafeMutableRawPointer?
        guard gw_easy_getinfo_ptr(handle, CURLINFO_COOKIELIST, &list) == CURLE_OK, let list else { return [] }
        let head = list.assumingMemoryBound(to: curl_slist.self)
        defer { curl_slist_free_all(head) }
        let now = Int64(time(nil))
        var listed: [(line: String, cookie: Cookie)] = []
        var node: UnsafeMutablePointer<curl_slist>? = head
        while let current = node {
            if let data = current.pointee.data {
                let line = String(cString: data)
                if let cookie = Cookie(netscapeLine: line), cookie.expires == 0 || cookie.expires >= now {
                    listed.append((line, cookie))
                }
            }
            node = current.pointee.next
        }
        return listed
    }
}
