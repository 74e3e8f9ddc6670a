import CLibWebSockets
import CTandemShim
import TandemCore

/// The constants of fan-out rounds (docs/architecture.md, "Fan-out rounds").
enum FanOut {
    /// A round starts at once when the previous one began at least this long
    /// ago (an idle room's first change goes out without waiting), and no
    /// change waits longer than this for its round. Under the 16.7 ms
    /// between a 60 Hz dragger's moves, with room for the timer's whole
    /// milliseconds and the loop's lateness, so that a thumb dragged at 60 Hz
    /// is not folded and every receiver sees it at 60 Hz; long enough that a
    /// frame carries the moves of several draggers (docs/benchmarks.md).
    ///
    /// Fixed, not a multiple of what a round costs: a period that followed
    /// the cost alone kept the server at the same share of its core whatever
    /// a frame cost, so cheaper frames only became smaller frames. The
    /// deadline below follows the cost, bounded by this period.
    static let period = 0.012
    /// A change that does not start a round at once waits at most this long
    /// for one (or its room's `deadlineCostShare` × round cost, if longer, up
    /// to `period`): the round is due at the earlier of the period's end and
    /// the first waiting change's deadline, so a frame folds what came in the
    /// deadline after its first change instead of waiting out a whole period.
    /// A small room's rounds are cheap and its changes wait 8 ms at most (S1:
    /// p99 11 ms against 15 ms with the period alone); a large room's cost
    /// more, fold as much as before and spend the same share of the loop
    /// (docs/benchmarks.md, "Round policy: a deadline per change").
    static let deadline = 0.008
    static let deadlineCostShare = 5.0
    /// A room whose round costs more than 1 / costShare of a period waits
    /// costShare × that cost between round starts instead: a huge room's
    /// rounds take at most half of the loop, leaving the rest to reading
    /// what its people send and to every other room. At 500 receivers a
    /// round costs about 4 ms, so only rooms of thousands are paced by it.
    static let costShare = 2.0
    /// Flushes due within this much are started now: lws' poll() waits in whole
    /// milliseconds, so a timer less than 1 ms away would spin the loop.
    static let early = 0.001
}

extension RoomHost {
    /// Whether a change at `now` starts a round at once: the latest began at
    /// least a period ago (or that is less than `FanOut.early` away).
    func startsAtOnce(at now: Moment) -> Bool {
        now.seconds(since: nextRound) >= -FanOut.early
    }

    /// Whether a round may start at `now`: the latest round's share of the loop is spent.
    func mayStartRound(at now: Moment) -> Bool {
        now.seconds(since: earliestRound) >= -FanOut.early
    }

    /// Before when no round starts, whatever waits: the latest round's start
    /// plus its share of the loop (`FanOut.costShare` × what it cost).
    var earliestRound: Moment { lastRoundStart.adding(seconds: FanOut.costShare * lastRoundCost) }

    /// From when a change starts a round at once: a period after the latest
    /// round began, or later when that round cost more than its share.
    var nextRound: Moment { max(lastRoundStart.adding(seconds: FanOut.period), earliestRound) }

    /// Takes note of a round that began at `start` and cost `cost` seconds.
    func noteRound(startedAt start: Moment, cost: Double) {
        lastRoundStart = start
        lastRoundCost = cost
    }

    /// When the round that carries a change made at `now` starts: at once
    /// after a quiet period; else when the period since the latest round is
    /// over or the change has waited its deadline, whichever is first, but
    /// never before the latest round's share of the loop is spent.
    func roundDue(forChangeAt now: Moment) -> Moment {
        if startsAtOnce(at: now) { return max(now, earliestRound) }
        let deadline = min(FanOut.period, max(FanOut.deadline, FanOut.deadlineCostShare * lastRoundCost))
        return max(earliestRound, min(nextRound, now.adding(seconds: deadline)))
    }
}

extension Server {
    /// Something every member of `host`'s room should see changed: a round
    /// now if the room's last round began at least a period ago, or else when it will have.
    func broadcast(in host: RoomHost, at now: Moment) {
        host.dirty = true
        requestFlush(host, at: now)
    }

    /// Schedules the room's next round: at the end of this turn of the loop
    /// if it starts at once (so that it carries everything the turn read), or
    /// else when it is due (`roundDue`); a round already scheduled earlier
    /// stays. A room withholding frames for storage flushes after the
    /// transaction (writeCommits).
    func requestFlush(_ host: RoomHost, at now: Moment) {
        guard host.dirty, !host.room.withholdingFrames else { return }
        let due = host.roundDue(forChangeAt: now)
        if host.flushDue.map({ due < $0 }) ?? true {
            scheduleFlush(host, at: due)
        }
    }

    /// A round: every member with something new gets it now. On plain TCP
    /// the round writes the frames itself, in one pass; under TLS it arms
    /// the members and their writable callbacks write them.
    func startRound(_ host: RoomHost, at now: Moment) {
        host.dirty = false
        host.flushDue = nil // and out of flushes.pending at the next flushDueRooms
        let reached = sends.direct ? writeRound(host, at: now) : armRound(host, at: now)
        guard reached > 0 else { return }
        let cost = max(0, MonotonicClock.now().seconds(since: now))
        host.noteRound(startedAt: now, cost: cost)
        metrics.fanoutRounds += 1
        metrics.fanoutArmed += reached
        metrics.fanoutRound.observe(cost)
    }

