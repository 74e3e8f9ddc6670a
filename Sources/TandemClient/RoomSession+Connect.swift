extension RoomSession {
    /// The platform's transport: libwebsockets on Linux, URLSessionWebSocketTask on Apple platforms.
    /// A new one on every call, with its own thread (Linux) or queue (Apple) for the session's
    /// I/O, timers and token provider calls; sessions given one transport share its thread.
    public static var defaultTransport: any WebSocketTransport {
        #if canImport(Darwin)
        URLSessionTransport()
        #else
        LwsTransport()
        #endif
    }

    /// Joins the room at `url` (`ws://host:port/rooms/ROOM`) and returns once
    /// its welcome arrived. `tokenProvider`, when given, is asked for the first
    /// token (unless `token` is given) and again before each one expires.
    /// `transport` is `defaultTransport` when not given.
    public static func connect(_ url: String, name: String? = nil, token: String? = nil,
                               tokenProvider: (@Sendable () async throws -> String)? = nil,
                               transport: (any WebSocketTransport)? = nil) async throws -> RoomSession {
        var first = token
        if first == nil, let tokenProvider { first = try await tokenProvider() }
        let session = RoomSession(url: url, name: name, token: first, tokenProvider: tokenProvider,
                                  transport: transport ?? defaultTransport)
        try await session.connectFirst()
        return session
    }
}
