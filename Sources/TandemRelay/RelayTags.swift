import TandemCore

// The one-byte tags of the core's enums, fixed here rather than taken from
// `allCases` order, so that a case added to the core later cannot renumber
// what nodes of an older build send. A new case gets the next free number.

extension Role {
    var relayTag: UInt8 {
        switch self {
        case .viewer: 0
        case .editor: 1
        case .admin: 2
        }
    }

    init?(relayTag: UInt8) {
        switch relayTag {
        case 0: self = .viewer
        case 1: self = .editor
        case 2: self = .admin
        default: return nil
        }
    }
}

extension DragPhase {
    var relayTag: UInt8 {
        switch self {
        case .begin: 0
        case .move: 1
        case .end: 2
        case .cancel: 3
        }
    }

    init?(relayTag: UInt8) {
        switch relayTag {
        case 0: self = .begin
        case 1: self = .move
        case 2: self = .end
        case 3: self = .cancel
        default: return nil
        }
    }
}

extension Thumb {
    var relayTag: UInt8 {
        switch self {
        case .value: 0
        case .index: 1
        case .lower: 2
        case .upper: 3
        case .red: 4
        case .green: 5
        case .blue: 6
        case .on: 7
        case .xy: 8
        case .press: 9
        }
    }

    init?(relayTag: UInt8) {
        switch relayTag {
        case 0: self = .value
        case 1: self = .index
        case 2: self = .lower
        case 3: self = .upper
        case 4: self = .red
        case 5: self = .green
        case 6: self = .blue
        case 7: self = .on
        case 8: self = .xy
        case 9: self = .press
        default: return nil
        }
    }
}

extension RejectCode {
    var relayTag: UInt8 {
        switch self {
        case .badMessage: 0
        case .unknownControl: 1
        case .unknownThumb: 2
        case .badValue: 3
        case .readOnly: 4
        case .busy: 5
        case .noGesture: 6
        case .forbidden: 7
        case .rateLimited: 8
        case .unauthorized: 9
        case .unknownPreset: 10
        case .unavailable: 11
        case .unknown: 12
        case .claimed: 13
        }
    }

    init?(relayTag: UInt8) {
        switch relayTag {
        case 0: self = .badMessage
        case 1: self = .unknownControl
        case 2: self = .unknownThumb
        case 3: self = .badValue
        case 4: self = .readOnly
        case 5: self = .busy
        case 6: self = .noGesture
        case 7: self = .forbidden
        case 8: self = .rateLimited
        case 9: self = .unauthorized
        case 10: self = .unknownPreset
        case 11: self = .unavailable
        case 12: self = .unknown
        case 13: self = .claimed
        default: return nil
        }
    }
}

extension RelayReader {
    /// A tag byte mapped by `make`, or an error naming the byte.
    mutating func tag<T>(_ what: @autoclosure () -> String, _ make: (UInt8) -> T?) throws(RelayDecodeError) -> T {
        let start = offset
        let b = try byte(what())
        guard let value = make(b) else { throw error("unknown \(what()) tag \(b)", at: start) }
        return value
    }
}
