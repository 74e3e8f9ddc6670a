import Foundation
import Testing
import TandemCore
import TandemStorage

/// How many commits a second `append` takes, for docs/storage.md. Printed, never
/// asserted (a timing assertion fails on a busy machine and proves nothing).
///
///     TANDEM_STORAGE_BENCH=1 swift test --filter TandemStorageTests.StorageThroughput
///
/// `TANDEM_STORAGE_BENCH_DIR` puts the files on another disk (default: the temp folder).
@Suite("Storage throughput", .enabled(if: ProcessInfo.processInfo.environment["TANDEM_STORAGE_BENCH"] != nil), .serialized)
struct StorageThroughput {
    @Test("commits per second for batches of 1 and of 100, in both durability modes (printed, not asserted)")
    func commitsPerSecond() throws {
        let seconds = Double(ProcessInfo.processInfo.environment["TANDEM_STORAGE_BENCH_SECONDS"] ?? "") ?? 3
        let base = ProcessInfo.processInfo.environment["TANDEM_STORAGE_BENCH_DIR"]
        print("storage throughput: SQLite \(Storage.sqliteVersion), \(seconds) s per case, files in \(base ?? NSTemporaryDirectory())")
        for durability in Durability.allCases {
            for batch in [1, 100] {
                try withTempFolder { folder in
                    let dir = base.map { "\($0)/tandem-bench-\(UUID().uuidString)" } ?? folder
                    defer { if base != nil { try? FileManager.default.removeItem(atPath: dir) } }
                    let rate = try measure(path: dir + "/bench.db", durability: durability, batch: batch, seconds: seconds)
                    print("storage throughput: durability=\(durability) batch=\(batch): \(rate.commits) commits in \(rate.batches) transactions, \(Int(rate.perSecond)) commits/s, \(String(format: "%.3f", rate.msPerBatch)) ms per append")
                }
            }
        }
        for batch in [1, 100] {
            let rate = try measure(path: ":memory:", durability: .normal, batch: batch, seconds: seconds)
            print("storage throughput: :memory: batch=\(batch): \(Int(rate.perSecond)) commits/s, \(String(format: "%.3f", rate.msPerBatch)) ms per append (no I/O: the cost of storage itself)")
        }
    }

    private func measure(path: String, durability: Durability, batch: Int, seconds: Double) throws
        -> (commits: Int, batches: Int, perSecond: Double, msPerBatch: Double) {
        let storage = try Storage(path: path, durability: durability)
        defer { storage.close() }
        try storage.saveRoom(.demo)
        var revision = 0
        func nextBatch() -> [StoredCommit] {
            (0..<batch).map { _ in
                revision += 1
                return StoredCommit(room: "demo", revision: revision, control: "gain", state: .slider(value: Double(revision % 101) / 100),
                                    client: "c\(revision % 7)", name: "Bench", time: 1_700_000_000_000 + Int64(revision))
            }
        }
        for _ in 0..<10 { try storage.append(nextBatch()) } // warm-up: statements prepared, WAL created
        let clock = ContinuousClock()
        let start = clock.now
        var batches = 0
        while clock.now - start < .seconds(seconds) {
            try storage.append(nextBatch())
            batches += 1
        }
        let elapsed = clock.now - start
        let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let commits = batches * batch
        return (commits, batches, Double(commits) / total, total * 1000 / Double(batches))
    }
}
