// Sends GET /headers to the base URL given as the only argument and prints
// "status <code> body <body>"; a failed call prints the error to stderr and exits 1.
//
//   swift-app http://127.0.0.1:8080
import Gatewire
import Glibc

guard CommandLine.arguments.count == 2 else {
    fputs("usage: swift-app BASE_URL\n", stderr)
    exit(2)
}
do {
    let client = try Client(baseURL: CommandLine.arguments[1])
    let response = try await client.send(.get("/headers"))
    print("status \(response.http.status) body \(response.http.text)")
    client.close()
} catch {
    fputs("swift-app: \(error)\n", stderr)
    exit(1)
}
