import TandemTestSupport
import Foundation
import Testing

@Suite("Shutdown")
struct ShutdownTests {
    // How fast the process exits is not asserted (a busy machine makes any bound
    // a coin toss): the waits are generous and the test checks what happens.
    @Test("SIGTERM closes every connected client with 1001 and the process exits 0")
    func sigtermClosesWith1001() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        let a = try WireClient(port: server.port)
        let b = try WireClient(port: server.port)
        server.terminate()
        let closedA = try a.waitForClose(timeout: 30)
        let closedB = try b.waitForClose(timeout: 30)
        #expect(closedA.code == 1001)
        #expect(closedB.code == 1001)
        let exit = server.waitForExit(timeout: 30)
        #expect(exit == .exited(0), "stderr:\n\(server.stderrLines.joined(separator: "\n"))")
    }

    @Test("SIGTERM with no one connected exits 0")
    func sigtermIdle() throws {
        let server = try ServerProcess.start()
        defer { server.kill() }
        #expect(server.stop(timeout: 30) == .exited(0))
        #expect(server.stderrLines.contains { $0.hasSuffix("stopped") })
    }
}
