#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TandemServer

@Suite("Process metrics: open descriptors on new and old kernels")
struct ProcessMetricsTests {
    @Test("the directory count (old kernels) follows descriptors opened and closed, and agrees with the size (Linux 6.2+)")
    func descriptorCounts() throws {
        // Other suites run in this process at the same time and open and close
        // descriptors of their own: 2,000 of ours stand well above their noise.
        let before = try #require(ProcessMetrics.countDirectory())
        var pipes = [Int32](repeating: -1, count: 2_000)
        pipes.withUnsafeMutableBufferPointer { fds in
            for k in stride(from: 0, to: fds.count, by: 2) { #expect(pipe(fds.baseAddress! + k) == 0) }
        }
        let during = try #require(ProcessMetrics.countDirectory())
        let size = ProcessMetrics.directorySize()
        for fd in pipes { close(fd) }
        let after = try #require(ProcessMetrics.countDirectory())
        #expect(during - before > 1_500 && during - after > 1_500, "\(before) \(during) \(after)")
        if let size { #expect(abs(size - during) < 200, "size \(size), counted \(during)") }
    }

    @Test("the exposition names every process series once")
    func exposition() {
        let text = ProcessMetrics().exposition()
        for name in ["process_open_fds", "process_max_fds", "process_resident_memory_bytes",
                     "process_virtual_memory_bytes", "process_cpu_seconds_total", "process_start_time_seconds"] {
            #expect(text.components(separatedBy: "# TYPE \(name) ").count == 2, "\(name)")
        }
    }
}
