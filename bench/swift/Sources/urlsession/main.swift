// The URLSession peer (FoundationNetworking, on libcurl on Linux): INFLIGHT data tasks kept
// in flight from their completion handlers; for the users workload, JSONDecoder into
// Codable structs (renames, nested object, date and integer coercion like the Gatewire mapping).
//
// Usage: urlsession URL REQUESTS INFLIGHT EXPECT_BYTES raw|decode
// Prints one JSON line: {"requests", "ok", "elapsed", "cpu"} (timed phase only).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Place: Decodable { let cityName: String
    enum CodingKeys: String, CodingKey { case cityName = "city" } }

struct User: Decodable {
    let userId: Int64
    let fullName: String
    let isAdmin: Bool
    let score: Double
    let postCount: Int64
    let createdAt: Date
    let team: String?
    let home: Place
    enum CodingKeys: String, CodingKey {
        case userId = "id", fullName = "name", isAdmin = "admin", score, postCount = "posts",
             createdAt = "created", team, home
    }
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        userId = try c.decode(Int64.self, forKey: .userId)
        fullName = try c.decode(String.self, forKey: .fullName)
        isAdmin = try c.decode(Bool.self, forKey: .isAdmin)
        score = try c.decode(Double.self, forKey: .score)
        let posts = try c.decode(String.self, forKey: .postCount)  // a digit string -> integer
        guard let count = Int64(posts) else {
            throw DecodingError.dataCorruptedError(forKey: .postCount, in: c, debugDescription: "not an integer")
        }
        postCount = count
        createdAt = try c.decode(Date.self, forKey: .createdAt)
        team = try c.decodeIfPresent(String.self, forKey: .team)
        home = try c.decode(Place.self, forKey: .home)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let url = URL(string: arguments[1]), let total = Int(arguments[2]),
      let inflight = Int(arguments[3]), let expect = Int(arguments[4]) else {
    FileHandle.standardError.write("usage: urlsession URL REQUESTS INFLIGHT EXPECT_BYTES raw|decode\n".data(using: .utf8)!)
    exit(2)
}
let decode = arguments[5] == "decode"

func cpu() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let configuration = URLSessionConfiguration.ephemeral
configuration.httpMaximumConnectionsPerHost = max(inflight, 1)
configuration.urlCache = nil
let session = URLSession(configuration: configuration)

final class Counters: @unchecked Sendable {
    let lock = NSLock()
    var started = 0, done = 0, ok = 0
    let finished = DispatchSemaphore(value: 0)
}
let counters = Counters()

@Sendable func startOne() {
    session.dataTask(with: url) { data, response, error in
        var good = (response as? HTTPURLResponse)?.statusCode == 200 && data?.count == expect && error == nil
        if good, decode, let data {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let users = try? decoder.decode([User].self, from: data)
            good = users?.count == 1000
        }
        counters.lock.lock()
        counters.done += 1
        if good { counters.ok += 1 }
        let next = counters.started < total
        if next { counters.started += 1 }
        let last = counters.done == total
        counters.lock.unlock()
        if next { startOne() }
        if last { counters.finished.signal() }
    }.resume()
}

let start = Date(), cpu0 = cpu()
let first = min(inflight, total)
counters.started = first
for _ in 0..<first { startOne() }
counters.finished.wait()
let elapsed = Date().timeIntervalSince(start), spent = cpu() - cpu0
print("{\"requests\": \(total), \"ok\": \(counters.ok), \"elapsed\": \(elapsed), \"cpu\": \(spent)}")
exit(counters.ok == total ? 0 : 1)
