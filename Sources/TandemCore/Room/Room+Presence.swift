extension Room {
    /// Adds `client` to the room and returns its welcome and the `joined` effect.
    ///
    /// The welcome carries every control's committed state and everyone in the
    /// room, the newcomer included; the newcomer's frames start after it.
    public mutating func join(_ client: ClientID, name: String, role: Role = .editor, at now: Moment) -> (Welcome, [Effect]) {
        var effects = expire(at: now)
        if members[client] != nil { effects += leave(client, at: now) }
        let used = Set(members.values.map(\.peer.color))
        let color = Peer.palette.first { !used.contains($0) } ?? Peer.palette[joinCount % Peer.palette.count]
        joinCount += 1
        let peer = Peer(client: client, name: Peer.displayName(name), color: color)
        let stamp = log.touch(.peer(client))
        members[client] = Member(peer: peer, role: role, cursor: stamp, joinedAt: stamp, bucket: TokenBucket(burst: limits.burst))
        departed[client] = nil
        effects.append(.joined(peer))
        return (welcome(for: client), effects)
    }

    /// Removes `client`: its gestures are cancelled for everyone, and others are told it left.
    public mutating func leave(_ client: ClientID, at now: Moment) -> [Effect] {
        var effects = expire(at: now)
        guard let member = members[client] else { return effects }
        for s in member.holds.sorted() {
            finish(slot: s, phase: .cancel, into: &effects)
        }
        members[client] = nil
        departed[client] = member.joinedAt
        log.touch(.peer(client))
        effects.append(.left(client))
        forgetDeparted()
        return effects
    }

    /// What a client sees on arrival, without the client-specific fields when `client` is nil.
    public func welcome(for client: ClientID?) -> Welcome {
        Welcome(
            client: client, room: schema.id, title: schema.title, revision: revision,
            controls: schema.controls.indices.map {
                ControlSnapshot(control: schema.controls[$0], state: committed[$0], revision: revisions[$0], by: committedBy[$0])
            },
            peers: peers,
            gestures: slots.compactMap(\.liveEntry)
        )
    }

    /// The room as the HTTP API shows it: the welcome body without client fields.
    public var snapshot: Welcome { welcome(for: nil) }

    /// Drops departed peers every member has been told about, so the log stays
    /// bounded by the people present; amortised over many departures.
    private mutating func forgetDeparted() {
        guard departed.count > 32 + members.count else { return }
        let oldest = members.values.map(\.cursor).min() ?? log.stamp
        for (client, _) in departed {
            if let stamp = log.stamp(of: .peer(client)), stamp <= oldest {
                log.remove(.peer(client))
                departed[client] = nil
            }
        }
    }
}

/// What a client receives first: the whole room as it is now.
public struct Welcome: Sendable, Hashable {
    /// The newcomer's id; `nil` in the HTTP API's view of a room.
    public var client: ClientID?
    /// The room's id.
    public var room: String
    /// The room's title.
    public var title: String
    /// The room revision.
    public var revision: Int
    /// Every control, in order, with its committed state.
    public var controls: [ControlSnapshot]
    /// Everyone in the room, in the order they joined.
    public var peers: [Peer]
    /// The latest entry of every live gesture, so a newcomer sees drags in progress.
    public var gestures: [GestureEntry]
}

/// One control with its committed state, as a welcome carries it.
public struct ControlSnapshot: Sendable, Hashable {
    /// The control's schema.
    public var control: Control
    /// Its committed state.
    public var state: ControlState
    /// The room revision of its last commit (0: never committed).
    public var revision: Int
    /// Who made its last commit.
    public var by: ClientID?
}
