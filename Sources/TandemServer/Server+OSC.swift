import CLibWebSockets
import CTandemShim
import Glibc
import TandemCore
import TandemOSC
import TandemOSCLink
import TandemStorage

/// The OSC bridge (docs/osc.md): commits, previews and dumps out to every
/// `--osc-send` target; sets and steps in on `--osc-listen`, applied by the
/// room from a member named `osc` under the same rules as any client.
extension Server {
    // MARK: start and stop

    /// Opens the bridge's sockets and hands the listening one to lws' loop
    /// (as a raw descriptor: lws polls it and calls back when it is readable).
    func startOSC(vhost: OpaquePointer) throws(ServerError) {
        guard config.osc.isEnabled else { return }
        let bridge = try OSCBridge(settings: config.osc)
        bridge.timer.pointee.context = context
        bridge.timer.pointee.fire = { Server.owning($0)?.oscTimerFired() }
        bridge.sendFailed = { [unowned self] target, reason in
            self.throttled("osc-send-failed", .warn, "osc: cannot send to \(target): \(reason)")
        }
        if let receiver = bridge.receiver {
            // Room for a burst of datagrams while the loop is busy elsewhere (the kernel caps it at net.core.rmem_max).
            var size: Int32 = 4 << 20
            setsockopt(receiver.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            // lws closes what it adopted; the receiver keeps its own descriptor.
            let copy = dup(receiver.fd)
            guard copy >= 0, lws_adopt_descriptor_vhost(vhost, LWS_ADOPT_RAW_FILE_DESC, lws_sock_file_fd_type(filefd: copy),
                                                        protocolName, nil) != nil else {
                if copy >= 0 { Glibc.close(copy) }
                throw ServerError(description: "--osc-listen: the event loop would not watch the OSC socket")
            }
        }
        osc = bridge
    }

    /// The start lines (local rooms send every room's dump as they start;
    /// replicated rooms, the owner when it takes the room).
    func announceOSC() {
        guard let osc else { return }
        if let listening = osc.listening {
            log.always("osc listening on \(listening) (writers from loopback\(osc.settings.allow.isEmpty ? "" : " and " + osc.settings.allow.map(\.description).joined(separator: ", ")))")
        }
        for target in osc.targetNames {
            log.always("osc sending to \(target)\(osc.settings.previews ? " (commits and previews)" : " (commits)")")
        }
    }

    // MARK: out

    /// A room's dump: every control's messages, then `/ROOM/dump/end REVISION`.
    func sendDump(_ host: RoomHost) {
        guard let osc, osc.sends else { return }
        let room = host.room
        osc.send(OSCOut.dump(room: room.id, schema: room.schema, states: room.committed, revision: room.revision), kind: .dump)
    }

    /// A commit of `host`'s room: its messages leave once it is durable (`flushOSC`).
    func oscCommit(_ commit: Commit, in host: RoomHost) {
        guard let osc, osc.sends else { return }
        let control = host.room.schema.controls[commit.controlIndex]
        osc.unsent.append((host.room.id, commit.controlIndex,
                           OSCOut.messages(room: host.room.id, control: control, state: commit.state)))
    }

    /// A gesture entry: with `--osc-previews`, a begin or move goes out as its
    /// thumb's messages at most 60 times a second; a cancel sends the committed
    /// value back at once; an end leaves the last word to its commit.
    func oscPreview(_ entry: GestureEntry, in host: RoomHost, at now: Moment) {
        guard let osc, osc.sends, osc.settings.previews else { return }
        let key = PreviewConflator.Key(room: host.room.id, control: entry.controlIndex, thumb: entry.thumb)
        let control = host.room.schema.controls[entry.controlIndex]
        let messages = OSCOut.messages(room: host.room.id, control: control, thumb: entry.thumb, state: entry.state)
        switch entry.phase {
        case .begin, .move:
            if let now = osc.previews.offer(key, messages, at: now) {
                osc.send(now, kind: .preview)
            } else {
                scheduleOSCTimer(osc)
            }
        case .cancel:
            osc.previews.finish(key)
            osc.send(messages, kind: .preview)
        case .end:
            osc.previews.finish(key)
        }
    }

    /// After each turn: the turn's commits go out once storage has them.
    func flushOSC() {
        guard let osc, !osc.unsent.isEmpty, !service.commitsPending else { return }
        let batch = osc.unsent
        osc.unsent.removeAll(keepingCapacity: true)
        for commit in batch {
            osc.previews.committed(room: commit.room, control: commit.control)
            osc.send(commit.messages, kind: .commit)
        }
    }

    /// Commits an owner wrote to Redis (cluster mode): out now, once, from the owner.
    func oscCommitted(_ commits: [StoredCommit], room id: String) {
        guard let osc, osc.sends, let host = rooms[id] else { return }
        for commit in commits {
            guard let index = host.room.schema.index(of: commit.control) else { continue }
            osc.previews.committed(room: id, control: index)
            osc.send(OSCOut.messages(room: id, control: host.room.schema.controls[index], state: commit.state), kind: .commit)
        }
    }

    private func scheduleOSCTimer(_ osc: OSCBridge) {
        guard let due = osc.previews.nextDue, due != osc.timerDue else { return }
        osc.timerDue = due
        let microseconds = max(0, Int64(due.seconds(since: MonotonicClock.now()) * 1e6))
        tandem_timer_cancel(osc.timer)
        tandem_timer_schedule(osc.timer, (microseconds + 999) / 1000 * 1000)
    }

    /// Previews whose thumb's window ended go out.
    func oscTimerFired() {
        guard let osc else { return }
        osc.timerDue = nil
        for messages in osc.previews.due(at: MonotonicClock.now()) {
            osc.send(messages, kind: .preview)
        }
        scheduleOSCTimer(osc)
    }

    // MARK: in

    /// LWS_CALLBACK_RAW_RX_FILE: the datagrams waiting, a bounded number per call (the rest on the next).
    func oscReadable() {
        guard let osc, let receiver = osc.receiver else { return }
        let now = MonotonicClock.now()
        for _ in 0..<256 {
            guard let datagram = receiver.receive() else { return }
            if receiver.kernelDrops != osc.kernelDropsSeen {
                let lost = Int(receiver.kernelDrops &- osc.kernelDropsSeen)
                osc.kernelDropsSeen = receiver.kernelDrops
                osc.metrics.dropped["overflow", default: 0] += lost
                throttled("osc-drop-overflow", .warn,
                          "osc: dropped \(lost) datagram(s) before this server read them: overflow: the socket's receive buffer was full (net.core.rmem_max)")
            }
            oscDatagram(datagram, osc, at: now)
        }
    }

    private func oscDatagram(_ datagram: OSCReceiver.Datagram, _ osc: OSCBridge, at now: Moment) {
        let source = datagram.source
        guard osc.settings.allows(source.ip) else {
            oscDrop("not_allowed", "\(source.ip) is not loopback and not in --osc-allow", from: source)
            return
        }
        guard !datagram.truncated else {
            oscDrop("malformed", "a datagram larger than 64 KiB", from: source)
            return
        }
        switch OSCPacket.decode(datagram.bytes) {
        case let .failure(drop):
            oscDrop(drop.label, drop.reason, from: source)
        case let .success(messages):
            for message in messages { oscMessage(message, osc, from: source, at: now) }
        }
    }

    private func oscMessage(_ message: OSCMessage, _ osc: OSCBridge, from source: SocketAddress, at now: Moment) {
        osc.metrics.received += 1
        guard let id = OSCIn.room(of: message.address) else {
            let address = message.address.count > 96 ? message.address.prefix(95) + "…" : message.address
            oscDrop("unknown_address", "'\(address)' is not /room/control… (letters, digits, _ . - only; no patterns)", from: source)
            return
        }
        guard let host = rooms[id] else {
            oscDrop("unknown_room", "no room '\(id)'", from: source)
            return
        }
        switch OSCIn.request(message, schema: host.room.schema) {
        case let .failure(drop):
            oscDrop(drop.label, drop.reason, from: source)
        case .success(.dump):
            // Each check takes its token only once the one before it passed.
            guard osc.dumpsBySender.take(source.ip.description, at: now), osc.dumpsByRoom.take(id, at: now),
                  osc.dumpsInAll.take("", at: now) else {
                oscDrop(OSCDrop.Label.dumpLimited.rawValue, "more dumps than the bridge answers (docs/osc.md, \"Limits\")", from: source)
                return
            }
            sendDump(host)
        case let .success(.name(name)):
            let known = name == osc.name(of: source, in: id) || osc.writers[id]?[name] != nil
            guard known || osc.newNames.take(source.ip.description, at: now) else {
                oscDrop(OSCDrop.Label.nameLimited.rawValue, "more new names than the bridge takes from one address (docs/osc.md, \"Limits\")", from: source)
                return
            }
            osc.setName(name, of: source, in: id)
        case let .success(.operation(operation)):
            let name = osc.name(of: source, in: id)
            service.oscWrite(operation, name: name, host: host, osc, from: source, at: now)
        }
    }

    /// Whether a writer named `name` may join `id`: `false` (dropped, counted)
    /// when the room has `OSCBridge.maxWritersPerRoom` OSC writers already.
    func oscHasRoom(for name: String, in id: String, _ osc: OSCBridge, from source: SocketAddress) -> Bool {
        let present = osc.writers[id] ?? [:]
        guard present[name] == nil, present.count >= OSCBridge.maxWritersPerRoom else { return true }
        oscDrop(OSCDrop.Label.tooManyWriters.rawValue,
                "room '\(id)' has \(OSCBridge.maxWritersPerRoom) OSC writers already; '\(name)' may write once one has been quiet \(Int(osc.settings.writerIdle)) s",
                from: source)
        return false
    }

    /// Counts and logs (rate-limited) a message the bridge did not apply.
    func oscDrop(_ reason: String, _ sentence: String, from source: SocketAddress) {
        oscDrop(reason, sentence, from: source.description)
    }

    /// The same for a sender known by another name (a writer's client id, in a cluster).
    func oscDrop(_ reason: String, _ sentence: String, from source: String) {
        osc?.metrics.dropped[reason, default: 0] += 1
        throttled("osc-drop-\(reason)", .warn, "osc: dropped from \(source): \(reason): \(sentence)")
    }

    /// Whether `client` is one of the OSC writers in `host`'s room.

    // MARK: housekeeping

    /// Every tick: writers quiet for `writerIdle` leave their rooms; the others' log places move on.
    func oscHousekeeping(at now: Moment) {
        guard let osc, !osc.writers.isEmpty else { return }
        for (id, byName) in osc.writers {
            guard let host = rooms[id] else {
                osc.writers[id] = nil
                continue
            }
            for (name, writer) in byName {
                if now.seconds(since: writer.lastWrite) >= osc.settings.writerIdle || !service.oscWriterStays(writer, host: host) {
                    osc.writers[id]?[name] = nil
                    service.oscLeave(writer, host: host, at: now)
                }
            }
            if osc.writers[id]?.isEmpty ?? false { osc.writers[id] = nil }
        }
    }

    /// A room was created, replaced or deleted: its writers are gone with it.
    func oscRoomChanged(_ id: String) {
        osc?.forget(room: id)
    }
}

