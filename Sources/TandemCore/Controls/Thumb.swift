/// A draggable handle of a control, named as on the wire.
public enum Thumb: String, Sendable, Hashable, CaseIterable {
    /// The one thumb of a slider.
    case value
    /// The one thumb of a snap slider.
    case index
    /// The thumbs of a range slider.
    case lower, upper
    /// The channel tracks of a colour picker.
    case red, green, blue
    /// The one thumb of a toggle.
    case on
    /// The one thumb of an xy pad, moving both axes.
    case xy
    /// The one thumb of a button.
    case press

    var rangeThumb: RangeThumb? { RangeThumb(rawValue: rawValue) }
    var colorChannel: ColorChannel? { ColorChannel(rawValue: rawValue) }
}

/// When a drag's result becomes the committed value.
public enum CommitMode: String, Sendable, Hashable, CaseIterable {
    /// Moves preview; the release commits. The default.
    case release
    /// Every move commits.
    case live
}
