import CCurl

/// What an ``EventLoop`` waits for on a file descriptor it watches besides libcurl's, and
/// what it found: readable and writable, as poll(2)'s `POLLIN` and `POLLOUT`.
package struct DescriptorEvents: OptionSet, Sendable {
    package let rawValue: Int16
    package init(rawValue: Int16) { self.rawValue = rawValue }

    /// Data (or an end of file, or a pending error) can be read without blocking.
    package static let readable = DescriptorEvents(rawValue: Int16(CURL_WAIT_POLLIN))
    /// A write would not block (a non-blocking connect(2) has finished, or failed).
    package static let writable = DescriptorEvents(rawValue: Int16(CURL_WAIT_POLLOUT))
}

/// The file descriptors an ``EventLoop`` polls besides libcurl's (a Redis connection's
/// socket), handed to `curl_multi_poll` as its `extra_fds`. Loop thread only.
///
/// Only descriptors with wanted events are in the array libcurl polls: libcurl 7.88 reports
/// an extra descriptor's `revents` as `POLLIN`, `POLLOUT` and `POLLPRI` only
/// (`multi_wait`), so a descriptor waited on for nothing whose peer hung up would wake every
/// poll (poll(2) always reports `POLLHUP` and `POLLERR`) while its handler never hears of it.
/// On Linux an error or a hang-up also makes a socket readable and writable, which is how a
/// handler that waits for either learns of them.
///
/// The array is rebuilt after a change, into storage it keeps: a loop whose descriptors
/// change no wanted event allocates nothing per iteration, and one with no descriptor passes
/// libcurl no array at all.
final class WatchedDescriptors {
    /// One watched descriptor.
    private struct Watch {
        let fd: Int32
        var events: DescriptorEvents
        let handler: (DescriptorEvents) -> Void
    }

    @exclusivity(unchecked) private var watches: [Int: Watch] = [:]
    @exclusivity(unchecked) private var nextID = 1
    /// The array libcurl polls, and the watch id of each entry.
    @exclusivity(unchecked) private var polled: [curl_waitfd] = []
    @exclusivity(unchecked) private var polledIDs: [Int] = []
    /// Whether `polled` is out of date.
    @exclusivity(unchecked) private var changed = false
    /// The watches that became ready in the last poll, with what they found (kept storage).
    @exclusivity(unchecked) private var ready: [(id: Int, events: DescriptorEvents)] = []

    /// Whether no descriptor waits for anything (then the loop polls libcurl's alone).
    var isEmpty: Bool {
        refresh()
        return polled.isEmpty
    }

    func add(_ fd: Int32, events: DescriptorEvents, handler: @escaping (DescriptorEvents) -> Void) -> Int {
        let id = nextID
        nextID += 1
        watches[id] = Watch(fd: fd, events: events, handler: handler)
        changed = true
        return id
    }

    /// Sets what the watch `id` waits for; false when there is no such watch.
    @discardableResult
    func setEvents(_ id: Int, _ events: DescriptorEvents) -> Bool {
        guard let watch = watches[id] else { return false }
        if watch.events != events {
            watches[id]?.events = events
            changed = true
        }
        return true
    }

    func remove(_ id: Int) {
        if watches.removeValue(forKey: id) != nil { changed = true }
    }

    func removeAll() {
        watches.removeAll()
        changed = true
    }

    /// Runs `poll` on the array of descriptors with wanted events (their `revents` cleared:
    /// libcurl 7.88 leaves them as they were when nothing happened), then each ready
    /// descriptor's handler with what was found. A handler may add, change or remove watches;
    /// one removed by an earlier handler of the same round does not run.
    func poll(_ poll: (UnsafeMutablePointer<curl_waitfd>, UInt32) -> Void) {
        refresh()
        polled.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index].revents = 0 }
            poll(buffer.baseAddress!, UInt32(buffer.count))
        }
        for (index, entry) in polled.enumerated() where entry.revents != 0 {
            ready.append((polledIDs[index], DescriptorEvents(rawValue: entry.revents)))
        }
        for index in ready.indices {
            let (id, events) = ready[index]
            guard let watch = watches[id] else { continue }
            watch.handler(events)
        }
        ready.removeAll(keepingCapacity: true)
    }

    private func refresh() {
        guard changed else { return }
        changed = false
        polled.removeAll(keepingCapacity: true)
        polledIDs.removeAll(keepingCapacity: true)
        for (id, watch) in watches where !watch.events.isEmpty {
            polled.append(curl_waitfd(fd: watch.fd, events: watch.events.rawValue, revents: 0))
            polledIDs.append(id)
        }
    }
}
