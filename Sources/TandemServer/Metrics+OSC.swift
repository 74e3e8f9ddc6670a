import TandemCore
import TandemOSC

/// The counters of the OSC bridge (docs/osc.md, "Metrics").
struct OSCMetrics {
    enum Kind: String, CaseIterable {
        case commit, preview, dump
    }

    /// Messages that came in (a bundle's each).
    var received = 0
    /// Writes a room applied.
    var applied = 0
    /// Messages dropped, by reason: an `OSCDrop` label, a room's reject code, or
    /// `overflow` (datagrams the kernel dropped, its receive buffer full).
    var dropped: [String: Int] = [:]
    /// Messages sent, per target, by kind.
    var sent: [Kind: Int] = [:]
    /// Messages liblo could not send.
    var sendErrors = 0

    /// Every reason a drop can have, so that each series exists from the start.
    static let reasons: [String] = OSCDrop.Label.allCases.map(\.rawValue) + ["overflow"]
        + RejectCode.allCases.map(\.rawValue).filter { code in !OSCDrop.Label.allCases.contains { $0.rawValue == code } }

    func exposition() -> String {
        var out = PrometheusText()
        out.metric("tandem_osc_received_total", "counter", "OSC messages received (each message of a bundle).", [("", received)])
        out.metric("tandem_osc_applied_total", "counter", "OSC writes a room applied.", [("", applied)])
        out.metric("tandem_osc_dropped_total", "counter", "OSC messages dropped, by reason (docs/osc.md, \"Drops\").",
                   Self.reasons.map { ("{reason=\"\($0)\"}", dropped[$0, default: 0]) })
        out.metric("tandem_osc_sent_total", "counter", "OSC messages sent, counted once per target, by kind.",
                   Kind.allCases.map { ("{kind=\"\($0.rawValue)\"}", sent[$0, default: 0]) })
        out.metric("tandem_osc_send_errors_total", "counter", "OSC messages liblo could not send.", [("", sendErrors)])
        return out.text
    }
}
