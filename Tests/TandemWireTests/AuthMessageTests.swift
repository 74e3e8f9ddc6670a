import Testing
import TandemCore
import TandemWire

@Suite("The auth message")
struct AuthMessageTests {
    @Test("an auth message with a seq and a string token decodes to .auth, other keys ignored")
    func decodes() {
        #expect(decode(#"{"type":"auth","seq":4,"token":"a.b.c"}"#) == .auth(seq: 4, token: "a.b.c"))
        #expect(decode(#"{"token":"t","x":[1],"seq":9,"type":"auth"}"#) == .auth(seq: 9, token: "t"))
    }

    @Test("an auth without a string token is bad_message with its seq",
          arguments: [#"{"type":"auth","seq":4}"#, #"{"type":"auth","seq":4,"token":null}"#, #"{"type":"auth","seq":4,"token":7}"#])
    func needsToken(frame: String) {
        #expect(decode(frame) == .refused(seq: 4, code: .badMessage, message: "token must be a string"))
    }

    @Test("an auth without a usable seq is bad_message without seq")
    func needsSeq() {
        #expect(decode(#"{"type":"auth","seq":0,"token":"t"}"#) == .refused(seq: nil, code: .badMessage, message: "seq must be a whole number from 1 to 2^53"))
    }

    @Test("the welcome carries the member's role; the API's view of a room carries none")
    func welcomeRole() throws {
        var room = Room(schema: .demo)
        let (welcome, _) = room.join("c1", name: "Ann", role: .viewer, at: .zero)
        let json = try JSONParser.parse(OutboundEncoder.welcome(welcome))
        #expect(json["role"] == "viewer")
        #expect(try JSONParser.parse(OutboundEncoder.welcome(room.snapshot))["role"] == nil)
    }
}
