import TandemCore

/// When to hand freed heap back to the kernel (glibc's `malloc_trim`).
///
/// A burst of connections leaves freed memory behind inside the heap: each
/// handshake's header table and lws connection, freed once the socket is the
/// server's own, sit between the connections that stay, and a table that
/// doubled leaves its old storage. glibc returns the top of the heap by
/// itself but never those holes, so after 5,000 connections about a third of
/// the heap's growth was free memory still counted in the process's RSS.
/// Once a burst of opens or closes has settled, a trim gives the whole free
/// pages back (docs/benchmarks.md, "Idle memory").
///
/// Pure: the server calls `tick` from its housekeeping timer and trims when
/// it says so.
struct MemoryTrim {
    /// Opens and closes since the last trim worth one.
    static let churn = 256
    /// How long the count of connections must stay put before a trim.
    static let quiet = 1.0

    private var churned = 0
    private var lastCount = 0
    private var lastChange = Moment.zero

    /// A connection opened or closed.
    mutating func note() { churned += 1 }

    /// Every housekeeping tick, with the connections open now: whether to trim now.
    mutating func tick(open count: Int, at now: Moment) -> Bool {
        if count != lastCount {
            lastCount = count
            lastChange = now
            return false
        }
        guard churned >= Self.churn, now.seconds(since: lastChange) >= Self.quiet else { return false }
        churned = 0
        return true
    }
}
