/// The largest response body a call accepts, `maxResponseBytes`: in the gateway config (top
/// level and per route), per call (``CallOptions/maxResponseBytes``; C and Python through the
/// per-call policy object's `maxResponseBytes`) and on the CLI (`--max-response-bytes`).
///
/// The decoded size counts (after `Content-Encoding`: a 1 MB gzip bomb that inflates to
/// 1 GiB is 1 GiB), checked as the bytes arrive: the transfer is aborted at the first byte
/// past the limit, so memory stays near the limit, and a `Content-Length` above it (the
/// size on the wire) is refused before any body byte is read (`CURLOPT_MAXFILESIZE_LARGE`).
/// Such a call fails with kind ``ErrorKind/responseTooLarge``, never retried (the same
/// response would come again).
///
/// The default is 64 MiB. OkHttp, requests, urllib3 and libcurl set no limit (curl's
/// `--max-filesize` is off by default); gRPC caps a received message at 4 MiB by default.
/// Gatewire holds every body in memory to map it, so without a default any server (or a
/// compressed body) could exhaust the process's memory; 64 MiB is far above the JSON
/// payloads a gateway maps, and a call that expects more says so.
package enum ResponseSizeLimit {
    /// 64 MiB (67,108,864 bytes).
    package static let defaultBytes = 64 << 20

    /// The accepted values: 1 byte to 2^62 bytes (an integer).
    package static let range: ClosedRange<Int64> = 1...(1 << 62)
}
