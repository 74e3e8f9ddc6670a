import TandemTestSupport
import Foundation
import Testing

@Suite("Shutdown")
struct ShutdownTests {
    @Test("SIGTERM closes every connected client with 1001 and the process exits 0 within 5 s")
    func sigtermClosesWith1001() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let a = try TandemClient(port: server.port)
        let b = try TandemClient(port: server.port)
        let started = Date()
        server.terminate()
        let closedA = try a.waitForClose(timeout: 5)
        let closedB = try b.waitForClose(timeout: 5)
        #expect(closedA.code == 1001)
        #expect(closedB.code == 1001)
        let exit = server.waitForExit(timeout: max(0.1, 5 - Date().timeIntervalSince(started)))
        #expect(exit == .exited(0), "stderr:\n\(server.stderrLines.joined(separator: "\n"))")
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("SIGTERM with no one connected exits 0 promptly")
    func sigtermIdle() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let started = Date()
        #expect(server.stop() == .exited(0))
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(server.stderrLines.contains { $0.hasSuffix("stopped") })
    }
}
