// Gatewire through its Swift API: Client.start, INFLIGHT calls kept in flight by starting
// the next call from each completion (on the client's loop thread).
//
// Usage: gatewire-swift CONFIG_FILE ROUTE REQUESTS INFLIGHT EXPECT_BYTES raw|mapped
// Prints one JSON line: {"requests", "ok", "elapsed", "cpu"} (timed phase only).
import Gatewire
import Glibc
import Synchronization

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func cpu() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func warn(_ text: String) {
    _ = text.withCString { write(2, $0, strlen($0)) }
}

final class Counters: Sendable {
    struct State { var started = 0, done = 0, ok = 0 }
    let state = Mutex(State())
    let finished = Atomic<Bool>(false)
}

/// The mapped users: every element of the root array, each with an integer `userId`.
@Sendable func mappedUsers(_ response: Response) -> Int {
    guard let root = response.mapped?.node[""], root.kind == .array else { return -1 }
    return root.elements.filter { $0["userId"]?.integer != nil }.count
}

func main() -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count == 7, let total = Int(arguments[3]), let inflight = Int(arguments[4]),
          let expect = Int(arguments[5]) else {
        warn("usage: gatewire-swift CONFIG_FILE ROUTE REQUESTS INFLIGHT EXPECT_BYTES raw|mapped\n")
        return 2
    }
    let route = arguments[2]
    let mapped = arguments[6] == "mapped"
    let verifyAll = getenv("BENCH_VERIFY").map { String(cString: $0) } == "all"
    let client: Client
    do {
        client = try Client(configFile: arguments[1])
    } catch {
        warn("client: \(error)\n")
        return 1
    }

    let counters = Counters()
    let request = Request(route: route)


    @Sendable func startOne() {
        client.start(request) { result in
            var good = false
            if case .success(let response) = result {
                good = response.status == 200 && response.http.body.count == expect
                if good, mapped {
                    let check = verifyAll || counters.state.withLock { $0.done == 0 }
                    if check { good = mappedUsers(response) == 1000 }
                }
            } else if case .failure(let error) = result {
                warn("call failed: \(error)\n")
            }
            let (next, last) = counters.state.withLock { state -> (Bool, Bool) in
                state.done += 1
                if good { state.ok += 1 }
                let next = state.started < total
                if next { state.started += 1 }
                return (next, state.done == total)
            }
            if next { startOne() }
            if last { counters.finished.store(true, ordering: .releasing) }
        }
    }

    let start = now(), cpu0 = cpu()
    let first = min(inflight, total)
    counters.state.withLock { $0.started = first }
    for _ in 0..<first { startOne() }
    while !counters.finished.load(ordering: .acquiring) { usleep(1000) }
    let elapsed = now() - start, spent = cpu() - cpu0
    let ok = counters.state.withLock { $0.ok }
    print("{\"requests\": \(total), \"ok\": \(ok), \"elapsed\": \(elapsed), \"cpu\": \(spent)}")
    client.close()
    return ok == total ? 0 : 1
}

exit(main())
