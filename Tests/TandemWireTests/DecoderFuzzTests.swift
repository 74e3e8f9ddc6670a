import Testing
import TandemCore
import TandemWire
import TandemTestSupport

/// Every frame a stranger can send must end as a message or a refusal: never
/// a crash, never a hang, never a message the room cannot take.
@Suite("Decoder fuzzing")
struct DecoderFuzzTests {
    static let seeds: [String] = [
        #"{"type":"drag","seq":1,"control":"blanks","thumb":"upper","phase":"begin"}"#,
        #"{"type":"drag","seq":2,"control":"blanks","thumb":"upper","phase":"move","dx":0.25}"#,
        #"{"type":"drag","seq":4,"control":"size","thumb":"index","phase":"begin","at":0.8}"#,
        #"{"type":"drag","seq":5,"control":"size","thumb":"index","phase":"cancel"}"#,
        #"{"type":"set","seq":6,"control":"color","thumb":"red","value":0.5}"#,
        ##"{"type":"set","seq":7,"control":"color","value":"#FF8800"}"##,
        #"{"type":"step","seq":8,"control":"size","by":-1}"#,
        #"{"type":"auth","seq":9,"token":"a.b.c"}"#,
        #"{"type":"preset","seq":10,"action":"rename","name":" Warm ","to":"Wärmer"}"#,
        #"{"type":"restore","seq":10,"rev":500}"#,
        #"{"type":"set","seq":9,"control":"n\u00e9\ud83d\ude00","value":[1,{"a":null}],"x":-1.5e-3}"#,
    ]

    /// The bytes JSON is made of, so random frames get past the first byte often.
    static let alphabet = Array(#"{}[]":,.-+0123456789eEtrufalsn\ "#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xF4, 0xFF]

    func check(_ bytes: [UInt8]) {
        switch MessageDecoder.decode(bytes) {
        case let .message(message):
            #expect((1...MessageDecoder.maxSeq).contains(message.seq))
            switch message.operation {
            case let .drag(_, _, _, pointer):
                if case let .dx(x, dy)? = pointer { #expect(x.isFinite && dy.isFinite) }
                if case let .at(x, y)? = pointer { #expect(x.isFinite && (y?.isFinite ?? true)) }
            case let .set(_, _, .number(x)):
                #expect(x.isFinite)
            case let .step(_, _, by, byY):
                #expect(by.isFinite && (byY?.isFinite ?? true))
            default:
                break
            }
        case let .refused(seq, _, message):
            #expect(!message.isEmpty)
            if let seq { #expect(seq >= 1) }
        case let .auth(seq, _):
            #expect((1...MessageDecoder.maxSeq).contains(seq))
        case let .preset(seq, request):
            #expect((1...MessageDecoder.maxSeq).contains(seq))
            #expect(!request.name.isEmpty && request.name.count <= PresetName.maxLength)
        case let .restore(seq, revision):
            #expect((1...MessageDecoder.maxSeq).contains(seq))
            #expect(revision >= 0)
        }
        // Whatever parses must also write back and parse to the same value.
        if let json = try? JSONParser.parse(bytes) {
            #expect((try? JSONParser.parse(json.bytes)) == json)
        }
    }

    @Test("20,000 random byte strings never crash the decoder and always decode or refuse")
    func randomBytes() {
        var rng = SplitMix64(seed: 0x7A4D_E11A)
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...48, using: &rng)
            let bytes: [UInt8] = (0..<count).map { _ in
                Bool.random(using: &rng) ? UInt8.random(in: 0...255, using: &rng) : Self.alphabet.randomElement(using: &rng)!
            }
            check(bytes)
        }
    }

    @Test("20,000 random mutations of valid messages never crash the decoder and always decode or refuse")
    func mutations() {
        var rng = SplitMix64(seed: 0x5EED_0001)
        var messages = 0
        for _ in 0..<20_000 {
            var bytes = Array(Self.seeds.randomElement(using: &rng)!.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<max(1, bytes.count), using: &rng)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0 where !bytes.isEmpty: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                case 1 where !bytes.isEmpty: bytes[at] = Self.alphabet.randomElement(using: &rng)!
                case 2: bytes.insert(Self.alphabet.randomElement(using: &rng)!, at: min(at, bytes.count))
                case 3 where !bytes.isEmpty: bytes.remove(at: at)
                case 4: bytes = Array(bytes.prefix(at))
                default:
                    let end = min(bytes.count, at + Int.random(in: 1...8, using: &rng))
                    bytes.insert(contentsOf: bytes[at..<end], at: end)
                }
            }
            if case .message = MessageDecoder.decode(bytes) { messages += 1 }
            check(bytes)
        }
        // Mutations must leave many frames valid, or the test only exercises the parser.
        #expect(messages > 300)
    }
}
