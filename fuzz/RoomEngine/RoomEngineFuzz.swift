import TandemCore
import TandemWire

// The room engine driven by the fuzzer's bytes: several clients join, leave,
// drag (begin/move/end/cancel with dx or at), set, step, undo and redo,
// while time passes, holds lapse and frames are taken, against the demo room
// or a fuzzed-but-valid schema with fuzzed limits. After every call the
// checks in `RoomCheck` run: see there for the list.

@_cdecl("LLVMFuzzerTestOneInput")
public func roomEngineFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    var session = Session(&input)
    var steps = 0
    while !input.isExhausted, steps < 2_000 {
        session.step(&input)
        steps += 1
    }
    session.finish()
    return 0
}

/// One fuzzed session: the room, the clock, and what each client knows.
struct Session {
    var check: RoomCheck
    var now = Moment.seconds(100)
    var views: [ClientID: ClientView] = [:]
    var encoder = UpdateEncoder()
    static let clients: [ClientID] = ["c1", "c2", "c3", "c4", "c5"]
    /// The HTTP write API: not a member, so no ordering, rate limit, history or ack.
    static let api: ClientID = "api"

    init(_ input: inout FuzzInput) {
        let room: Room
        if input.bool() {
            let schema = FuzzedSchema.make(&input)
            room = Room(schema: schema, limits: FuzzedSchema.limits(&input))
        } else {
            room = Room(schema: .demo)
        }
        check = RoomCheck(room)
    }

    var room: Room { check.room }
    var schema: RoomSchema { check.room.schema }

    mutating func step(_ input: inout FuzzInput) {
        let client = input.pick(Self.clients)
        switch input.choose(20) {
        case 0, 1:
            join(client, &input)
        case 2:
            guard views[client] != nil else { return join(client, &input) }
            views[client] = nil
            let effects = check.room.leave(client, at: now)
            check.after(effects, what: "\(client) leaves", from: nil)
        case 3, 4, 5:
            send(client, drag(client, &input), &input)
        case 6, 7:
            send(client, continueDrag(client, &input), &input)
        case 8:
            send(client, .set(control: controlName(&input), thumb: thumbName(&input), value: setValue(&input)), &input)
        case 9:
            let by = input.choose(4) == 0 ? input.double() : Double(Int(input.byte() % 21) - 10)
            send(client, .step(control: controlName(&input), thumb: thumbName(&input), by: by), &input)
        case 10:
            send(client, .undo, &input)
        case 11:
            send(client, .redo, &input)
        case 12, 13:
            let seconds = input.choose(3) == 0 ? Double(input.uint16()) / 1000 : Double(input.byte()) / 100
            now = now.adding(seconds: seconds)
            let effects = check.room.expire(at: now)
            check.after(effects, what: "time passes by \(seconds) s", from: nil)
        case 14, 15:
            drainAll(client)
        case 16:
            takeOneFrame(client)
        case 17:
            guard var view = views[client] else { return }
            let seq: Int? = input.bool() ? nextSeq(&view, &input) : nil
            if let seq, seq > view.lastSent { view.lastSent = seq }
            views[client] = view
            let code = input.pick([RejectCode.badMessage, .badValue])
            let effects = check.room.refuse(client, seq: seq, code: code, message: "not JSON")
            check.after(effects, what: "the wire refuses a frame of \(client)", from: client, refused: true)
        case 18:
            switch input.choose(3) {
            case 0: check.room.withholdFrames(); trace("frames withheld")
            case 1: check.room.releaseFrames(); trace("frames released")
            default: check.room.refreshPresence(); trace("presence refreshed")
            }
        default:
            let operation = Operation.set(control: controlName(&input), thumb: thumbName(&input), value: setValue(&input))
            let effects = check.room.apply(ClientMessage(seq: 1, operation), from: Self.api, at: now)
            check.after(effects, what: "the write API sends \(operation)", from: Self.api)
        }
    }

    /// The end of the input: every client takes all its frames, and each
    /// must then know exactly what the room holds.
    mutating func finish() {
        check.room.releaseFrames()
        for client in Self.clients where views[client] != nil { drainAll(client) }
    }

    // MARK: people

    private mutating func join(_ client: ClientID, _ input: inout FuzzInput) {
        let role = input.pick([Role.editor, .editor, .admin, .viewer])
        let name = input.string(["Ann", "Bob", "", " \u{202E}evil", "=HYPERLINK(1)"])
        let (welcome, effects) = check.room.join(client, name: name, role: role, at: now)
        check.after(effects, what: "\(client) joins", from: nil)
        check.requireWelcome(welcome, for: client)
        views[client] = ClientView(welcome, role: role)
    }

