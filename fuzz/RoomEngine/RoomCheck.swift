import TandemCore
import TandemWire

/// The room under test and what its effects so far say it must hold.
///
/// After every call into the room, `after` checks:
/// - every control's committed and displayed state keeps every invariant
///   (`requireValid`: bounds, grids, a range's lower + minGap <= upper inside
///   operable, snap index valid and value == values[index], colour hex ==
///   channels), and so does every state in a commit or gesture entry;
/// - revisions never go back: each commit makes exactly the next revision,
///   and replaying the commits gives the committed states, revisions and authors;
/// - at most one holder per thumb: gesture entries never hand a held thumb to
///   someone else without its end or cancel, and the room's live gestures are
///   exactly the ones the entries say, each held by someone present;
/// - a reject changes nothing: no commit, same states and revision, and no
///   hold taken or released except by a lapse; a `busy` names a real holder;
/// - ordering, rate and role: a seq that does not increase is `bad_message`
///   without an ack, every other message of a member is acked once, a
///   viewer's writes are refused;
/// - presence: the peers announced are the ones the joined/left effects say.
/// Frames (`read`, `requireCaughtUp`) are checked as a client would take them.
struct RoomCheck {
    var room: Room
    var revision: Int
    var replay: [ControlState]
    var revisions: [Int]
    var authors: [ClientID?]
    /// Who holds which thumb, keyed `control/thumb`.
    var holders: [String: ClientID] = [:]
    var announced: Set<ClientID> = []
    /// Each member's last acked seq.
    var acks: [ClientID: Int] = [:]

    init(_ room: Room) {
        self.room = room
        revision = room.revision
        replay = room.committed
        revisions = room.revisions
        authors = room.committedBy
        for (i, control) in room.schema.controls.enumerated() {
            requireValid(room.committed[i], of: control, "initial state")
        }
    }

    var schema: RoomSchema { room.schema }

