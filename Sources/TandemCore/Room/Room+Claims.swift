/// Claims: "only I move this until I let go of it" (docs/protocol.md, "Claims").
///
/// A member claims a control; until the claim ends, every write of anyone
/// else that would touch it — a drag, a `set`, a `step`, a reset, an undo or
/// redo, a batch (a preset's recall, a restore, a room's reset) — is refused
/// `claimed`, naming the holder. The holder's own writes go on and keep the
/// claim fresh. A claim ends when its holder releases it or leaves, when an
/// admin releases it, or when its holder has not touched the control for
/// `limits.claimTimeout` seconds. Claims are not edits: nothing to undo.
extension Room {
    /// `claim` of control `c` by `client` at `now`.
    mutating func claim(_ c: Int, by client: ClientID, at now: Moment, into effects: inout [Effect]) throws {
        let control = schema.controls[c]
        if case .gauge = control.kind { throw Refusal(.readOnly, "'\(control.id)' is a gauge: a program publishes it, nobody claims it") }
        guard members[client] != nil else { throw Refusal(.badMessage, "a claim needs a connection: it ends when its holder leaves") }
        try requireUnclaimed(c, by: client)
        for s in slotRange(c) {
            if let holder = slots[s].live?.holder, holder != client {
                throw Refusal(.busy, "'\(control.id)' \(slots[s].thumb.rawValue) is held by \(holder)", holder: holder)
            }
        }
        claimHeard[c] = now
        guard claimedBy[c] != client else { return } // claimed again: only fresher
        claimedBy[c] = client
        log.touch(.control(c))
        effects.append(.claim(controlIndex: c, holder: client))
    }

    /// `release` of control `c` by `client`: its holder's, or an admin's of
    /// anyone's. A sender with no connection is the HTTP API, which only
    /// admins may ask to release (`DELETE …/controls/{control}/claim`: the
    /// server checks the role before the room sees it).
    mutating func release(_ c: Int, by client: ClientID, into effects: inout [Effect]) throws {
        guard let holder = claimedBy[c] else { return } // nothing to release: acknowledged, not refused
        if holder != client, let role = members[client]?.role, role != .admin {
            throw Refusal(.claimed, "'\(schema.controls[c].id)' is claimed by \(holder): only they or an admin may release it", holder: holder)
        }
        endClaim(c, into: &effects)
    }

    /// Refused `claimed` when someone other than `client` claims control `c`.
    func requireUnclaimed(_ c: Int, by client: ClientID) throws {
        guard let holder = claimedBy[c], holder != client else { return }
        throw Refusal(.claimed, "'\(schema.controls[c].id)' is claimed by \(holder)", holder: holder)
    }

    /// The holder wrote to control `c`: its claim stays fresh.
    mutating func touchClaim(_ c: Int, by client: ClientID, at now: Moment) {
        if claimedBy[c] == client { claimHeard[c] = now }
    }

    /// Ends every claim of `client` (it left).
    mutating func endClaims(of client: ClientID, into effects: inout [Effect]) {
        for c in claimedBy.indices where claimedBy[c] == client { endClaim(c, into: &effects) }
    }

    /// Ends the claims whose holder has been silent on them for `limits.claimTimeout` by `now`.
    mutating func expireClaims(at now: Moment, into effects: inout [Effect]) {
        for c in claimedBy.indices where claimedBy[c] != nil && now.seconds(since: claimHeard[c]) >= limits.claimTimeout {
            endClaim(c, into: &effects)
        }
    }

    /// When the earliest claim will lapse, if any is held.
    var nextClaimLapse: Moment? {
        claimedBy.indices.filter { claimedBy[$0] != nil }.map { claimHeard[$0].adding(seconds: limits.claimTimeout) }.min()
    }

    private mutating func endClaim(_ c: Int, into effects: inout [Effect]) {
        claimedBy[c] = nil
        log.touch(.control(c))
        effects.append(.claim(controlIndex: c, holder: nil))
    }
}
