extension Room {
    /// Adds `client` to the room and returns its welcome and the `joined` effect.
    ///
    /// The welcome carries every control's committed state and the people
    /// announced in the room, the newcomer included when it is announced; the
    /// newcomer's frames start after it. Past `limits.presence` announced
    /// people the newcomer joins quietly: nobody is told (no effect), it is
    /// only counted in `present`.
    ///
    /// A member joined with `takesFrames: false` (an OSC writer) is a member
    /// like any other for the room's rules, but is sent nothing: its answers
    /// are the effects of what it does.
    ///
    /// A view (`RoomView`) has no `join`: it takes members only from its authority.
    public mutating func join(_ client: ClientID, name: String, role: Role = .editor, takesFrames: Bool = true,
                              at now: Moment) -> (Welcome, [Effect]) {
        var effects = expire(at: now)
        if members[client] != nil { effects += leave(client, at: now) }
        let announce = announced.count < limits.presence
        let color: String
        if announce {
            let used = Set(peers.map(\.color))
            color = Peer.palette.first { !used.contains($0) } ?? Peer.palette[joinCount % Peer.palette.count]
        } else {
            color = Peer.palette[joinCount % Peer.palette.count]
        }
        joinCount += 1
        let peer = Peer(client: client, name: Peer.displayName(name), color: color)
        let stamp = announce ? log.touch(.peer(client)) : log.stamp
        var member = Member(peer: peer, role: role, cursor: stamp, joinedAt: stamp, announced: announce,
                            bucket: TokenBucket(burst: limits.burst))
        member.presentSeen = present + 1
        member.takesFrames = takesFrames
        members[client] = member
        if announce {
            announced.append(client)
            effects.append(.joined(peer))
        } else {
            quiet.append(client)
        }
        return (welcome(for: client), effects)
    }

    /// Removes `client`: its gestures are cancelled for everyone, and others
    /// are told it left (when it was announced; then the longest-waiting quiet
    /// member, if any, is announced in its place).
    public mutating func leave(_ client: ClientID, at now: Moment) -> [Effect] {
        var effects = expire(at: now)
        guard let member = members[client] else { return effects }
        for s in member.holds.sorted() {
            finish(slot: s, phase: .cancel, into: &effects)
        }
        endClaims(of: client, into: &effects) // Room+Claims.swift
        members[client] = nil
        guard member.announced else { return effects }
        announced.removeAll { $0 == client }
        // Kept through a rejoin under the same id (and the earliest of its
        // announcements), so whoever knew any of its stays hears it left.
        departed[client] = Swift.min(departed[client] ?? member.joinedAt, member.joinedAt)
        log.touch(.peer(client))
        effects.append(.left(client))
        announceNextQuiet(into: &effects)
        forgetDeparted()
        return effects
    }

    /// Announces the longest-waiting quiet member, if any is still here.
    private mutating func announceNextQuiet(into effects: inout [Effect]) {
        while quietHead < quiet.count, announced.count < limits.presence {
            let id = quiet[quietHead]
            quietHead += 1
            guard var member = members[id], !member.announced else { continue }
            member.announced = true
            member.joinedAt = log.touch(.peer(id))
            members[id] = member
            announced.append(id)
            effects.append(.joined(member.peer))
            break
        }
        if quietHead >= 1024, quietHead * 2 >= quiet.count {
            quiet.removeFirst(quietHead)
            quietHead = 0
        }
    }

    /// Makes every member whose last frame told it another number of people
    /// present due a frame carrying `present`. Quiet arrivals and departures
    /// wake nobody; a server calls this now and then (Tandem: at most every
    /// 2 s while the count has changed) so that an idle room's count catches up.
    public mutating func refreshPresence() {
        log.touch(.presence)
    }

    /// What a client sees on arrival, without the client-specific fields when `client` is nil.
    public func welcome(for client: ClientID?) -> Welcome {
        Welcome(
            client: client, role: client.flatMap { members[$0]?.role }, room: schema.id, title: schema.title, layout: schema.layout, revision: revision,
            controls: schema.controls.indices.map {
                ControlSnapshot(control: schema.controls[$0], state: committed[$0], revision: revisions[$0], by: committedBy[$0],
                                claim: claimedBy[$0])
            },
            peers: peers,
            gestures: slots.compactMap(\.liveEntry),
            present: present
        )
    }

    /// The room as the HTTP API shows it: the welcome body without client fields.
    public var snapshot: Welcome { welcome(for: nil) }

    /// Drops departed peers every member has been told about, so the log stays
    /// bounded by the people present; amortised over many departures (a
    /// member that takes no frames is never told, and waits for nobody). An
    /// authority's members never take frames: there, a departure is told once
    /// a delta carried it (`publishDelta`). A view's remote peers are not its
    /// members and hold nothing back.
    mutating func forgetDeparted() {
        guard departed.count > 32 + members.count else { return }
        let oldest = mode == .authority ? publishBase : members.values.filter(\.takesFrames).map(\.cursor).min() ?? log.stamp
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
    /// What the newcomer may do; `nil` in the HTTP API's view of a room.
    public var role: Role?
    /// The room's id.
    public var room: String
    /// The room's title.
    public var title: String
    /// The room's first layout in the web client.
    public var layout: RoomLayout
    /// The room revision.
    public var revision: Int
    /// Every control, in order, with its committed state.
    public var controls: [ControlSnapshot]
    /// The people announced in the room, in the order they were announced
    /// (everyone, up to `RoomLimits.presence`).
    public var peers: [Peer]
    /// The latest entry of every live gesture, so a newcomer sees drags in progress.
    public var gestures: [GestureEntry]
    /// How many people are in the room, announced or not.
    public var present: Int
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
    /// Who claims it now, if anyone.
    public var claim: ClientID? = nil
}