    /// Checks the room after a call that returned `effects`.
    ///
    /// `from` is the sender (nil for joins, leaves and lapses); for a member's
    /// message, `role`, `sent` (its seq) and `lastSent` (the highest before it).
    mutating func after(_ effects: [Effect], what: @autoclosure () -> String, from: ClientID?, role: Role? = nil,
                        sent: Int? = nil, lastSent: Int = 0, refused: Bool = false) {
        trace("\(what()) -> \(effects)")
        let before = replay
        let revisionBefore = revision
        let holdersBefore = holders
        var cancelled: Set<String> = []
        var commits = 0
        var rejects: [Reject] = []
        var acked: [Int] = []
        var lastClaim: [Int: ClientID?] = [:]
        for effect in effects {
            switch effect {
            case let .commit(commit):
                commits += 1
                revision += 1
                require(commit.revision == revision, "\(what()): commit made revision \(commit.revision), expected \(revision)")
                let control = schema.controls[commit.controlIndex]
                require(commit.control == control.id, "\(what()): commit names \(commit.control) for \(control.id)")
                requireValid(commit.state, of: control, "\(what()): commit")
                replay[commit.controlIndex] = commit.state
                revisions[commit.controlIndex] = commit.revision
                authors[commit.controlIndex] = commit.by
            case let .gesture(entry):
                let control = schema.controls[entry.controlIndex]
                require(entry.control == control.id, "\(what()): gesture entry names \(entry.control) for \(control.id)")
                require(control.has(entry.thumb), "\(what()): gesture on \(control.id) thumb \(entry.thumb)")
                requireValid(entry.state, of: control, "\(what()): gesture entry \(entry.phase)")
                let key = holdKey(entry)
                switch entry.phase {
                case .begin, .move:
                    if let holder = holders[key] {
                        require(holder == entry.by, "\(what()): \(entry.by) took \(key) while \(holder) held it")
                    }
                    holders[key] = entry.by
                case .end, .cancel:
                    require(holders[key] == entry.by, "\(what()): \(entry.by) ended \(key), held by \(String(describing: holders[key]))")
                    holders[key] = nil
                    if entry.phase == .cancel { cancelled.insert(key) }
                }
            case let .reject(reject):
                rejects.append(reject)
                require(reject.to == from, "\(what()): a reject for \(reject.to)")
                if reject.code == .busy {
                    require(reject.holder.map { Set(holders.values).contains($0) } == true,
                            "\(what()): busy names \(String(describing: reject.holder)), holders are \(holders)")
                } else {
                    require(reject.holder == nil, "\(what()): a \(reject.code) reject names a holder")
                }
            case let .ack(client, seq):
                require(client == from, "\(what()): an ack for \(client)")
                acked.append(seq)
                acks[client] = seq
            case let .joined(peer):
                announced.insert(peer.client)
            case let .left(client):
                require(announced.remove(client) != nil, "\(what()): \(client) left without having been announced")
            case let .claim(index, holder):
                require(schema.controls.indices.contains(index), "\(what()): a claim of control \(index)")
                lastClaim[index] = holder // a lapse then a new claim in one call: the last one stands
            case let .presence(peer):
                require(announced.contains(peer.client), "\(what()): a presence change of \(peer.client), who is not announced")
            }
        }

        // The room is what the effects say.
        for (index, holder) in lastClaim {
            require(room.claimedBy[index] == holder, "\(what()): the last claim effect says \(String(describing: holder)), the room \(String(describing: room.claimedBy[index]))")
        }
        require(room.revision == revision, "\(what()): room at revision \(room.revision), commits say \(revision)")
        require(room.committed == replay, "\(what()): replaying the commits gives \(replay), committed is \(room.committed)")
        require(room.revisions == revisions, "\(what()): control revisions \(room.revisions), commits say \(revisions)")
        require(room.committedBy == authors, "\(what()): authors \(room.committedBy), commits say \(authors)")
        for (i, control) in schema.controls.enumerated() {
            require(room.revisions[i] <= room.revision, "\(what()): \(control.id) at revision \(room.revisions[i]) past the room's")
            requireValid(room.committed[i], of: control, "\(what()): committed")
            requireValid(room.displayed(i), of: control, "\(what()): displayed")
        }
        requireHolders(what())
        require(Set(room.peers.map(\.client)) == announced, "\(what()): peers \(room.peers.map(\.client)), effects say \(announced)")
        require(room.peers.count <= room.limits.presence, "\(what()): \(room.peers.count) announced past the limit \(room.limits.presence)")
        require(room.present == room.memberCount && room.present >= room.peers.count, "\(what()): present \(room.present)")

        // A reject changes nothing but what a lapse at the same moment does.
        require(rejects.count <= 1, "\(what()): \(rejects.count) rejects for one message")
        if !rejects.isEmpty {
            require(commits == 0, "\(what()): a rejected message committed")
            require(room.committed == before && room.revision == revisionBefore, "\(what()): a rejected message changed state")
            for (key, holder) in holdersBefore where holders[key] != holder {
                require(holders[key] == nil && cancelled.contains(key), "\(what()): a rejected message moved the hold on \(key)")
            }
            require(holders.keys.allSatisfy { holdersBefore[$0] != nil }, "\(what()): a rejected message took a hold")
        }

        // Ordering, ack, role.
        if let sent, let from {
            if sent <= lastSent {
                require(acked.isEmpty && rejects.map(\.code) == [.badMessage],
                        "\(what()): seq \(sent) after \(lastSent) was not refused as bad_message: \(effects)")
            } else {
                require(acked == [sent], "\(what()): acked \(acked) for seq \(sent)")
                if role == .viewer {
                    require(commits == 0 && rejects.count == 1 && [.forbidden, .rateLimited].contains(rejects[0].code),
                            "\(what()): a viewer's message was not refused: \(effects)")
                }
            }
            require(room.contains(from), "\(what()): the sender left")
        } else if refused {
            require(rejects.count == 1 && [.badMessage, .badValue].contains(rejects[0].code), "\(what()): \(effects)")
        } else if from != nil {
            require(acked.isEmpty, "\(what()): the write API was acked")
        }
    }

    /// The room's live gestures, as a welcome lists them, are the ones the entries say.
    private func requireHolders(_ what: @autoclosure () -> String) {
        let live = room.welcome(for: nil).gestures
        var seen: [String: ClientID] = [:]
        for entry in live {
            let key = holdKey(entry)
            require(seen[key] == nil, "\(what()): two live gestures on \(key)")
            seen[key] = entry.by
            require(room.contains(entry.by), "\(what()): \(entry.by) holds \(key) but is not in the room")
            require(entry.phase == .begin || entry.phase == .move, "\(what()): a live gesture in phase \(entry.phase)")
        }
        require(seen == holders, "\(what()): live gestures \(seen), entries say \(holders)")
    }

