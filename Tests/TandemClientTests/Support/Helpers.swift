import TandemTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TandemClient

/// The room URL of a test server.
func roomURL(_ server: ServerProcess, _ room: String = "demo") -> String {
    "ws://127.0.0.1:\(server.port)/rooms/\(room)"
}

/// A server secret in a temporary file, for `--auth-secret-file`; removed when dropped.
final class SecretFile {
    let secret = String(repeating: "s3cret-", count: 6)
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-secret-\(UUID().uuidString)").path

    init() throws {
        try secret.write(toFile: path, atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Waits (≤ `timeout` s) for `condition`; false when it never held.
func eventually(timeout: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return condition()
}

/// Collects a stream's elements in the background, for a test to inspect.
final class Collector<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<Element>) {
        task = Task { [weak self] in
            for await item in stream { self?.lock.withLock { self?.items.append(item) } }
        }
    }

    var all: [Element] { lock.withLock { items } }

    deinit { task?.cancel() }
}

/// One HTTP request to the test server; the status and body.
func http(_ method: String, _ server: ServerProcess, _ path: String, body: String? = nil) async throws -> (Int, String) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
    request.httpMethod = method
    if let body {
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}
