import CJansson

extension JSONNode {
    /// Walks this node and everything under it, depth first and in order (an object's
    /// members in Jansson's order, insertion order), without copying: `enter` gets each node
    /// with its member name when it is an object's member (the name's bytes in place, valid
    /// while the tree lives), and after an object's or an array's last child `leave` gets
    /// that object or array. Either returns false to stop the walk.
    /// - Returns: true when every node was visited; false when a visitor stopped the walk.
    package func walk(enter: (_ key: UnsafeBufferPointer<CChar>?, _ node: JSONNode) -> Bool,
                     leave: (_ node: JSONNode) -> Bool) -> Bool {
        visit(key: nil, enter: enter, leave: leave)
    }

    private func visit(key: UnsafeBufferPointer<CChar>?, enter: (UnsafeBufferPointer<CChar>?, JSONNode) -> Bool,
                       leave: (JSONNode) -> Bool) -> Bool {
        guard enter(key, self) else { return false }
        switch kind {
        case .array:
            for index in 0..<json_array_size(pointer) {
                guard JSONNode(json_array_get(pointer, index)!, owner: owner).visit(key: nil, enter: enter, leave: leave)
                else { return false }
            }
        case .object:
            var iterator = json_object_iter(pointer)
            while let it = iterator {
                let name = UnsafeBufferPointer(start: json_object_iter_key(it), count: json_object_iter_key_len(it))
                guard JSONNode(json_object_iter_value(it), owner: owner).visit(key: name, enter: enter, leave: leave)
                else { return false }
                iterator = json_object_iter_next(pointer, it)
            }
        default:
            return true
        }
        return leave(self)
    }
}
