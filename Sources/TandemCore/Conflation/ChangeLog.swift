/// What changed in a room, each thing once, ordered by when it last changed.
///
/// This is the conflation data structure. Every item that a frame can carry —
/// a control's committed state, a thumb's live gesture, a thumb's last ended
/// gesture, a peer — has one node, stamped with a number that grows with every
/// change and moved to the tail when it changes. A recipient remembers only the
/// stamp of its last frame (its cursor); its next frame carries the items after
/// that stamp, read from the room as they are *now*. So a thousand moves while
/// a client is slow cost it nothing: it gets the latest of each item, and its
/// memory is one integer, whatever the number of messages or its backlog.
/// Collecting a frame walks back from the tail only over what changed.
struct ChangeLog: Sendable {
    /// Something a frame can carry.
    enum Item: Sendable, Hashable {
        case control(Int)
        case endedGesture(slot: Int)
        case liveGesture(slot: Int)
        case peer(ClientID)
        /// The number of people present changed (see `Room.refreshPresence`).
        case presence
        /// The room's latest batch note (`Room.lastBatch`).
        case batch
    }

    private struct Node: Sendable {
        var item: Item
        var stamp: UInt64 = 0
        var prev = -1
        var next = -1
        var linked = false
    }

    /// The stamp of the latest change; a recipient whose cursor equals it is up to date.
    private(set) var stamp: UInt64 = 0
    private var nodes: [Node] = []
    private var head = -1
    private var tail = -1
    private let controlCount: Int
    private let slotCount: Int
    private var peerNodes: [ClientID: Int] = [:]
    private var freeNodes: [Int] = []

    init(controls: Int, slots: Int) {
        controlCount = controls
        slotCount = slots
        for c in 0..<controls { nodes.append(Node(item: .control(c))) }
        for s in 0..<slots { nodes.append(Node(item: .endedGesture(slot: s))) }
        for s in 0..<slots { nodes.append(Node(item: .liveGesture(slot: s))) }
        nodes.append(Node(item: .presence))
        nodes.append(Node(item: .batch))
    }

    /// Marks `item` changed now and returns its new stamp.
    @discardableResult
    mutating func touch(_ item: Item) -> UInt64 {
        let n = node(for: item)
        unlink(n)
        stamp += 1
        nodes[n].stamp = stamp
        nodes[n].prev = tail
        nodes[n].next = -1
        if tail >= 0 { nodes[tail].next = n } else { head = n }
        tail = n
        nodes[n].linked = true
        return stamp
    }

    /// Takes `item` out of the log: frames stop carrying it (a live gesture that ended).
    mutating func remove(_ item: Item) {
        if case let .peer(id) = item {
            guard let n = peerNodes.removeValue(forKey: id) else { return }
            unlink(n)
            freeNodes.append(n)
        } else {
            unlink(fixedNode(for: item))
        }
    }

    /// The items changed after `cursor`, oldest first.
    func items(after cursor: UInt64) -> [Item] {
        var out: [Item] = []
        var n = tail
        while n >= 0, nodes[n].stamp > cursor {
            out.append(nodes[n].item)
            n = nodes[n].prev
        }
        return out.reversed()
    }

    /// The stamp at which `item` last changed, if it is in the log.
    func stamp(of item: Item) -> UInt64? {
        if case let .peer(id) = item {
            return peerNodes[id].map { nodes[$0].stamp }
        }
        let n = fixedNode(for: item)
        return nodes[n].linked ? nodes[n].stamp : nil
    }

    /// How many nodes the log holds: bounded by controls, thumbs and peers.
    var nodeCount: Int { nodes.count - freeNodes.count }

    private mutating func node(for item: Item) -> Int {
        switch item {
        case let .peer(id):
            if let n = peerNodes[id] { return n }
            let n: Int
            if let reused = freeNodes.popLast() {
                n = reused
                nodes[n] = Node(item: item)
            } else {
                n = nodes.count
                nodes.append(Node(item: item))
            }
            peerNodes[id] = n
            return n
        default:
            return fixedNode(for: item)
        }
    }

    private func fixedNode(for item: Item) -> Int {
        switch item {
        case let .control(c): c
        case let .endedGesture(s): controlCount + s
        case let .liveGesture(s): controlCount + slotCount + s
        case .presence: controlCount + 2 * slotCount
        case .batch: controlCount + 2 * slotCount + 1
        case .peer: -1
        }
    }

    private mutating func unlink(_ n: Int) {
        guard n >= 0, nodes[n].linked else { return }
        let (p, q) = (nodes[n].prev, nodes[n].next)
        if p >= 0 { nodes[p].next = q } else { head = q }
        if q >= 0 { nodes[q].prev = p } else { tail = p }
        nodes[n].prev = -1
        nodes[n].next = -1
        nodes[n].linked = false
    }
}
