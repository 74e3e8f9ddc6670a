import CTandemRedis

/// A libuv timer on the server's loop (a one-shot or a repeating one), for work
/// that goes with the Redis connections: the Sentinel lookups, the delivery probe.
/// Loop thread only. `fire` runs on the loop; never after `stop()` or once the
/// timer is gone.
public final class RedisTimer {
    private var timer: OpaquePointer?
    private let fire: () -> Void

    public init(loop: UnsafeMutableRawPointer /* uv_loop_t* */, fire: @escaping () -> Void) {
        self.fire = fire
        timer = tandem_redis_timer_new(loop, { ctx in
            guard let ctx else { return }
            Unmanaged<RedisTimer>.fromOpaque(ctx).takeUnretainedValue().fire()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        if let timer { tandem_redis_timer_free(timer) }
    }

    /// (Re)arms: first after `afterMs`, then every `everyMs` (0: once).
    public func start(afterMs: UInt64, everyMs: UInt64 = 0) {
        if let timer { tandem_redis_timer_start(timer, afterMs, everyMs) }
    }

    public func stop() {
        if let timer { tandem_redis_timer_stop(timer) }
    }
}