    /// The one-pass round: encodes what changed once (the frame's head up to
    /// `ack`, and its tail), and writes it to every member in step with its
    /// own `ack` in between, straight to the socket in one send. Members out
    /// of step get their own frame (`nextFrame`); members whose socket holds
    /// unsent bytes, or that wait for a writable callback anyway (an ack, a
    /// welcome), are armed and written from their callback, with everything
    /// new by then. Returns the members written or armed.
    private func writeRound(_ host: RoomHost, at now: Moment) -> Int {
        guard let round = host.openRound() else { return 0 }
        var frame = SharedFrame(round)
        var reached = 0
        var shared = 0
        for connection in host.members.values where connection.armedSince == nil && connection.closing == nil {
            if connection.lwsMayHold { connection.lwsMayHold = tandem_holds_unsent(connection.wsi, connection.fd) != 0 }
            if connection.welcome != nil || connection.presets != nil || connection.lwsMayHold {
                if host.room.hasPendingFrame(for: connection.client) || connection.presets != nil {
                    arm(connection, at: now)
                    reached += 1
                }
                continue
            }
            var slot = Int(connection.memberSlot)
            let share = host.share(of: round, for: connection.client, slot: &slot)
            if slot != Int(connection.memberSlot) { connection.memberSlot = Int32(truncatingIfNeeded: slot) }
            switch share {
            case .nothing:
                continue
            case .own:
                sendNextFrame(connection, in: host, batched: sends.batching)
            case let .shared(ack, present):
                let (bytes, whole) = frame.send(to: connection.wsi, fd: connection.fd, ack: ack, present: present, batched: sends.batching, encoder: &host.encoder)
                if !whole { connection.lwsMayHold = true }
                metrics.framesOut += 1
                metrics.bytesOut += bytes
                metrics.updatesConflated += max(0, host.offered - connection.offeredMark - frame.updates)
                connection.offeredMark = host.offered
                shared += 1
            }
            reached += 1
        }
        if sends.batching { flushBatch() }
        if shared > 0 { observeDelivery(of: round.update, in: host, recipients: shared) }
        return reached
    }

    /// Sends the round's io_uring batch; members whose socket did not take
    /// their frame whole are left to their writable callback from now on.
    private func flushBatch() {
        let notWhole = tandem_batch_flush()
        for i in 0..<notWhole {
            if let wsi = tandem_batch_not_whole(i) {
                guard let user = lws_wsi_user(wsi) else { continue }
                connections[user.load(as: UInt64.self)]?.lwsMayHold = true
            } else if case let .room(connection)? = ownSockets?[tandem_batch_not_whole_fd(i)] {
                connection.lwsMayHold = true
            }
        }
        tandem_batch_done()
    }

    /// Under TLS: arms every member that has a frame waiting; each is written
    /// from its writable callback with everything new by then. Returns the members armed.
    private func armRound(_ host: RoomHost, at now: Moment) -> Int {
        var armed = 0
        for connection in host.members.values
        where connection.armedSince == nil && connection.closing == nil && host.room.hasPendingFrame(for: connection.client) {
            arm(connection, at: now)
            armed += 1
        }
        return armed
    }

    /// Counts, in the delivery histogram, `recipients` deliveries of each commit `update` carries.
    func observeDelivery(of update: Update, in host: RoomHost, recipients: Int) {
        guard !update.changes.isEmpty else { return }
        let now = MonotonicClock.now()
        for change in update.changes {
            if let arrival = host.commitArrival(change.revision) {
                metrics.commitDelivery.observe(now.seconds(since: arrival), count: recipients)
            }
        }
    }

    // MARK: the flush timer

    /// Remembers that `host` flushes at `due` (or earlier if already scheduled so) and wakes the loop then.
    func scheduleFlush(_ host: RoomHost, at due: Moment) {
        if !host.flushListed {
            host.flushListed = true
            flushes.pending.append(host)
        }
        host.flushDue = due
        // Due now: the end of this turn of the loop starts it (flushDueRooms), no timer needed.
        if due > MonotonicClock.now(), flushes.due.map({ due < $0 }) ?? true { wakeForFlush(at: due) }
    }

    /// The flush timer fired.
    func flushTimerFired() {
        flushes.due = nil
        flushDueRooms()
    }

    /// Starts the rounds of every room whose flush is due (or less than
    /// `FanOut.early` away); called after each turn of the loop and from the flush timer.
    func flushDueRooms() {
        guard !flushes.pending.isEmpty else { return }
        let now = MonotonicClock.now()
        let horizon = now.adding(seconds: FanOut.early)
        var due: [RoomHost] = []
        flushes.pending.removeAll { host in
            if let at = host.flushDue, at > horizon { return false }
            host.flushListed = false
            if host.flushDue != nil { due.append(host) } // nil: a round started meanwhile
            return true
        }
        for host in due {
            host.flushDue = nil
            guard host.dirty, !host.room.withholdingFrames else { continue }
            if host.mayStartRound(at: now) {
                startRound(host, at: now)
            } else {
                scheduleFlush(host, at: host.earliestRound)
            }
        }
        if let next = flushes.pending.lazy.compactMap(\.flushDue).min() {
            if next != flushes.due { wakeForFlush(at: next) }
        } else if flushes.due != nil {
            tandem_timer_cancel(flushes.timer)
            flushes.due = nil
        }
    }

    /// Schedules the flush timer for `due`, rounded up to a whole millisecond
    /// from now (poll() waits in milliseconds).
    private func wakeForFlush(at due: Moment) {
        flushes.due = due
        let microseconds = max(0, Int64(due.seconds(since: MonotonicClock.now()) * 1e6))
        tandem_timer_cancel(flushes.timer)
        tandem_timer_schedule(flushes.timer, (microseconds + 999) / 1000 * 1000)
    }
}
