import Foundation
import Testing
import TandemCore
import TandemRelay

/// Writes the relay fuzzer's seeds, `fuzz/corpus/RelayCodec/`, from the test
/// fixtures: every request and small publications of both rooms (the fuzzer's
/// `max_len` is 4 KB). Off unless `TANDEM_WRITE_RELAY_CORPUS` is set: the
/// seeds are checked in.
@Suite("Writing the relay fuzzer's seeds")
struct RelayCorpusWriter {
    @Test("writes fuzz/corpus/RelayCodec", .enabled(if: ProcessInfo.processInfo.environment["TANDEM_WRITE_RELAY_CORPUS"] != nil))
    func writeCorpus() throws {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fuzz/corpus/RelayCodec")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var seeds: [(String, [UInt8])] = []
        for (n, request) in Fixtures.requests.enumerated() {
            seeds.append(("request-\(n)", RelayCodec.encode(request)))
        }
        for schema in Fixtures.schemas {
            for (n, publication) in Fixtures.publications(in: schema).enumerated() {
                let bytes = RelayCodec.encode(publication)
                if bytes.count <= 4096 { seeds.append(("\(schema.id)-publication-\(n)", bytes)) }
            }
            // A delta of one change and one gesture per control: every kind's state JSON, small.
            let delta = RoomDelta(revision: 3, changes: Array(Fixtures.changes(in: schema).prefix(schema.controls.count * 2)),
                                  gestures: Array(Fixtures.gestures(in: schema).prefix(8)), joined: Array(Fixtures.peers.prefix(1)),
                                  left: ["c4"], present: 2, acks: [MemberAck(client: "c1", seq: 2)],
                                  rejects: Array(Fixtures.rejects.prefix(2)), admitted: [])
            seeds.append(("\(schema.id)-delta-small", RelayCodec.encode(.delta(epoch: 1, sequence: 2, owner: "node-a", delta))))
        }
        for (name, bytes) in seeds {
            #expect(bytes.count <= 4096, "\(name) is \(bytes.count) bytes")
            try Data(bytes).write(to: directory.appendingPathComponent("\(name).bin"))
        }
    }
}