    /// A newcomer's welcome is the room as it is, and encodes to valid JSON.
    mutating func requireWelcome(_ welcome: Welcome, for client: ClientID) {
        acks[client] = nil
        require(welcome.client == client, "the welcome of \(client) names \(String(describing: welcome.client))")
        require(welcome.controls.map(\.state) == room.committed, "the welcome of \(client) shows other states")
        require(welcome.controls.map(\.revision) == room.revisions, "the welcome of \(client) shows other revisions")
        require(welcome.revision == room.revision && welcome.present == room.present, "the welcome of \(client) is out of date")
        require(welcome.peers == room.peers, "the welcome of \(client) lists \(welcome.peers), the room \(room.peers)")
        for peer in room.peers {
            require(!peer.name.isEmpty && !peer.name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                    "display name \(peer.name.debugDescription) is empty or has control characters")
        }
        let bytes = OutboundEncoder.welcome(welcome)
        require((try? JSONParser.parse(bytes)) != nil, "the welcome is not JSON: \(String(decoding: bytes, as: UTF8.self))")
    }

    /// Takes one frame into `view`, checking it as the client would.
    func read(_ frame: Frame, into view: inout ClientView, for client: ClientID, encoder: inout UpdateEncoder) {
        let bytes = encoder.encode(frame)
        require((try? JSONParser.parse(bytes)) != nil, "a frame for \(client) is not JSON: \(String(decoding: bytes, as: UTF8.self))")
        switch frame {
        case let .reject(reject):
            require(reject.to == client, "\(client) got a reject for \(reject.to)")
            require(reject.seq <= view.lastSent, "\(client) got a reject for seq \(reject.seq), never sent")
        case let .update(update):
            require(update.revision >= view.revision, "\(client) saw revision go back from \(view.revision) to \(update.revision)")
            require(update.revision <= room.revision, "\(client) saw revision \(update.revision) past the room's \(room.revision)")
            require(update.ack >= view.ack && update.ack <= view.lastSent, "\(client) got ack \(update.ack) after \(view.ack), sent \(view.lastSent)")
            view.revision = update.revision
            view.ack = update.ack
            for change in update.changes {
                let control = schema.controls[change.controlIndex]
                require(change.control == control.id && change.revision <= update.revision, "\(client) got change \(change)")
                requireValid(change.state, of: control, "a change for \(client)")
                view.controls[change.controlIndex] = change.state
            }
            for stamped in update.gestures {
                let entry = stamped.entry
                requireValid(entry.state, of: schema.controls[entry.controlIndex], "a gesture entry for \(client)")
                switch entry.phase {
                case .begin, .move: view.ghosts[holdKey(entry)] = entry.by
                case .end, .cancel: view.ghosts[holdKey(entry)] = nil
                }
            }
            for peer in update.joined {
                require(peer.client != client, "\(client) was told it joined")
                view.peers.insert(peer.client)
            }
            for gone in update.left { view.peers.remove(gone) }
        }
    }

    /// A client that took every frame knows exactly what the room holds.
    func requireCaughtUp(_ view: ClientView, _ client: ClientID) {
        guard !room.withholdingFrames else { return }
        require(!room.hasPendingFrame(for: client), "\(client) took every frame but one is pending")
        require(view.controls == room.committed, "\(client) sees \(view.controls), committed is \(room.committed)")
        require(view.revision == room.revision, "\(client) saw revision \(view.revision), the room is at \(room.revision)")
        // A reject dropped (more than `pendingRejects` waiting) stops the ack below it for good:
        // the ack never stands for a refused message whose reject was not sent.
        let acked = acks[client, default: 0]
        let dropped = room.droppedRejects(for: client) > 0
        let expected = dropped ? (room.sentAck(of: client) ?? 0) : acked
        require(expected <= acked, "\(client)'s ack is held at \(expected), above the \(acked) the room acked")
        require(view.ack == expected, "\(client) was acked \(view.ack), the room acked \(acked)\(dropped ? " (held at \(expected) by a dropped reject)" : "")")
        require(view.ghosts == holders, "\(client) sees ghosts \(view.ghosts), live gestures are \(holders)")
        var others = announced
        others.remove(client)
        var known = view.peers
        known.remove(client)
        require(known == others, "\(client) knows peers \(known), announced are \(others)")
    }
}
