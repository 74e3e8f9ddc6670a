import CLibWebSockets
import TandemAuth
import TandemCore
import TandemWire

/// One WebSocket client: who it is, where it is, and what its socket owes it.
/// One of these per open connection, from ESTABLISHED to CLOSED.
final class Connection {
    /// The key stored in the lws per-session data.
    let session: UInt64
    /// The lws connection (`struct lws *`).
    let wsi: OpaquePointer
    /// Its socket, kept so that a frame's send does not ask lws for it.
    let fd: Int32
    /// The id the room knows this client by.
    let client: ClientID
    /// The room it joined; `nil` while being turned away (unknown room, shutdown).
    var host: RoomHost?
    /// A WebSocket message being reassembled from its fragments.
    var incoming: [UInt8] = []
    /// The welcome, until the first writable callback sends it.
    var welcome: [UInt8]?
    /// The room's `presets` list, when it changed since this member's last
    /// one (and after the welcome): sent before its next update (Rooms/RoomServiceBase+Presets.swift).
    var presets: [UInt8]?
    /// When the server first asked lws to call back on writable with frames
    /// waiting; cleared by that callback. A connection unwritable past the slow
    /// timeout is closed with 4008.
    var armedSince: Moment?
    /// Whether lws may hold unsent bytes of this connection's frames: a
    /// direct send the socket did not take whole was handed to lws
    /// (`tandem_send_text`). Until lws has sent them, rounds leave the
    /// member to its writable callback.
    var lwsMayHold = false
    /// A close the server decided on: sent from the next writable callback.
    var closing: (code: UInt16, reason: String)?
    /// Whether a receive callback returned -1 with `closing` as the close
    /// reason: lws sends that close frame itself, and a writable callback
    /// must not send a second one.
    var refused = false
    /// Whether the close frame went out while the client was still sending:
    /// the connection lingers, dropping what arrives, until the client's close
    /// or the linger timeout (`Server.lingerOrHangUp`).
    var closeSent = false
    /// The close code the peer sent, if it closed first.
    var peerCloseCode: UInt16?
    /// The room's `offered` count at its last update: what it was offered since
    /// then, minus what that update carried, is what conflation folded.
    var offeredMark = 0
    /// When its current run of rate_limited rejects began, and its latest one (Server.noteRateLimited).
    var floodStart: Moment?
    var lastRateLimited: Moment?
    /// The claims of its token while auth is on (replaced by an `auth` refresh);
    /// past their `exp` plus the leeway the connection is closed with 4401.
    var claims: Claims?

    /// Whether its welcome was made (a local room's at once, a replicated
    /// room's after the owner's admission).
    var welcomed = false
    /// What replicated rooms keep of it (Replicated/MemberRelay.swift); local rooms leave it be.
    var relay = MemberRelay()

    convenience init(session: UInt64, wsi: OpaquePointer, client: ClientID) {
        self.init(session: session, wsi: wsi, fd: lws_get_socket_fd(wsi), client: client)
    }

    /// A connection whose socket is `fd`. Rooms never touch `wsi` or `fd`
    /// (they go through `Delivery`): the in-process tests of the rooms give
    /// placeholders.
    init(session: UInt64, wsi: OpaquePointer, fd: Int32, client: ClientID) {
        self.session = session
        self.wsi = wsi
        self.fd = fd
        self.client = client
    }
}
