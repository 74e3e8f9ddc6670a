/// Where a URL's connections go, and a way to move them: a fixed host and port
/// (`--redis`), or the primary that Redis Sentinel names (`--redis-sentinel`),
/// which `RedisSentinel` keeps current.
///
/// A `RedisLink` whose URL has a route asks it for the address at every connect
/// attempt (and is remembered, weakly, so that `reconnect` and a new primary can
/// move it); `RedisBlocking` reads `primary` at each (re)connect. With Sentinel,
/// a connection checks that `ROLE` says `master` before it calls itself ready.
///
/// One thread uses a route: the server's loop thread (and, before the loop runs,
/// the thread that starts the server). It is `@unchecked Sendable` only so that
/// `RedisURL` stays `Sendable`; nothing in it is locked.
public final class RedisRoute: @unchecked Sendable {
    /// A host (a name, an IPv4 or an IPv6 address) and a port.
    public struct Address: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// `host:port`, an IPv6 host in brackets.
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    public enum Kind: Sendable, Hashable {
        /// Always this address (`--redis redis://host:port`).
        case fixed(Address)
        /// The primary the Sentinels name for `master`.
        case sentinel(master: String, sentinels: [Address])
    }

    public let kind: Kind

    /// Where connections go now: the fixed address, or the primary last learnt
    /// from a Sentinel (`nil` while none is known).
    public private(set) var primary: Address?
    /// Why `primary` is `nil`.
    public private(set) var unknownReason = "no Sentinel asked yet"

    /// A connection doubts the primary (a connect or the connection failed, `ROLE`
    /// said replica, a write answered `READONLY`): `RedisSentinel` asks again.
    var onDoubt: ((String) -> Void)?

    private struct Entry {
        weak var link: RedisLink?
        var target: Address
    }

    private var links: [ObjectIdentifier: Entry] = [:]

    public init(_ kind: Kind) {
        self.kind = kind
        if case let .fixed(address) = kind { primary = address }
    }

    /// The Sentinel master name, or `nil` for a fixed route.
    public var master: String? {
        if case let .sentinel(master, _) = kind { return master }
        return nil
    }

    /// Whether a connection must see `ROLE` answer `master` before it is ready.
    public var confirmsPrimary: Bool { master != nil }

    // MARK: Connections

    /// Where `link`'s next attempt goes (`nil`: no primary known; the attempt fails
    /// with `unknownReason`). A link asking again has lost its connection or failed
    /// to make one: with Sentinel, that is a reason to ask the Sentinels again.
    func target(for link: RedisLink) -> Address? {
        let key = ObjectIdentifier(link)
        let again = links[key]?.link != nil
        links = links.filter { $0.value.link != nil }
        guard let primary else {
            if again { onDoubt?("\(link.name): no primary known") }
            return nil
        }
        links[key] = Entry(link: link, target: primary)
        if again, confirmsPrimary { onDoubt?("\(link.name): connecting again") }
        return primary
    }

    /// Drops the connection of every link of this route named `name` (every link
    /// when `nil`): each connects again at once, to `primary`.
    public func reconnect(_ name: String? = nil, reason: String) {
        for entry in links.values {
            guard let link = entry.link, name == nil || link.name == name else { continue }
            link.drop(reason)
        }
    }

    /// The names of the async connections that use this route, and where each went last.
    public var connections: [(name: String, target: Address)] {
        links.values.compactMap { entry in entry.link.map { ($0.name, entry.target) } }.sorted { $0.name < $1.name }
    }

    /// Something suggests the primary moved (`RedisBlocking` got `READONLY`, the
    /// delivery probe heard nothing): with Sentinel, the Sentinels are asked again.
    public func doubt(_ why: String) {
        onDoubt?(why)
    }

    // MARK: The primary

    /// A new primary (from `RedisSentinel`): links connected or connecting elsewhere are dropped
    /// and connect again to it. `nil`: none known (`reason` says why); links are left alone.
    func setPrimary(_ address: Address?, reason: String) {
        guard let address else {
            primary = nil
            unknownReason = reason
            return
        }
        primary = address
        for entry in links.values where entry.target != address {
            entry.link?.drop("the primary is now \(address) (\(reason))")
        }
    }

    /// Why a `ROLE` reply is not a primary's, or `nil` when it says `master`.
    public static func notPrimary(_ reply: RedisReply) -> String? {
        if let message = reply.errorMessage { return "ROLE failed: \(message)" }
        guard let parts = reply.elements, let role = parts.first?.string else { return "ROLE answered \(reply)" }
        switch role {
        case "master":
            return nil
        case "slave", "replica":
            let of = parts.count >= 3 ? " of \(parts[1].string ?? "?"):\(parts[2].int.map(String.init) ?? "?")" : ""
            return "a replica\(of), not the primary"
        default:
            return "a \(role), not the primary"
        }
    }
}
