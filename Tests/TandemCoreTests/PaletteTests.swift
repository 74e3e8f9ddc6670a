import Testing
@testable import TandemCore

@Suite("Colours of people")
struct PaletteTests {
    @Test("the palette holds 24 distinct #RRGGBB colours")
    func paletteIsDistinct() {
        #expect(Peer.palette.count == 24)
        #expect(Set(Peer.palette).count == Peer.palette.count)
        #expect(Peer.palette.allSatisfy { $0.count == 7 && $0.hasPrefix("#") && $0.dropFirst().allSatisfy(\.isHexDigit) })
    }

    @Test("24 people in a room all get different colours; a colour freed by one who left goes to the next")
    func twentyFourPeopleGetTwentyFourColours() {
        var room = Room(schema: .demo)
        for k in 1...24 { _ = room.join(ClientID("c\(k)"), name: "P\(k)", at: .zero) }
        #expect(Set(room.peers.map(\.color)).count == 24)
        let freed = room.peers.first { $0.client == "c7" }!.color
        _ = room.leave("c7", at: .zero)
        _ = room.join("c25", name: "P25", at: .zero)
        #expect(room.peers.first { $0.client == "c25" }?.color == freed)
    }
}
