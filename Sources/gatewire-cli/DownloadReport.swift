import Gatewire
import Glibc

/// `gatewire call ... --output FILE`: sends `request`, whose 2xx body the core writes to
/// `path` (whole, on success only), and prints on stderr, as curl keeps stdout for the body:
/// a JSON summary `{"status", "path", "bytes"}` (`bytes`: the size of the file written, which
/// a resumed or restarted download received over several attempts), or the error's. Returns
/// the exit status (2 for a request the core refused to build: ``reportRefusedRequest(_:)``).
func reportDownload(_ request: Request, to path: String, client: Client, report: AttemptReport) -> Int32 {
    do {
        let response = try client.sendAndWait(request)
        report.print(response.attempts)
        report.console.clearStatus()
        let summary = JSONValue.object()
        summary.set("status", .integer(Int64(response.status)))
        summary.set("path", .string(path))
        var file = stat()
        let written = stat(path, &file) == 0 ? Int64(file.st_size) : response.attempts.last?.bytesReceived ?? 0
        summary.set("bytes", .integer(written))
        printError(summary.serialized(pretty: true))
        return ExitStatus.success
    } catch {
        report.print(error.attempts)
        report.console.clearStatus()
        if reportRefusedRequest(error) { return ExitStatus.usage }
        printError(summary(of: error).serialized(pretty: true))
        return ExitStatus.failed
    }
}
