import Foundation
import TandemClient
import TandemCore

// tandem-follow ws://localhost:8080/rooms/demo [name]
// Follows a room: prints every control's value, then every change as it lands.
let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: tandem-follow ws://HOST:PORT/rooms/ROOM [NAME]\n".utf8))
    exit(2)
}
let token = ProcessInfo.processInfo.environment["TANDEM_TOKEN"]
do {
    let room = try await TandemClient.connect(arguments[1], name: arguments.count > 2 ? arguments[2] : "follower", token: token)
    for control in room.schema?.controls ?? [] {
        print("\(control.id) = \(room.state(of: control.id).map { "\($0)" } ?? "?")")
    }
    Task {
        for await event in room.events { print("-- \(event)") }
    }
    for await change in room.changes {
        print("\(change.control) = \(change.value.map { "\($0)" } ?? "\(change.state)") by \(change.name ?? change.by ?? "?") rev \(change.rev)")
    }
} catch {
    FileHandle.standardError.write(Data("tandem-follow: \(error)\n".utf8))
    exit(1)
}
