import TandemCore

/// Decodes client frames of protocol v1 into `ClientMessage`s, or says why not.
///
/// The rules, in the order they are checked (the first that fails is the refusal):
///
/// 1. The frame must be JSON (strict RFC 8259, see `JSONParser`; a number out
///    of `Double` range is a parse error) — else `bad_message` "not JSON: …" —
///    and a JSON object — else `bad_message` "expected a JSON object".
/// 2. `type` must be `"drag"`, `"set"`, `"step"`, `"undo"`, `"redo"`,
///    `"reset"` or `"auth"`, else `bad_message`. An `auth` needs a usable `seq` and a string
///    `token` (else `bad_message`) and becomes `Inbound.auth`. A `preset` is
///    decoded by `PresetMessages` into `Inbound.preset` (docs/presets.md), a
///    `restore` by `decodeRestore` (RestoreMessage.swift) into `Inbound.restore`.
/// 3. `seq` must be a whole number from 1 to 2^53, else `bad_message` (a
///    fraction, a string, missing). Every refusal carries `seq` when it was
///    usable, and `nil` when it was not (or the frame could not be read).
///    `undo` and `redo` need nothing else: any other key is ignored. A
///    `reset` takes an optional `control` (absent or `null`: the whole room;
///    else it must be a string, `bad_message`).
/// 4. `control` must be a string, else `bad_message`.
/// 5. `thumb` is optional; if present it must be a string, else `bad_message`;
///    JSON `null` counts as absent. Whether the control has that thumb is the
///    room's check (`unknown_thumb`).
/// 6. By type:
///    - `drag`: `phase` one of `begin`, `move`, `end`, `cancel`, else
///      `bad_message`. `dx`, `dy` (an xy pad's) and `at` are optional; `at`
///      with `dx` or `dy` is `bad_message` ("give dx or at, not both"), any
///      of them on `cancel` is `bad_message`; then a `dx` or `dy` that is not
///      a number is `bad_value` (`null` too: that is what `JSON.stringify`
///      makes of a NaN), an absent one of the two counting as 0; `at` must be
///      a number or `[fx, fy]` (two numbers), else `bad_value`.
///    - `set`: `value` is required (`bad_message`); a number becomes
///      `SetValue.number`, a string `.text`, a boolean `.flag`, an object of
///      only numeric `x` and `y` `.point`, anything else `.other` named by
///      its JSON type (`null`, `array`, `object`); the room refuses as
///      `bad_value` what does not fit the control.
///    - `step`: `by` is required (`bad_message`) and must be a number or
///      `[nx, ny]` (`bad_value`); it is passed on as is, and the room checks
///      it is whole and fits the control (a pair only for an xy pad).
///
/// Keys a message does not use are ignored, so a newer client can add fields
/// without breaking an older server. A repeated key counts once, its last
/// occurrence, as a browser's `JSON.parse` reads it.
public enum MessageDecoder {
    /// The largest `seq` accepted: 2^53, beyond which a JavaScript client could not count by 1.
    public static let maxSeq = 9_007_199_254_740_992

    /// Decodes one text frame.
    public static func decode(_ bytes: some Collection<UInt8>) -> Inbound {
        do {
            return decode(try JSONParser.parse(bytes))
        } catch {
            return .refused(seq: nil, code: .badMessage, message: "not JSON: \(error)")
        }
    }

    /// Decodes a parsed frame.
    public static func decode(_ json: JSON) -> Inbound {
        guard case let .object(members) = json else {
            return .refused(seq: nil, code: .badMessage, message: "expected a JSON object")
        }
        let fields = MessageFields(members)
        let seq = fields.seq.flatMap(usableSeq)
        if fields.type == .string("auth") {
            guard let seq else { return .refused(seq: nil, code: .badMessage, message: "seq must be a whole number from 1 to 2^53") }
            guard case let .string(token)? = fields.token else { return .refused(seq: seq, code: .badMessage, message: "token must be a string") }
            return .auth(seq: seq, token: token)
        }
        if fields.type == .string("preset") { return PresetMessages.decode(members, seq: seq) }
        if fields.type == .string("restore") { return decodeRestore(json, seq: seq) }
        switch fields.decode(seq: seq) {
        case let .success(message): return .message(message)
        case let .failure(refusal): return .refused(seq: seq, code: refusal.code, message: refusal.message)
        }
    }

    /// Decodes the body of the write API's `PUT /api/rooms/{room}/controls/{control}`:
    /// `{"thumb": "red", "value": 0.5}` or `{"value": …}`, by the rules of a
    /// `set` (rules 5 and 6), as a `set` of `control` numbered `seq`.
    public static func decodeSetBody(_ bytes: some Collection<UInt8>, control: String, seq: Int) -> Inbound {
        let json: JSON
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            return .refused(seq: seq, code: .badMessage, message: "not JSON: \(error)")
        }
        guard case let .object(members) = json else {
            return .refused(seq: seq, code: .badMessage, message: "expected a JSON object")
        }
        let fields = MessageFields(members)
        switch fields.thumb().flatMap({ thumb in fields.set(control: control, thumb: thumb) }) {
        case let .success(operation): return .message(ClientMessage(seq: seq, operation))
        case let .failure(refusal): return .refused(seq: seq, code: refusal.code, message: refusal.message)
        }
    }

    /// `seq` as an `Int` when it is a whole number in 1...2^53.
    static func usableSeq(_ json: JSON) -> Int? {
        guard case let .number(x) = json, x == x.rounded(.towardZero), x >= 1, x <= Double(maxSeq) else { return nil }
        return Int(x)
    }
}

/// Why a frame was refused, before it is given its `seq`.
struct WireRefusal: Error {
    var code: RejectCode
    var message: String

    init(_ code: RejectCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
