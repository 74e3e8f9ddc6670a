import TandemCore
import TandemRedis

/// The delivery probe (docs/scale-out.md, "Health"): a node's connections to
/// Redis may look up while nothing reaches it any more — its subscriber left on a
/// former primary, or cut off without a reset. So every second the node
/// publishes a probe on a channel of its own through `commands` (the path its
/// publications take: a script that writes, refused on a replica) and must hear
/// it back on `subscriber` within 3 s; else `/healthz` answers 503
/// `redis delivery stalled: no probe back for N s`, a warning is logged, and the
/// subscriber connects again (with Sentinel: to the primary the Sentinels name).
final class DeliveryProbe {
    static let prefix = "tandem:probe:"
    static let intervalMs: UInt64 = 1000
    static let bound = 3.0
    /// Sets the probe key (10 s) and publishes the probe: a replica refuses it with READONLY.
    static let script = RedisScript("""
        redis.call('SET', KEYS[1], ARGV[1], 'PX', 10000)
        return redis.call('PUBLISH', KEYS[1], ARGV[1])
        """)

    /// `tandem:probe:NODE`: the key and the channel (only this node subscribes).
    let channel: String
    /// What this start's probes begin with (a restarted node ignores its previous run's).
    let tag: String
    var watch = DeliveryWatch(bound: DeliveryProbe.bound)
    /// Why delivery is stalled, while it is.
    var problem: String?
    /// Since when no probe came back (cleared when one does).
    var stalledSince: Moment?
    var lastTick: Moment?
    var lastReconnect: Moment?
    var onTick: (() -> Void)?
    private(set) var timer: RedisTimer?

    init(node: String, tag: String, loop: UnsafeMutableRawPointer) {
        channel = Self.prefix + node
        self.tag = tag
        timer = RedisTimer(loop: loop) { [weak self] in self?.onTick?() }
    }

    static func seconds(_ moment: Moment) -> Double { Double(moment.nanoseconds) / 1e9 }
}

extension ReplicatedRooms {
    /// Starts what watches the cluster's Redis: the Sentinel monitor (with
    /// `--redis-sentinel`) and the delivery probe. From `startCluster`.
    func startClusterWatch() {
        if let sentinel = cluster.sentinel {
            sentinel.onPrimary = { [weak self] old, new, how in
                guard let self else { return }
                let cluster = self.cluster
                self.clusterMetrics.primary = new.description
                self.clusterMetrics.failovers = sentinel.failovers
                if old == nil {
                    self.log.info("redis: primary of \(sentinel.master) is \(new) (\(how))")
                } else {
                    self.log.warn("redis: primary is now \(new) (failover of \(sentinel.master), was \(old.map(\.description) ?? "?"); \(how))")
                    cluster.probe.watch.reset()
                }
            }
            sentinel.onLookupFailed = { [weak self] detail in
                self?.throttled("redis-sentinel-lookup", .warn, "redis: no Sentinel answered for \(sentinel.master): \(detail)")
                self?.clusterMetrics.sentinelLookupFailures = sentinel.lookupFailures
            }
            clusterMetrics.sentinelMaster = sentinel.master
            clusterMetrics.primary = cluster.url.route?.primary?.description
            if let primary = cluster.url.route?.primary {
                log.info("redis: primary of \(sentinel.master) is \(primary) (the Sentinels' answer at start)")
            }
            sentinel.start()
        }
        let probe = cluster.probe
        cluster.subscriber.subscribe(probe.channel)
        probe.onTick = { [weak self] in self?.deliveryProbeTick() }
        probe.timer?.start(afterMs: DeliveryProbe.intervalMs, everyMs: DeliveryProbe.intervalMs)
    }

    /// At shutdown (`stopCluster`).
    func stopClusterWatch() {
        cluster.probe.timer?.stop()
        cluster.probe.onTick = nil
        cluster.sentinel?.stop()
    }

    /// Every second: a stall is noticed (and acted on), then the next probe goes out.
    func deliveryProbeTick() {
        let probe = cluster.probe
        let now = MonotonicClock.now()
        let t = DeliveryProbe.seconds(now)
        // After a loop stall the probe's answer may wait behind this timer: judge on the next tick.
        let lagging = probe.lastTick.map { now.seconds(since: $0) > 2.5 * Double(DeliveryProbe.intervalMs) / 1000 } ?? false
        probe.lastTick = now
        guard cluster.up else {
            // Down is /healthz's "redis unavailable" already; what was sent may never come back.
            probe.watch.reset()
            probe.problem = nil
            clusterMetrics.deliveryStalled = false
            return
        }
        if !lagging, let stalled = probe.watch.stalled(at: t) {
            let text = "redis delivery stalled: no probe back for \(Int(stalled)) s"
            if probe.problem == nil {
                clusterMetrics.deliveryStalls += 1
                probe.stalledSince = probe.stalledSince ?? now.adding(seconds: -stalled)
                log.warn("\(text) (published on \(cluster.commands.name), not heard on \(cluster.subscriber.name)): reconnecting the subscriber")
            }
            probe.problem = text
            clusterMetrics.deliveryStalled = true
            if probe.lastReconnect.map({ now.seconds(since: $0) >= DeliveryProbe.bound }) ?? true {
                probe.lastReconnect = now
                cluster.url.route?.doubt("the delivery probe: \(text)")
                cluster.url.route?.reconnect(cluster.subscriber.name, reason: text)
            }
        }
        let token = probe.watch.send(at: t)
        let payload = Array("\(probe.tag)\(token)".utf8)
        cluster.commands.eval(DeliveryProbe.script, keys: [Array(probe.channel.utf8)], args: [payload]) { [weak self] reply in
            guard let self, let message = reply.errorMessage else { return }
            let cluster = self.cluster
            if message.contains("READONLY") {
                // The commands connection is on a replica: with Sentinel, find the primary and go there.
                self.throttled("redis-probe-readonly", .warn, "redis: \(cluster.commands.name) is on a replica (\(message)): reconnecting")
                cluster.url.route?.doubt("\(cluster.commands.name) answered READONLY")
                if cluster.url.route?.confirmsPrimary == true { cluster.url.route?.reconnect(cluster.commands.name, reason: "READONLY") }
            } else if !message.hasPrefix("redis unavailable"), !message.hasPrefix("connection ") {
                self.throttled("redis-probe-failed", .warn, "redis: the delivery probe's script failed: \(message)")
            }
        }
    }

    /// A message on this node's probe channel (from `clusterMessage`).
    func deliveryProbeHeard(_ payload: [UInt8]) {
        let probe = cluster.probe
        let text = String(decoding: payload, as: UTF8.self)
        guard text.hasPrefix(probe.tag), let token = Int(text.dropFirst(probe.tag.count)) else { return }
        let now = MonotonicClock.now()
        guard probe.watch.heard(token, at: DeliveryProbe.seconds(now)) else { return }
        clusterMetrics.probeRoundTrip = probe.watch.lastRoundTrip
        if let since = probe.stalledSince {
            log.info("redis: delivery back: a probe came back after \(Int(now.seconds(since: since))) s without")
            probe.stalledSince = nil
        }
        probe.problem = nil
        clusterMetrics.deliveryStalled = false
    }
}
