import CLibWebSockets
import TandemAuth
import TandemCore
import TandemWire

/// One WebSocket client: who it is, where it is, and what its socket owes it.
/// One of these per open connection, from ESTABLISHED to CLOSED.
///
/// An idle connection should cost little (docs/benchmarks.md, "Idle
/// memory"): what every frame needs is inline, ordered so that the small
/// fields share words, and what few connections ever use (a token's claims,
/// a replicated room's relay state, a flood's times, a peer's close code,
/// lws' fragments) is in `Rare`, made the first time one of them is set.
final class Connection {
    /// The key stored in the lws per-session data.
    let session: UInt64
    /// The lws connection (`struct lws *`); `nil` once the socket is the
    /// server's own (taken off lws after the handshake, Transport/).
    let wsi: OpaquePointer?
    /// The id the room knows this client by.
    let client: ClientID
    /// The room it joined; `nil` while being turned away (unknown room, shutdown).
    var host: RoomHost?
    /// The welcome, until the first writable callback sends it.
    var welcome: [UInt8]?
    /// The room's `presets` list, when it changed since this member's last
    /// one (and after the welcome): sent before its next update (Rooms/RoomServiceBase+Presets.swift).
    var presets: [UInt8]?
    /// A close the server decided on: sent from the next writable callback.
    var closing: (code: UInt16, reason: String)?
    /// When the server first asked for a writable callback with frames
    /// waiting; cleared by that callback. A connection unwritable past the slow
    /// timeout is closed with 4008.
    var armedSince: Moment?
    /// The room's `offered` count at its last update: what it was offered since
    /// then, minus what that update carried, is what conflation folded.
    var offeredMark = 0
    /// On the server's own socket: when a frame last came from the client
    /// (the idle timeout pings it after a third of `--idle-timeout`, and drops it after all of it).
    var lastHeard = MonotonicClock.now()
    /// On the server's own socket: the frames read so far (Transport/FrameReader.swift).
    var reader = FrameReader(maxMessage: 0)
    /// On the server's own socket: when to hang up unless the client's close
    /// comes first (a close frame that cannot go out, a lingering close).
    var hangUpAt: Moment?
    /// On the server's own socket: its place among the connection limits, freed when it closes.
    var limitSlot: ConnectionLimiter.SocketID?
    /// Its socket, kept so that a frame's send does not ask lws for it.
    let fd: Int32
    /// Whether unsent bytes of this connection's frames may be held: a
    /// direct send the socket did not take whole left the rest to lws (or,
    /// on the server's own socket, to tandem_link). Until they are sent,
    /// rounds leave the member to its writable callback.
    var lwsMayHold = false
    /// Whether a receive callback returned -1 with `closing` as the close
    /// reason: lws sends that close frame itself, and a writable callback
    /// must not send a second one.
    var refused = false
    /// Whether the close frame went out while the client was still sending:
    /// the connection lingers, dropping what arrives, until the client's close
    /// or the linger timeout (`Server.lingerOrHangUp`).
    var closeSent = false
    /// On the server's own socket: whether it was pinged since `lastHeard`.
    var pinged = false
    /// Whether its welcome was made (a local room's at once, a replicated
    /// room's after the owner's admission).
    var welcomed = false
    /// Where this connection's member is in its room's `MemberTable`, as the
    /// last round found it (-1: not yet): a round tries it before the id.
    /// Beside the flags above, in what would be padding.
    var memberSlot: Int32 = -1

    /// What few connections use, made on first use.
    private var rare: Rare?

    private final class Rare {
        var incoming: [UInt8] = []
        var peerCloseCode: UInt16?
        var floodStart: Moment?
        var lastRateLimited: Moment?
        var claims: Claims?
        var relay = MemberRelay()
    }

    /// Whether the rarely used part was made (for tests).
    var holdsRare: Bool { rare != nil }

    private var made: Rare {
        if let rare { return rare }
        let made = Rare()
        rare = made
        return made
    }

    /// A WebSocket message being reassembled from lws' pieces of it.
    var incoming: [UInt8] {
        get { rare?.incoming ?? [] }
        _modify { yield &made.incoming }
    }
    /// The close code the peer sent, if it closed first.
    var peerCloseCode: UInt16? {
        get { rare?.peerCloseCode }
        set { if newValue != nil || rare != nil { made.peerCloseCode = newValue } }
    }
    /// When its current run of rate_limited rejects began, and its latest one (Server.noteRateLimited).
    var floodStart: Moment? {
        get { rare?.floodStart }
        set { if newValue != nil || rare != nil { made.floodStart = newValue } }
    }
    var lastRateLimited: Moment? {
        get { rare?.lastRateLimited }
        set { if newValue != nil || rare != nil { made.lastRateLimited = newValue } }
    }
    /// The claims of its token while auth is on (replaced by an `auth` refresh);
    /// past their `exp` plus the leeway the connection is closed with 4401.
    var claims: Claims? {
        get { rare?.claims }
        set { if newValue != nil || rare != nil { made.claims = newValue } }
    }
    /// What replicated rooms keep of it (Replicated/MemberRelay.swift); local rooms leave it be.
    var relay: MemberRelay {
        get { rare?.relay ?? MemberRelay() }
        _modify { yield &made.relay }
    }

    convenience init(session: UInt64, wsi: OpaquePointer, client: ClientID) {
        self.init(session: session, wsi: wsi, fd: lws_get_socket_fd(wsi), client: client)
    }

    /// A connection whose socket is `fd`. Rooms never touch `wsi` or `fd`
    /// (they go through `Delivery`): the in-process tests of the rooms give
    /// placeholders.
    init(session: UInt64, wsi: OpaquePointer?, fd: Int32, client: ClientID) {
        self.session = session
        self.wsi = wsi
        self.fd = fd
        self.client = client
    }
}
