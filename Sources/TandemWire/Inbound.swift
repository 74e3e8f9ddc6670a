import TandemCore

/// What one text frame from a client turned out to be.
public enum Inbound: Sendable, Hashable {
    /// A well-formed message for the room to apply.
    case message(ClientMessage)
    /// A message refused before it reached a room: `seq` when it could be read.
    ///
    /// The server answers with a `reject` frame (`seq` null when unknown) and
    /// keeps the connection open. The room's own checks (unknown control or
    /// thumb, values, holds, rate) come later and produce their own rejects.
    case refused(seq: Int?, code: RejectCode, message: String)
    /// `{"type":"auth","seq":N,"token":"…"}`: a fresh token for the server to
    /// check. Not a room operation: the room only acknowledges it
    /// (`Room.acknowledge`), and auth stays out of the engine.
    case auth(seq: Int, token: String)
    /// `{"type":"preset","seq":N,"action":…,"name":…}`: the server keeps a
    /// room's presets, so it handles them itself (docs/presets.md); a recall
    /// reaches the room as an `Operation.batch`.
    case preset(seq: Int, PresetRequest)
    /// `{"type":"restore","seq":N,"rev":R}` (RestoreMessage.swift): the
    /// server reads the states at `revision` from storage and applies them as
    /// one `Operation.batch`, or refuses an unknown or pruned revision.
    case restore(seq: Int, revision: Int)
}
