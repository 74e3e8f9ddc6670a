/// How big a room may be: caps checked with the schema, so that room files and
/// the admin API both get them, each refusal naming the control and field.
///
/// Why these numbers: a room is a screen of controls people share. 256
/// controls is several screens; 120 characters is two lines of a heading; a
/// snap with more than 1,000 positions is a slider. Without caps, 2,000 rooms
/// with 60 KB titles made `GET /api/rooms` 120 MB (docs/security.md, "Room limits").
public struct SchemaCaps: Sendable, Hashable {
    /// Controls per room.
    public var controls: Int
    /// Characters (grapheme clusters) in a room's title.
    public var title: Int
    /// Characters in a control's label.
    public var label: Int
    /// Positions of a snap control (`values`).
    public var snapValues: Int
    /// Characters in a `unit` (snap, slider, gauge, an xy pad's axis).
    public var unit: Int
    /// Characters in a control's `group` heading.
    public var group: Int
    /// Characters in a control's `description`.
    public var description: Int
    /// Characters in one of a snap control's `labels`, and in an xy pad axis' `label`.
    public var shortLabel: Int

    public init(controls: Int = 256, title: Int = 120, label: Int = 120, snapValues: Int = 1_000, unit: Int = 16,
                group: Int = 60, description: Int = 500, shortLabel: Int = 40) {
        self.controls = controls
        self.title = title
        self.label = label
        self.snapValues = snapValues
        self.unit = unit
        self.group = group
        self.description = description
        self.shortLabel = shortLabel
    }

    /// The caps of room files and the admin API.
    public static let standard = SchemaCaps()

    /// No caps: for schemas already stored by an earlier version, which must
    /// keep loading (a room is never lost to a cap added later).
    public static let unlimited = SchemaCaps(controls: .max, title: .max, label: .max, snapValues: .max, unit: .max,
                                                  group: .max, description: .max, shortLabel: .max)
}
