import Testing
import TandemAuth
import TandemCore
@testable import TandemServer

@_silgen_name("malloc_usable_size") private func mallocUsableSize(_ pointer: UnsafeRawPointer) -> Int

/// An idle connection's memory is a benchmark goal (≤ 1 KiB in all,
/// docs/benchmarks.md); these hold the parts of it that are ours.
@Suite("Connection layout")
struct ConnectionLayoutTests {
    @Test("a fresh connection's object stays within 240 bytes, and it makes no rarely used part")
    func freshConnectionIsSmall() {
        let connection = Connection(session: 1, wsi: nil, fd: 3, client: ClientID("c1"))
        #expect(mallocUsableSize(Unmanaged.passUnretained(connection).toOpaque()) <= 240)
        #expect(MemoryLayout<FrameReader>.size <= 48)
        // Reading the rare fields, or clearing them, makes nothing.
        #expect(connection.claims == nil && connection.peerCloseCode == nil && connection.incoming.isEmpty)
        connection.floodStart = nil
        connection.claims = nil
        #expect(connection.relay.relayed.isEmpty)
        #expect(!connection.holdsRare)
    }

    @Test("the rarely used fields keep what is set in them")
    func rareFieldsKeepTheirValues() {
        let connection = Connection(session: 1, wsi: nil, fd: 3, client: ClientID("c1"))
        connection.peerCloseCode = 4001
        connection.incoming.append(contentsOf: [1, 2, 3])
        connection.relay.registered = true
        connection.relay.admittedEpoch = 7
        connection.floodStart = .seconds(2)
        #expect(connection.holdsRare)
        #expect(connection.peerCloseCode == 4001)
        #expect(connection.incoming == [1, 2, 3])
        #expect(connection.relay.registered && connection.relay.admittedEpoch == 7)
        #expect(connection.floodStart == .seconds(2))
        connection.incoming.removeAll()
        #expect(connection.incoming.isEmpty && connection.relay.registered)
    }
}
