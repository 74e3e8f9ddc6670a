/// The rooms this server serves: each room's host by id, in the order the
/// rooms were first listed (built-in rooms, then room files, then rooms made
/// over the admin API), which is the lobby's order. Both kinds of rooms
/// (local and replicated) keep theirs here; the transport finds a room here.
final class RoomTable {
    private var hosts: [String: RoomHost] = [:]
    /// The ids, in listing order.
    private(set) var order: [String] = []
    /// The ids of the built-in rooms, which the admin API does not delete.
    let builtIn: Set<String>
    /// Per room, the room revision at which its schema last changed while this
    /// process ran (or at this start): a `since` at or below it gets a full welcome.
    var schemaChangedAt: [String: Int] = [:]

    init(builtIn: Set<String>) {
        self.builtIn = builtIn
    }

    /// The host of room `id`. Setting a new id lists it last; setting `nil` unlists it.
    subscript(id: String) -> RoomHost? {
        get { hosts[id] }
        set {
            if let newValue {
                if hosts.updateValue(newValue, forKey: id) == nil { order.append(id) }
            } else if hosts.removeValue(forKey: id) != nil {
                order.removeAll { $0 == id }
            }
        }
    }

    /// Every room's host, in no particular order.
    var values: Dictionary<String, RoomHost>.Values { hosts.values }

    var count: Int { hosts.count }
}
