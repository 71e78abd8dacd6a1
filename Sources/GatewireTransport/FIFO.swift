/// A first-in first-out list: an array and the index of its head, compacted as the head
/// moves, so a push and a pop are O(1) amortised (no shifting of the array per pop). Not
/// thread-safe: its owner's lock or thread guards it.
struct FIFO<Element> {
    private var items: [Element?] = []
    private var head = 0

    /// Whether nothing is left to pop.
    var isEmpty: Bool { head == items.count }

    /// Appends `element` at the end.
    mutating func push(_ element: Element) { items.append(element) }

    /// Takes the oldest element out; nil when empty.
    mutating func pop() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        items[head] = nil
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Calls `body` with each element still in the list, oldest first.
    func forEach(_ body: (Element) -> Void) {
        for case let element? in items[head...] { body(element) }
    }

    /// Empties the list (freeing its storage); returns what was in it, oldest first.
    mutating func removeAll() -> [Element] {
        let left = items[head...].compactMap { $0 }
        items.removeAll()
        head = 0
        return left
    }
}
