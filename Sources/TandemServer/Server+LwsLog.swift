import CLibWebSockets
import CTandemShim

/// The server whose log lws' lines go to. lws takes a bare C function for its
/// log, with no context pointer; one server runs per process.
nonisolated(unsafe) private weak var lwsLogOwner: Server?

extension Server {
    /// Sends lws' own log lines through our log, rate limited by kind like
    /// ours: a socket that fails to accept, once per poll, must not write
    /// half a million lines a minute. Errors always; warnings from `info`;
    /// notices only at `debug`.
    func routeLwsLog() {
        lwsLogOwner = self
        prepareHeaderOverflowAnswer()
        // Warnings always: "More hdr frags than we can deal with" is one
        // (a 431, Server+HeaderLimits.swift); `throttled` drops them below `info`.
        let levels = log.level >= .debug ? (LLL_ERR | LLL_WARN | LLL_NOTICE) : (LLL_ERR | LLL_WARN)
        lws_set_log_level(Int32(levels), { level, line in
            guard let line, let server = lwsLogOwner else { return }
            server.lwsLogLine(level, String(cString: line))
        })
    }

    private func lwsLogLine(_ level: Int32, _ line: String) {
        var text = line
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        if noteHeaderOverflow(text) { return }
        // How lws lets go of a connection whose socket the server took (Transport/): not a failure.
        if ownSockets != nil && text.hasSuffix("user ESTABLISHED failed connection") { return }
        let name = level & Int32(LLL_ERR) != 0 ? "error" : level & Int32(LLL_WARN) != 0 ? "warn" : "notice"
        metrics.transport.lwsLogLines[name, default: 0] += 1
        if text.hasPrefix("accept: errno") { metrics.transport.acceptErrors += 1 }
        // Lines that differ only in numbers (descriptors, errno, addresses) are one kind.
        let kind = "lws " + String(text.unicodeScalars.filter { !("0"..."9").contains($0) }.prefix(48))
        let ours: LogLevel = name == "error" ? .error : name == "warn" ? .warn : .debug
        throttled(kind, ours, "lws: \(text)")
    }
}
