// Sends GET /headers to the base URL given as the only argument and prints
// "status <code> body <body>"; a failed call prints the error to stderr and exits 1.
//
//   swift-app http://127.0.0.1:8080
import Gatewire
import Glibc

/// Writes `message` to standard error and exits with `status` (Swift 6 forbids the global `stderr`).
func fail(_ message: String, status: Int32) -> Never {
    let line = message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

guard CommandLine.arguments.count == 2 else { fail("usage: swift-app BASE_URL", status: 2) }
do {
    let client = try Client(baseURL: CommandLine.arguments[1])
    let response = try await client.send(.get("/headers"))
    print("status \(response.http.status) body \(response.http.text)")
    client.close()
} catch {
    fail("swift-app: \(error)", status: 1)
}
