import CCurl
import GatewireBase

/// The `User-Agent` field Gatewire sends when the caller sets none: `gatewire/VERSION
/// libcurl/VERSION`, e.g. "gatewire/0.1.0 libcurl/7.88.1", as curl sends `curl/VERSION`.
///
/// Set with `CURLOPT_USERAGENT`, which libcurl drops when the request's own header list
/// has a `User-Agent` field (lib/http.c), so a field from the caller, the config's headers
/// or a plugin always wins without Gatewire comparing names.
package enum UserAgent {
    static let field: String = {
        let curl = curl_version_info(CURLVERSION_ELEVENTH).map { String(cString: $0.pointee.version) } ?? "unknown"
        return "gatewire/\(Version.string) libcurl/\(curl)"
    }()
}
