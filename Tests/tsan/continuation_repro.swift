// No Gatewire: an object made on a pthread and handed to a task through
// withCheckedContinuation, as Gatewire's event loop hands a response to `send`. The task's
// read of the object races, for ThreadSanitizer, with its initialisation: the resume's
// synchronisation happens inside the uninstrumented Swift concurrency runtime.
import Glibc

final class Payload: Sendable { let value: Int; init(_ value: Int) { self.value = value } }
final class Waiter: @unchecked Sendable { var continuation: CheckedContinuation<Payload, Never>? }

@main struct ContinuationRepro {
    static func main() async {
        var total = 0
        for round in 0..<100 {
            let payload = await withCheckedContinuation { continuation in
                let waiter = Waiter()
                waiter.continuation = continuation
                var thread = pthread_t()
                pthread_create(&thread, nil, { raw in
                    let waiter = Unmanaged<Waiter>.fromOpaque(raw!).takeRetainedValue()
                    waiter.continuation!.resume(returning: Payload(1))
                    return nil
                }, Unmanaged.passRetained(waiter).toOpaque())
                pthread_detach(thread)
            }
            total += payload.value + round * 0
        }
        print("total", total)
    }
}
