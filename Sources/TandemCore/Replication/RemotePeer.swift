/// An announced person that a view shows but another node serves: the view's
/// members see it join and leave, and the view never sends it a frame.
struct RemotePeer: Sendable, Hashable {
    /// How the room shows it.
    var peer: Peer
    /// The view's log stamp at which it was announced there: whoever the view
    /// told about it (a cursor at or past this) is told when it leaves.
    var joinedAt: UInt64
}