    /// Sends `operation` from `client` (joining it first if it is not in the room).
    private mutating func send(_ client: ClientID, _ operation: Operation, _ input: inout FuzzInput) {
        if views[client] == nil { join(client, &input) }
        var view = views[client]!
        let seq = nextSeq(&view, &input)
        views[client] = view
        let effects = check.room.apply(ClientMessage(seq: seq, operation), from: client, at: now)
        check.after(effects, what: "\(client) sends seq \(seq) \(operation)", from: client, role: view.role,
                    sent: seq, lastSent: view.lastSent)
        if seq > view.lastSent { views[client]?.lastSent = seq }
    }

    /// Usually the next seq; sometimes the same again, a jump, or the largest there is.
    private func nextSeq(_ view: inout ClientView, _ input: inout FuzzInput) -> Int {
        switch input.choose(16) {
        case 0: return view.lastSent
        case 1: return view.lastSent + 1 + input.choose(1000)
        case 2: return input.choose(4) == 0 ? MessageDecoder.maxSeq : Swift.max(1, view.lastSent - input.choose(3))
        default: return view.lastSent + 1
        }
    }

    // MARK: frames

    private mutating func takeOneFrame(_ client: ClientID) {
        guard var view = views[client] else { return }
        let pending = room.hasPendingFrame(for: client)
        if let frame = check.room.nextFrame(for: client) {
            require(pending, "\(client) got a frame while hasPendingFrame said none: \(frame)")
            trace("\(client) takes one \(frame)")
            check.read(frame, into: &view, for: client, encoder: &encoder)
        }
        views[client] = view
    }

    private mutating func drainAll(_ client: ClientID) {
        guard var view = views[client] else { return }
        var frames = 0
        while true {
            let pending = room.hasPendingFrame(for: client)
            guard let frame = check.room.nextFrame(for: client) else { break }
            require(pending, "\(client) got a frame while hasPendingFrame said none: \(frame)")
            trace("\(client) takes \(frame)")
            check.read(frame, into: &view, for: client, encoder: &encoder)
            frames += 1
            require(frames <= 10_000, "\(client)'s frames never run out")
        }
        views[client] = view
        check.requireCaughtUp(view, client)
    }

    // MARK: messages

    private func controlName(_ input: inout FuzzInput) -> String {
        input.choose(10) == 0 ? input.string(["bogus", "", "demo"]) : input.pick(schema.controls).id
    }

    private func thumbName(_ input: inout FuzzInput) -> String? {
        switch input.choose(8) {
        case 0: nil
        case 1: input.string(["bogus", "value", "index"])
        default: input.pick(Thumb.allCases).rawValue
        }
    }

    private func pointer(_ input: inout FuzzInput) -> Pointer? {
        switch input.choose(3) {
        case 0: nil
        case 1: .dx(input.double())
        default: .at(input.double())
        }
    }

    private func drag(_ client: ClientID, _ input: inout FuzzInput) -> Operation {
        let phase = input.pick(DragPhase.allCases)
        let control = input.pick(schema.controls)
        let thumb = input.choose(6) == 0 ? thumbName(&input) : control.thumbs.isEmpty ? nil : input.pick(control.thumbs).rawValue
        return .drag(control: control.id, thumb: thumb, phase: phase, pointer: phase == .cancel ? nil : pointer(&input))
    }

    /// A move, end or cancel of a gesture `client` holds, if it holds one (else a fresh begin).
    private func continueDrag(_ client: ClientID, _ input: inout FuzzInput) -> Operation {
        let mine = room.welcome(for: nil).gestures.filter { $0.by == client }
        guard !mine.isEmpty else {
            let control = input.pick(schema.controls)
            let thumb = control.thumbs.isEmpty ? nil : input.pick(control.thumbs).rawValue
            return .drag(control: control.id, thumb: thumb, phase: .begin, pointer: pointer(&input))
        }
        let entry = input.pick(mine)
        let phase = input.pick([DragPhase.move, .move, .move, .end, .cancel])
        return .drag(control: entry.control, thumb: entry.thumb.rawValue, phase: phase, pointer: phase == .cancel ? nil : pointer(&input))
    }

    private func setValue(_ input: inout FuzzInput) -> SetValue {
        switch input.choose(6) {
        case 0: .text(input.string(["#336699", "#FFFFFF", "#00000", "336699", "#GG0000"]))
        case 1: .other(input.pick(["boolean", "null", "array", "object"]))
        default: .number(input.double())
        }
    }
}
