import Foundation

/// Holds Swift's cooperative thread pool: `tasks` tasks that each block the
/// thread they run on until `release()`. Started with more tasks than the pool
/// has threads, so that while it holds, every pool thread is blocked and work
/// is still waiting (`held < total`): nothing else on the pool runs.
/// Its waits are plain blocking waits, for plain threads (not for async code).
final class PoolBlocker: @unchecked Sendable {
    let total: Int
    private let condition = NSCondition()
    private var started = 0
    private var released = false

    init(tasks: Int) {
        total = tasks
        for _ in 0..<tasks { Task.detached { [self] in hold() } }
    }

    /// How many of the tasks hold a thread now.
    var held: Int {
        condition.lock()
        defer { condition.unlock() }
        return started
    }

    /// Blocks the calling thread until `count` tasks hold a thread; false after `timeout` s.
    func waitUntilHeld(_ count: Int, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while started < count {
            if !condition.wait(until: deadline) { return started >= count }
        }
        return true
    }

    /// Lets every task go (those that never got a thread end as soon as they get one).
    func release() {
        condition.lock()
        released = true
        condition.broadcast()
        condition.unlock()
    }

    private func hold() {
        condition.lock()
        started += 1
        condition.broadcast()
        while !released { condition.wait() }
        condition.unlock()
    }
}

/// Polls `condition` from a plain thread every 10 ms until it holds; false after `timeout` s.
func waitOnThisThread(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
