import TandemCore

/// The server is the rooms' way to their connections (`Delivery`) and their
/// OSC bridge's (`RoomObserver`): each method is the transport's own
/// (Server+WebSocket.swift, Server+FanOut.swift, Server+HTTP.swift, Server+OSC.swift).
extension Server: Delivery, RoomObserver {
    func refreshProblem(_ connection: Connection, in host: RoomHost, token: String, at now: Moment) -> String? {
        checkRefresh(connection, in: host, token: token, at: now) // Server+Auth.swift
    }

    var listeningPort: Int { port }

    var connectionCount: Int { connections.count }
}
