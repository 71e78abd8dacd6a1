import Gatewire

/// `--verbose`'s header lines, as curl's `-v` writes them: each request as it goes out
/// (`> GET /x?q=1 HTTP/1.1`, `> Host: ...`, `> Name: value`) and each attempt's response as it
/// arrives (`< HTTP/1.1 200`, `< Name: value`), on stderr through the ``LiveConsole``.
///
/// A plugin, added after the config's own, because the per-attempt request and response
/// fields reach a client's plugins only: ``Plugin/willSend(_:context:)`` sees each request
/// (every redirect hop's) after every plugin's `prepare`, so an auth plugin's header shows;
/// ``Plugin/didReceive(_:response:context:)`` sees an attempt's last response (neither the
/// attempt record nor the call events carry header fields). Both run on the client's loop
/// thread as the call goes. Values are hidden by the client's redactor
/// (``PluginContext/redactor``: the default secret names, the config's `redactHeaders`, each
/// plugin's), the rule every log follows; query values too.
///
/// Fields libcurl adds as it writes the request (User-Agent, Accept, Accept-Encoding,
/// Content-Length, a multipart boundary's Content-Type, the jar's cookies) are not in the
/// request a plugin sees, so they are not shown; Host is, as libcurl writes it from the URL.
struct ExchangeTrace: Plugin {
    let name = "verbose"
    let console: LiveConsole
    /// The version a cleartext (`http`) request goes out in: libcurl speaks HTTP/1.1 there,
    /// or HTTP/2 with the config's `http2.priorKnowledge`. Over TLS it is negotiated (ALPN)
    /// when the connection is made, so an `https` request line has none.
    let cleartextVersion: String

    init(console: LiveConsole, http2PriorKnowledge: Bool) {
        self.console = console
        cleartextVersion = http2PriorKnowledge ? "HTTP/2" : "HTTP/1.1"
    }

    func willSend(_ request: HTTPRequest, context: PluginContext) {
        guard let url = AbsoluteURL(request.url) else { return }  // the core sends absolute http(s) URLs only
        let scheme = url.scheme.lowercased()
        let version = scheme == "http" ? " " + cleartextVersion : ""
        var lines = ["> \(request.method.rawValue) \(context.redactor.url(url.target))\(version)"]
        if !request.headers.contains("Host") { lines.append("> Host: \(Self.host(url.authority, scheme: scheme))") }
        for field in request.headers { lines.append("> " + context.redactor.header(field.name, field.value)) }
        console.print(lines.joined(separator: "\n"))
    }

    func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) {
        guard let response else { return }  // no response: the attempt's line says why
        var lines = ["< HTTP/\(response.httpVersion) \(response.status)"]
        for field in response.headers { lines.append("< " + context.redactor.header(field.name, field.value)) }
        console.print(lines.joined(separator: "\n"))
    }

    /// The Host field libcurl writes for `authority`: without userinfo, and without the port
    /// when it is the scheme's default (80, 443).
    static func host(_ authority: Substring, scheme: String) -> Substring {
        let host = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let defaultPort = scheme == "https" ? ":443" : ":80"
        return host.hasSuffix(defaultPort) ? host.dropLast(defaultPort.count) : host
    }
}
