import CTandemRedis
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` on a free port of 127.0.0.1, in a temporary directory,
/// without persistence. `kill()` and `start()` again reuse the port.
public final class RedisServerProcess {
    public static let candidates = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]

    /// The binary, or an XCTSkip that says how to get it.
    public static func binary() throws -> String {
        if let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return path }
        throw XCTSkip("redis-server is not installed (apt-get install redis-server; `make test` installs it)")
    }

    public let binary: String
    public let port: Int
    public let directory: URL
    private var process: Process?

    public init() throws {
        binary = try Self.binary()
        port = try Self.freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-redis-\(getpid())-\(port)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    public func start(extra: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", directory.path] + extra
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // Generous: a loaded machine may take a while to start it; only a hang reaches this.
        let deadline = Date().addingTimeInterval(30)
        while !Self.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                throw XCTSkip("redis-server did not start on port \(port)")
            }
            usleep(10_000)
        }
    }

    /// SIGKILL, like a crash: no goodbye on the connections.
    public func kill() {
        guard let process, process.isRunning else { self.process = nil; return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    public var url: String { "redis://127.0.0.1:\(port)" }

    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw XCTSkip("no socket for a free port") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw XCTSkip("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// A libuv loop of the test's own, run on the test's thread; a 5 ms ticker makes
/// every run return soon, so a condition is checked often. `run(until:)` waits
/// for an event with a generous default bound (30 s: only a hang reaches it);
/// `run(for:)` is no proof that something will not happen later.
public final class TestLoop {
    public let loop: UnsafeMutableRawPointer
    private let ticker: OpaquePointer

    public init() {
        loop = tandem_redis_loop_new()!
        ticker = tandem_redis_timer_new(loop, nil, nil)!
        tandem_redis_timer_start(ticker, 5, 5)
    }

    /// Runs the loop until `condition` holds; false after `timeout` seconds.
    @discardableResult
    public func run(until condition: () -> Bool, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            tandem_redis_loop_run_once(loop)
        }
        return true
    }

    /// Runs the loop for `seconds`.
    public func run(for seconds: TimeInterval) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline { tandem_redis_loop_run_once(loop) }
    }

    public func close() {
        tandem_redis_timer_free(ticker)
        tandem_redis_loop_free(loop)
    }
}

/// A TCP socket on 127.0.0.1 that listens and never accepts nor answers.
public final class SilentListener {
    public let fd: Int32
    public let port: Int

    public init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw XCTSkip("no socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = self.fd
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 && listen(fd, 8) == 0
            }
        }
        guard ok else { Glibc.close(fd); throw XCTSkip("cannot listen") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    public func close() { Glibc.close(fd) }
}
