import TandemCore

/// What one client has learned from its welcome and the frames it took,
/// as a browser would keep it.
struct ClientView {
    var role: Role
    var controls: [ControlState]
    var revision: Int
    var ack = 0
    /// The highest `seq` this client sent (what its `ack` may reach).
    var lastSent = 0
    /// Who holds which thumb, keyed `control/thumb`, from gesture entries.
    var ghosts: [String: ClientID]
    /// The other people it was told about.
    var peers: Set<ClientID>

    init(_ welcome: Welcome, role: Role) {
        self.role = role
        controls = welcome.controls.map(\.state)
        revision = welcome.revision
        ghosts = Dictionary(welcome.gestures.map { (holdKey($0), $0.by) }, uniquingKeysWith: { _, last in last })
        peers = Set(welcome.peers.map(\.client))
    }
}

/// `control/thumb`: the unit one gesture holds.
func holdKey(_ entry: GestureEntry) -> String {
    "\(entry.controlIndex)/\(entry.thumb.rawValue)"
}
