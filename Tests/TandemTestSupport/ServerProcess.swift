import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a test server could not be started.
public struct ServerProcessError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

/// The real `tandem` binary running as a child process on a free port.
///
/// Started with `--port 0` plus the given flags; `start` returns once the
/// start line (`info tandem listening on http://127.0.0.1:PORT …`) has
/// appeared on stderr. Every stderr line is kept for the test to inspect.
/// The reader thread and the test share state only under `lock`.
///
/// The default bounds of its waits (60 s for the start line, 30 s for an
/// exit) are generous: they are reached only by a hang, never by a machine
/// whose cores are busy with other work.
public final class ServerProcess: @unchecked Sendable {
    /// How a stopped server ended.
    public enum Exit: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// Still running after the wait (it was then killed).
        case timedOut

        public var description: String {
            switch self {
            case let .exited(code): "exit \(code)"
            case let .signalled(signal): "killed by signal \(signal)"
            case .timedOut: "still running after the wait"
            }
        }
    }

    /// The package root: this file is Tests/TandemTestSupport/ServerProcess.swift.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // TandemTestSupport
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent()

    /// The debug binary `swift build --product tandem` writes.
    public static let binary: URL = packageRoot.appendingPathComponent(".build/debug/tandem")

    private let process: Process
    private let stderrPipe: Pipe
    private let condition = NSCondition()
    private var lines: [String] = []
    private var announcedPort: Int?
    private var stderrClosed = false
    private var spawnFailure: String?
    /// The port the server listens on.
    public private(set) var port = 0

    /// The child's process id.
    public var pid: Int32 { process.processIdentifier }

    /// Every stderr line so far.
    public var stderrLines: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// Starts `tandem --port 0 flags…` and waits (≤ `timeout` s) for its start line.
    public static func start(_ flags: [String] = [], timeout: Double = 60) throws -> ServerProcess {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ServerProcessError(description:
                "the tandem binary is missing at \(binary.path): run `swift build --product tandem` first")
        }
        let server = ServerProcess(flags: flags)
        try server.launch(timeout: timeout)
        return server
    }

    private init(flags: [String]) {
        process = Process()
        process.executableURL = Self.binary
        // Each test starts from the initial rooms unless it names its own data file.
        process.arguments = (flags.contains("--port") ? [] : ["--port", "0"]) + flags + (flags.contains("--data") ? [] : ["--data", ":memory:"])
        process.currentDirectoryURL = Self.packageRoot
        stderrPipe = Pipe()
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    private func launch(timeout: Double) throws {
        try spawnWithSignalsUnblocked()
        let fd = stderrPipe.fileHandleForReading.fileDescriptor
        let reader = Thread { [self] in readStderr(fd) }
        reader.name = "tandem stderr \(process.processIdentifier)"
        reader.start()

        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        while announcedPort == nil, !stderrClosed {
            if !condition.wait(until: deadline) { break }
        }
        let found = announcedPort
        let seen = lines
        condition.unlock()
        guard let found else {
            kill()
            let why = seen.isEmpty ? "nothing on stderr" : "stderr:\n" + seen.joined(separator: "\n")
            throw ServerProcessError(description: "tandem did not print its start line within \(timeout) s; \(why)")
        }
        port = found
    }

    /// Runs the process from a fresh thread whose signal mask is empty.
    ///
    /// A spawned child inherits the spawning thread's signal mask, and the
    /// test runner's worker threads block nearly every signal: a server
    /// started from one would never see SIGTERM.
    private func spawnWithSignalsUnblocked() throws {
        let done = DispatchSemaphore(value: 0)
        let spawner = Thread { [self] in
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            var failure: String?
            do { try process.run() } catch { failure = "\(error)" }
            condition.lock()
            spawnFailure = failure
            condition.unlock()
            done.signal()
        }
        spawner.start()
        done.wait()
        condition.lock()
        let failure = spawnFailure
        condition.unlock()
        if let failure {
            throw ServerProcessError(description: "cannot run \(Self.binary.path): \(failure)")
        }
    }

    /// Reads stderr line by line until EOF, noting the port from the start line.
    private func readStderr(_ fd: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            pending.append(contentsOf: chunk[0..<n])
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                condition.lock()
                lines.append(line)
                if announcedPort == nil, let port = Self.port(inStartLine: line) {
                    announcedPort = port
                }
                condition.broadcast()
                condition.unlock()
            }
        }
        condition.lock()
        if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
        stderrClosed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The port in `… tandem listening on http://HOST:PORT …`, if this is that line.
    public static func port(inStartLine line: String) -> Int? {
        guard let range = line.range(of: "tandem listening on http://") else { return nil }
        let address = line[range.upperBound...].prefix { $0 != " " }
        guard let colon = address.lastIndex(of: ":") else { return nil }
        return Int(address[address.index(after: colon)...])
    }

    /// The server's resident set size in bytes (VmRSS from /proc/PID/status).
    public func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kb = Int(fields[1]) { return kb * 1024 }
        }
        return nil
    }

    /// Sends SIGTERM without waiting.
    public func terminate() {
        if process.isRunning { Glibc.kill(pid, SIGTERM) }
    }

    /// Waits up to `timeout` s for the process to end; kills it if it has not.
    public func waitForExit(timeout: Double = 30) -> Exit {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() >= deadline {
                Glibc.kill(pid, SIGKILL)
                process.waitUntilExit()
                return .timedOut
            }
            usleep(10_000) // polls the exit; the deadline bounds the wait
        }
        switch process.terminationReason {
        case .exit: return .exited(process.terminationStatus)
        case .uncaughtSignal: return .signalled(process.terminationStatus)
        @unknown default: return .exited(process.terminationStatus)
        }
    }

    /// SIGTERM, then waits (≤ `timeout` s) for the exit.
    @discardableResult
    public func stop(timeout: Double = 30) -> Exit {
        terminate()
        return waitForExit(timeout: timeout)
    }

    /// SIGKILL, for cleanup: no graceful shutdown to wait for.
    public func kill() {
        if process.isRunning {
            Glibc.kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}
