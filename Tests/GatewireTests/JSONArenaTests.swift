import CGatewireArena
import CJansson
@testable import Gatewire
import Glibc
import Testing

/// The Jansson trees of large bodies are built in arena slots (Sources/CGatewireArena) and
/// stay ordinary Jansson trees: mutated, shared, kept in part and released on other threads,
/// every slot goes back to the pool once its last node is freed. Each test builds on one
/// new thread and frees on others, and counts only those threads' slots, so other tests
/// running at the same time cannot disturb the counts.
@Suite(.serialized) struct JSONArenaTests {
    let mapper: ResponseMapper

    init() throws {
        mapper = ResponseMapper(catalog: try catalog(#"""
            {"mappings": {
               "User": {"attributes": {"id": {"to": "userId", "type": "integer"}, "name": "fullName",
                                       "created": {"to": "createdAt", "type": "date"}},
                        "relationships": {"home": {"to": "home", "mapping": "Place"}}},
               "Place": {"attributes": {"city": "cityName"}}},
             "responseDescriptors": [{"mapping": "User", "method": "GET", "pathPattern": "/users"}]}
            """#))
    }

    /// A response with `count` users (about 95 bytes each).
    static func users(_ count: Int) -> MappableResponse {
        var text = "["
        for index in 0..<count {
            if index > 0 { text += "," }
            text += #"{"id": "\#(index)", "name": "User \#(index)", "created": "2024-01-0\#(index % 9 + 1)T10:00:00Z", "home": {"city": "C\#(index % 7)"}}"#
        }
        return MappableResponse(method: .get, path: "/users", status: 200, contentType: "application/json",
                                body: Array((text + "]").utf8))
    }

    /// The slots a thread took and gave back while running `body` (its own counters).
    struct Slots: Sendable, Equatable {
        var taken = 0
        var recycled = 0
    }

    /// Runs `body` on a new thread (joined before this returns), with that thread's slot counts.
    static func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> (T, Slots) {
        let result = Lock<T?>(nil)
        let job = ThreadJob { result.withLock { $0 = body() } }
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadJob>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, Unmanaged.passRetained(job).toOpaque())
        precondition(rc == 0)
        pthread_join(thread, nil)
        return (result.withLock { $0! }, job.slots)
    }

    @Test func largeBodiesAreBuiltInSlotsThatComeBackWhenReleasedOnAnotherThread() throws {
        let held = Lock<MappingOutcome?>(nil)
        let ((inArena, text), built) = Self.onNewThread { [mapper] () -> ((Bool, Bool, Bool), String) in
            let outcome = mapper.map(Self.users(2_000))
            held.withLock { $0 = outcome }
            return ((gw_arena_contains(outcome.body!.pointer) != 0, gw_arena_contains(outcome.mapped!.pointer) != 0,
                     gw_arena_contains(outcome.metadata!.pointer) != 0),
                    outcome.mapped!.node[""]!.elements.last!.serialized())
        }
        #expect(inArena == (true, true, true))
        #expect(text == #"{"userId":1999,"fullName":"User 1999","createdAt":"2024-01-02T10:00:00.000Z","home":{"cityName":"C4"}}"#)
        #expect(built.taken > 10)  // ~150 KB of JSON: about 3 MB of trees
        let (_, released) = Self.onNewThread { held.withLock { $0 = nil } }
        #expect(built.recycled + released.recycled == built.taken)
        #expect(released.taken == 0)
    }

    @Test func treesMutatedAfterwardsStayRightAndGiveEverySlotBack() throws {
        let held = Lock<MappingOutcome?>(nil)
        let (_, built) = Self.onNewThread { [mapper] in held.withLock { $0 = mapper.map(Self.users(2_000)) } }
        let (texts, mutated) = Self.onNewThread { () -> [String] in
            // Outside a scope: everything allocated here is malloc'ed, mixed into arena trees.
            let outcome = held.withLock { $0! }
            let users = outcome.mapped!.node[""]!.pointer
            let first = json_array_get(users, 0)!
            json_object_set_new(first, "added", json_string("new"))  // a malloc'ed member
            json_object_set_new(first, "fullName", json_integer(7))  // replaces a shared arena string
            json_object_del(first, "home")  // an arena object freed here
            json_array_remove(users, 1)
            json_array_append_new(users, appendedObject())
            let keptFirst = JSONValue(retaining: first)
            let keptHome = JSONValue(retaining: json_object_get(json_array_get(users, 1), "home"))
            let holder = JSONValue.object()  // a malloc'ed tree holding an arena subtree
            holder.set("user", JSONValue(retaining: json_array_get(users, 2)))
            let count = json_array_size(users)
            held.withLock { $0 = nil }  // the roots go; the kept parts stay
            let texts = [keptFirst.serialized(), keptHome.serialized(), holder.serialized(), String(count),
                         String(gw_arena_contains(keptFirst.pointer)), String(gw_arena_contains(json_object_get(first, "added")))]
            return texts
        }
        #expect(texts == [#"{"userId":0,"fullName":7,"createdAt":"2024-01-01T10:00:00.000Z","added":"new"}"#,
                          #"{"cityName":"C2"}"#,
                          #"{"user":{"userId":3,"fullName":"User 3","createdAt":"2024-01-04T10:00:00.000Z","home":{"cityName":"C3"}}}"#,
                          "2000", "1", "0"])
        #expect(built.recycled + mutated.recycled == built.taken)
    }

    @Test func smallBodiesUseMalloc() throws {
        let (inArena, slots) = Self.onNewThread { [mapper] () -> Bool in
            let outcome = mapper.map(Self.users(3))
            return gw_arena_contains(outcome.body!.pointer) != 0
        }
        #expect(!inArena)
        #expect(slots == Slots())
    }

    @Test func scopesDoNotNestAndEndCleanly() throws {
        let (begun, slots) = Self.onNewThread { () -> [Int32] in
            let outer = gw_arena_begin()
            let inner = gw_arena_begin()
            let value = json_object()!  // carved from a slot
            let carved = gw_arena_contains(value)
            gw_arena_end()
            json_decref(value)
            return [outer, inner, carved]
        }
        #expect(begun == [1, 0, 1])
        #expect(slots == Slots(taken: 1, recycled: 1))
    }
}

/// A new `{"appended": true}` (a malloc'ed object outside a scope).
private func appendedObject() -> UnsafeMutablePointer<json_t> {
    let object = json_object()!
    json_object_set_new(object, "appended", json_true())
    return object
}

/// A body run on a new thread, with the slots that thread took and gave back meanwhile.
private final class ThreadJob: @unchecked Sendable {
    // @unchecked: `slots` is written by the thread before it ends and read after the join.
    let body: @Sendable () -> Void
    var slots = JSONArenaTests.Slots()

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    /// On the new thread: the body, a flush of its pending frees, and its slot counts.
    func run() {
        var taken0 = 0, recycled0 = 0, taken1 = 0, recycled1 = 0
        gw_arena_thread_slots(&taken0, &recycled0)
        body()
        gw_arena_flush()
        gw_arena_thread_slots(&taken1, &recycled1)
        slots = JSONArenaTests.Slots(taken: taken1 - taken0, recycled: recycled1 - recycled0)
    }
}
