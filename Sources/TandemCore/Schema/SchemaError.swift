/// Why a room schema was refused: which control, which field, and what is wrong.
///
/// Never a crash and never a silent fix-up: a bad schema is one of these.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending control's id, or `#N` (its position, from 1) when it has no usable id;
    /// `nil` for a room-level field.
    public var control: String?
    /// The offending field, as spelled in the schema (`values`, `operable`, `state.upper`, …).
    public var field: String
    /// What is wrong with it.
    public var problem: Problem

    public init(control: String?, field: String, problem: Problem) {
        self.control = control
        self.field = field
        self.problem = problem
    }

    /// The kinds of schema mistakes, each with a sentence saying what is wrong.
    public enum Problem: Sendable, Hashable {
        /// A required field is absent.
        case missing
        /// A list that must hold something is empty.
        case empty
        /// A list that must be strictly ascending is not (at the given position, from 0).
        case notAscending(at: Int)
        /// A number is NaN or infinite.
        case notFinite
        /// A number that must be a whole number is not.
        case notInteger
        /// A `[lo, hi]` pair has the wrong length or `lo` is not below (or, for `operable`, not at most) `hi`.
        case badBounds
        /// `operable` reaches outside `scale`.
        case outsideScale
        /// The operable span is smaller than `minGap`.
        case spanSmallerThanGap(span: Int, minGap: Int)
        /// A number that must be positive (a step) or non-negative (a gap) is not.
        case notPositive
        /// `step` does not divide the span into whole steps.
        case stepDoesNotDivide(steps: Double)
        /// Two controls share an id.
        case duplicateID
        /// The id is empty, too long or has characters outside `[A-Za-z0-9_.-]`.
        case badID
        /// `type` is not one of slider, snap, range, color, gauge, toggle, xy, button.
        case unknownType(String)
        /// A string field has a value outside its allowed set.
        case unknownOption(String, allowed: [String])
        /// A field does not belong to this type of control.
        case notAllowed(type: String)
        /// The starting state breaks an invariant of the control.
        case invalidState(String)
        /// The field holds the wrong JSON type (reported by the wire module's decoder).
        case wrongType(expected: String)
        /// A field no room or control has (a typo, most likely).
        case unknownField
        /// A list holds more than the cap (`SchemaCaps`).
        case tooMany(Int)
        /// A text is longer than the cap: in characters, or in bytes (eight a character; `SchemaCaps`).
        case tooLong(Int)
        /// A text that must hold something is empty.
        case emptyText
        /// A number is outside its allowed whole range (`digits`: 1–15).
        case outOfRange(ClosedRange<Int>)
        /// Two lists must be as long as each other (`labels` and `values`).
        case countMismatch(expected: Int)
        /// A field cannot be given with another one; the sentence says why.
        case conflicts(String)

        /// What is wrong, as a sentence fragment.
        public var explanation: String {
            switch self {
            case .missing: "is required"
            case .empty: "must not be empty"
            case let .notAscending(at): "must be strictly ascending (position \(at) is not above the one before it)"
            case .notFinite: "must be a finite number"
            case .notInteger: "must be a whole number"
            case .badBounds: "must be [lo, hi] with lo below hi"
            case .outsideScale: "must lie inside scale"
            case let .spanSmallerThanGap(span, minGap): "spans \(span), less than minGap \(minGap)"
            case .notPositive: "must be positive"
            case let .stepDoesNotDivide(steps): "must divide the span into whole steps (it makes \(steps))"
            case .duplicateID: "is used by another control"
            case .badID: "must be 1 to 64 of the characters A-Z a-z 0-9 _ . -, and not . or .."
            case let .unknownType(type): "'\(type)' is not a control type (slider, snap, range, color, gauge, toggle, xy, button)"
            case let .unknownOption(value, allowed): "'\(value)' is not one of \(allowed.joined(separator: ", "))"
            case let .notAllowed(type): "does not belong to a \(type) control"
            case let .invalidState(why): why
            case let .wrongType(expected): "must be \(expected)"
            case .unknownField: "is not a field of a room or control"
            case let .tooMany(cap): "must hold at most \(cap) items"
            case let .tooLong(cap): "must be at most \(cap) characters and \(ShownText.byteCap(characters: cap)) bytes"
            case .emptyText: "must not be empty"
            case let .outOfRange(range): "must be a whole number from \(range.lowerBound) to \(range.upperBound)"
            case let .countMismatch(expected): "must hold \(expected) items, one per value"
            case let .conflicts(why): why
            }
        }
    }

    public var description: String {
        let place = control.map { "control '\($0)', " } ?? ""
        return "\(place)field '\(field)': \(problem.explanation)"
    }
}
