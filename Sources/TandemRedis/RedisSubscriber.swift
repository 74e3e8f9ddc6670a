/// A Redis pub/sub subscription on the server's libuv loop (a connection of its own).
/// Not Sendable: every method and callback runs on the loop's thread.
///
/// Channels and patterns are remembered and subscribed again after every reconnect;
/// `onState` says `.ready` again then, and messages published while it was down are lost.
/// From `start()` until `stop()` (or until the last reference goes) it stays alive by itself.
public final class RedisSubscriber {
    public let url: RedisURL
    public let name: String
    /// A message on a subscribed channel, or on a channel matching a subscribed pattern.
    public var onMessage: ((_ channel: [UInt8], _ payload: [UInt8]) -> Void)?
    /// Every change of `state`; `.ready` again after a reconnect: messages may have been missed meanwhile.
    public var onState: ((RedisConnection.State) -> Void)?
    public var state: RedisConnection.State { link.state }

    private let link: RedisLink
    private var channels: [[UInt8]] = []
    private var patterns: [[UInt8]] = []

    public init(url: RedisURL, loop: UnsafeMutableRawPointer /* uv_loop_t* */, name: String) {
        self.url = url
        self.name = name
        link = RedisLink(url: url, loop: loop, name: name)
        link.tracksReplies = false // pushes interleave with replies: watched end to end (the delivery probe)
        link.onState = { [weak self] state in self?.onState?(state) }
        link.onReady = { [weak self] in self?.resubscribe() }
        link.onPush = { [weak self] reply in self?.pushed(reply) }
    }

    deinit {
        link.stop()
    }

    public func start() {
        link.start()
    }

    public func stop() {
        link.stop()
    }

    public func subscribe(_ channel: String) {
        let name = Array(channel.utf8)
        guard !channels.contains(name) else { return }
        channels.append(name)
        if link.isReady { link.subscribeCommand([Array("SUBSCRIBE".utf8), name]) }
    }

    public func unsubscribe(_ channel: String) {
        let name = Array(channel.utf8)
        guard let index = channels.firstIndex(of: name) else { return }
        channels.remove(at: index)
        if link.isReady { link.command([Array("UNSUBSCRIBE".utf8), name], reply: nil) }
    }

    public func psubscribe(_ pattern: String) {
        let name = Array(pattern.utf8)
        guard !patterns.contains(name) else { return }
        patterns.append(name)
        if link.isReady { link.subscribeCommand([Array("PSUBSCRIBE".utf8), name]) }
    }

    public func punsubscribe(_ pattern: String) {
        let name = Array(pattern.utf8)
        guard let index = patterns.firstIndex(of: name) else { return }
        patterns.remove(at: index)
        if link.isReady { link.command([Array("PUNSUBSCRIBE".utf8), name], reply: nil) }
    }

    private func resubscribe() {
        if !channels.isEmpty { link.subscribeCommand([Array("SUBSCRIBE".utf8)] + channels) }
        if !patterns.isEmpty { link.subscribeCommand([Array("PSUBSCRIBE".utf8)] + patterns) }
    }

    // ["message", channel, payload] or ["pmessage", pattern, channel, payload]; the rest
    // ((un)subscribe confirmations) is hiredis' bookkeeping.
    private func pushed(_ reply: RedisReply) {
        guard case let .array(parts) = reply, let kind = parts.first?.string else { return }
        switch kind {
        case "message" where parts.count == 3:
            if let channel = parts[1].bytes, let payload = parts[2].bytes { onMessage?(channel, payload) }
        case "pmessage" where parts.count == 4:
            if let channel = parts[2].bytes, let payload = parts[3].bytes { onMessage?(channel, payload) }
        default:
            break
        }
    }
}
