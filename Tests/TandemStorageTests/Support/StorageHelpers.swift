import Foundation
import TandemCore
@testable import TandemStorage

/// Runs `body` with a fresh, empty folder under the system temp folder, removed afterwards.
func withTempFolder<T>(_ body: (String) throws -> T) throws -> T {
    let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("tandem-storage-\(UUID().uuidString)")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// A schema from definitions; the test fails loudly if it does not validate.
func schema(_ id: String = "demo", _ controls: [ControlDefinition]) throws -> RoomSchema {
    try RoomSchema(validating: RoomDefinition(id: id, title: id.capitalized, controls: controls))
}

/// The demo room's control `id`.
func demoControl(_ id: String) -> Control {
    RoomSchema.demo.controls[RoomSchema.demo.index(of: id)!]
}

/// A valid committed state of a demo control: `thumb` set to `value` as a `set` would.
func demoState(_ id: String, _ thumb: Thumb?, _ value: Double) -> ControlState {
    let control = demoControl(id)
    return control.setting(thumb, to: value, against: control.initial)
}

/// A log row for room `room`.
func commit(_ revision: Int, _ control: String, _ state: ControlState, room: String = "demo",
            client: String = "c1", name: String = "Ann", time: Int64 = 1_700_000_000_000) -> StoredCommit {
    StoredCommit(room: room, revision: revision, control: control, state: state, client: client, name: name, time: time)
}

/// Ten commits to the demo room's `gain`, revisions `from` ..< `from + 10`, one a second.
func gainCommits(from: Int = 1, count: Int = 10) -> [StoredCommit] {
    (from..<(from + count)).map { r in
        commit(r, "gain", demoState("gain", nil, Double(r % 100) / 100), time: 1_700_000_000_000 + Int64(r) * 1000)
    }
}
