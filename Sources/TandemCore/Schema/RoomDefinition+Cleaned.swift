/// A definition's shown texts through `ShownText.clean` (NFC, no bidi
/// controls), before anything compares, caps or stores them: a schema holds
/// only clean text, so two spellings of one title are one schema.
extension RoomDefinition {
    func cleaned() -> RoomDefinition {
        var copy = self
        copy.title = title.map(ShownText.clean)
        copy.controls = controls?.map { $0.cleaned() }
        return copy
    }
}

extension ControlDefinition {
    func cleaned() -> ControlDefinition {
        var copy = self
        copy.label = label.map(ShownText.clean)
        copy.unit = unit.map(ShownText.clean)
        copy.group = group.map(ShownText.clean)
        copy.description = description.map(ShownText.clean)
        copy.labels = labels?.map(ShownText.clean)
        copy.x = x?.cleaned()
        copy.y = y?.cleaned()
        return copy
    }
}

extension AxisDefinition {
    func cleaned() -> AxisDefinition {
        var copy = self
        copy.unit = unit.map(ShownText.clean)
        copy.label = label.map(ShownText.clean)
        return copy
    }
}

extension SchemaCaps {
    /// Whether `text` fits a cap of `characters`: that many grapheme clusters
    /// and eight bytes each (`ShownText.byteCap`).
    static func fits(_ text: String, _ characters: Int) -> Bool {
        ShownText.fits(text, characters: characters, bytes: ShownText.byteCap(characters: characters))
    }
}
