import Foundation
import TandemClient
import TandemCore

// tandem-follow ws://localhost:8080/rooms/demo [name]
// Follows a room: prints every control's value, then every change as it lands.
/// A state as a person reads it.
func show(_ state: ControlState) -> String {
    switch state {
    case let .slider(value): "\(value)"
    case let .snap(index, value): "\(value) (index \(index))"
    case let .range(range): "\(range.lower)…\(range.upper)"
    case let .color(rgb): "rgb(\(rgb.red), \(rgb.green), \(rgb.blue))"
    case let .gauge(value, _): "\(value)"
    case let .toggle(on): on ? "on" : "off"
    case let .xy(x, y): "(\(x), \(y))"
    case let .button(presses): "\(presses) presses"
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: tandem-follow ws://HOST:PORT/rooms/ROOM [NAME]\n".utf8))
    exit(2)
}
/// One line out at once (unbuffered: a pipe sees each change as it lands).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
let token = ProcessInfo.processInfo.environment["TANDEM_TOKEN"]
do {
    let room = try await RoomSession.connect(arguments[1], name: arguments.count > 2 ? arguments[2] : "follower", token: token)
    // Subscribed before the values are read: a change landing while they are
    // printed is shown after them, not lost. One at or below the printed
    // revision is in the values already.
    let changes = room.changes
    let printed = room.rev
    for control in room.schema?.controls ?? [] {
        say("\(control.id) = \(room.state(of: control.id).map(show) ?? "?")")
    }
    Task {
        for await event in room.events { say("-- \(event)") }
    }
    for await change in changes where change.rev > printed {
        say("\(change.control) = \(show(change.state)) by \(change.name ?? change.by ?? "?") rev \(change.rev)")
    }
} catch {
    FileHandle.standardError.write(Data("tandem-follow: \(error)\n".utf8))
    exit(1)
}
