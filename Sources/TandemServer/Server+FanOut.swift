import CLibWebSockets
import CTandemShim
import TandemCore

/// The constants of adaptive batching (docs/architecture.md, "Adaptive batching").
enum FanOut {
    /// A room's rounds start at least this many round costs apart: its
    /// fan-out takes at most about a third of the event loop...
    static let factor = 3.0
    /// ... and at most this long apart, the longest an update waits for its
    /// round: under the 16.7 ms between a 60 Hz dragger's moves with room for
    /// the timer's whole milliseconds and the loop's lateness, so that a thumb
    /// dragged at 60 Hz is not conflated and a receiver sees every dragged
    /// thumb at 60 Hz while the server keeps up (a 16 ms cap folded 2 % of
    /// the moves at 500 receivers; docs/benchmarks.md).
    static let maxPeriod = 0.012
    /// The weight of the newest round in the moving average of round costs.
    static let smoothing = 0.5
    /// Flushes due within this much are started now: lws' poll() waits in whole
    /// milliseconds, so a timer less than 1 ms away would spin the loop.
    static let early = 0.001
}

extension RoomHost {
    /// The least time between the starts of two of its rounds.
    var period: Double { min(FanOut.maxPeriod, FanOut.factor * roundCost) }
}

extension Server {
    /// Something every member of `host`'s room should see changed: arm them
    /// all now if the room's last round began at least a period ago, or else
    /// when it will have.
    func broadcast(in host: RoomHost, at now: Moment) {
        host.dirty = true
        requestFlush(host, at: now)
    }

    /// Starts a round now if the last one began at least a period ago;
    /// otherwise makes sure a flush is scheduled for when it will have. A room
    /// withholding frames for storage flushes after the transaction (writeCommits).
    func requestFlush(_ host: RoomHost, at now: Moment) {
        guard host.dirty, !host.room.withholdingFrames else { return }
        let due = host.roundStart.adding(seconds: host.period)
        if now.seconds(since: due) >= -FanOut.early {
            startRound(host, at: now)
        } else if host.flushDue.map({ due < $0 }) ?? true {
            scheduleFlush(host, at: due)
        }
    }

    /// Arms every member that has a frame waiting and is not armed already;
    /// each is written from its writable callback with everything that
    /// accumulated since its previous frame.
    func startRound(_ host: RoomHost, at now: Moment) {
        host.dirty = false
        host.flushDue = nil // and out of pendingFlushes at the next flushDueRooms
        let round = host.round + 1
        var armed = 0
        for connection in host.members.values
        where connection.armedSince == nil && connection.closing == nil && host.room.hasPendingFrame(for: connection.client) {
            connection.round = round
            arm(connection, at: now)
            armed += 1
        }
        // Everyone with something to receive is armed already (by an ack, or
        // by a round not yet written): their frames will carry it, and the
        // round in flight goes on being measured.
        guard armed > 0 else { return }
        host.round = round
        host.roundStart = now
        host.outstanding = armed
        metrics.fanoutRounds += 1
        metrics.fanoutArmed += armed
    }

    /// A member armed by the latest round was written (or left): after the
    /// last one, the round's cost updates the room's period.
    func roundMemberDone(_ host: RoomHost, at now: Moment) {
        host.outstanding -= 1
        guard host.outstanding == 0 else { return }
        let cost = max(0, now.seconds(since: host.roundStart))
        metrics.fanoutRound.observe(cost)
        host.roundCost = host.roundCost == 0 ? cost : host.roundCost + FanOut.smoothing * (cost - host.roundCost)
        requestFlush(host, at: now)
    }

    // MARK: the flush timer

    /// Remembers that `host` flushes at `due` (or earlier if already scheduled so) and wakes the loop then.
    func scheduleFlush(_ host: RoomHost, at due: Moment) {
        if !host.flushListed {
            host.flushListed = true
            pendingFlushes.append(host)
        }
        host.flushDue = due
        if flushTimerDue.map({ due < $0 }) ?? true { wakeForFlush(at: due) }
    }

    /// The flush timer fired.
    func flushTimerFired() {
        flushTimerDue = nil
        flushDueRooms()
    }

    /// Starts the rounds of every room whose flush is due (or less than
    /// `FanOut.early` away); called from the flush timer and after each turn of the loop.
    func flushDueRooms() {
        guard !pendingFlushes.isEmpty else { return }
        let now = Clock.now()
        let horizon = now.adding(seconds: FanOut.early)
        var due: [RoomHost] = []
        pendingFlushes.removeAll { host in
            if let at = host.flushDue, at > horizon { return false }
            host.flushListed = false
            if host.flushDue != nil { due.append(host) } // nil: a round started meanwhile
            return true
        }
        for host in due {
            host.flushDue = nil
            requestFlush(host, at: now)
        }
        if let next = pendingFlushes.lazy.compactMap(\.flushDue).min() {
            if next != flushTimerDue { wakeForFlush(at: next) }
        } else if flushTimerDue != nil {
            tandem_timer_cancel(flushTimer)
            flushTimerDue = nil
        }
    }

    /// Schedules the flush timer for `due`, rounded up to a whole millisecond
    /// from now (poll() waits in milliseconds).
    private func wakeForFlush(at due: Moment) {
        flushTimerDue = due
        let microseconds = max(0, Int64(due.seconds(since: Clock.now()) * 1e6))
        tandem_timer_cancel(flushTimer)
        tandem_timer_schedule(flushTimer, (microseconds + 999) / 1000 * 1000)
    }
}
