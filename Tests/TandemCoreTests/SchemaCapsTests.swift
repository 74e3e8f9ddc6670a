import Testing
@testable import TandemCore

/// The size caps checked with a room's schema, each refusal naming its control and field.
@Suite("Room schema caps")
struct SchemaCapsTests {
    private func slider(_ id: String, label: String? = nil) -> ControlDefinition {
        ControlDefinition(id: id, type: "slider", label: label, min: 0, max: 1)
    }

    private func error(_ definition: RoomDefinition, caps: SchemaCaps = .standard) -> SchemaError? {
        do {
            _ = try RoomSchema(validating: definition, caps: caps)
            return nil
        } catch {
            return error
        }
    }

    @Test("a room holds at most 256 controls")
    func controls() {
        let many = (0..<257).map { slider("c\($0)") }
        let refused = error(RoomDefinition(id: "r", controls: many))
        #expect(refused == SchemaError(control: nil, field: "controls", problem: .tooMany(256)))
        #expect(refused?.description == "field 'controls': must hold at most 256 items")
        #expect(error(RoomDefinition(id: "r", controls: Array(many.prefix(256)))) == nil)
    }

    @Test("titles and labels are at most 120 characters, counted as a person sees them")
    func texts() {
        let long = String(repeating: "é", count: 121)
        let title = error(RoomDefinition(id: "r", title: long, controls: [slider("a")]))
        #expect(title == SchemaError(control: nil, field: "title", problem: .tooLong(120)))
        #expect(error(RoomDefinition(id: "r", title: String(long.dropLast()), controls: [slider("a")])) == nil)
        let label = error(RoomDefinition(id: "r", controls: [slider("a"), slider("knob", label: long)]))
        #expect(label == SchemaError(control: "knob", field: "label", problem: .tooLong(120)))
        #expect(label?.description == "control 'knob', field 'label': must be at most 120 characters and 960 bytes")
        #expect(error(RoomDefinition(id: "r", controls: [slider("knob", label: String(repeating: "👍🏽", count: 120))])) == nil)
    }

    @Test("a snap control has at most 1,000 values and a unit of at most 16 characters")
    func snap() {
        let values = (0..<1001).map(Double.init)
        let tooMany = error(RoomDefinition(id: "r", controls: [ControlDefinition(id: "s", type: "snap", values: values)]))
        #expect(tooMany == SchemaError(control: "s", field: "values", problem: .tooMany(1000)))
        #expect(error(RoomDefinition(id: "r", controls: [ControlDefinition(id: "s", type: "snap", values: Array(values.prefix(1000)))])) == nil)
        let unit = error(RoomDefinition(id: "r", controls: [ControlDefinition(id: "s", type: "snap", values: [1], unit: String(repeating: "u", count: 17))]))
        #expect(unit == SchemaError(control: "s", field: "unit", problem: .tooLong(16)))
    }

    @Test("the unlimited caps (stored rooms) accept what the standard ones refuse")
    func unlimited() {
        let big = RoomDefinition(id: "r", title: String(repeating: "t", count: 5000), controls: (0..<300).map { slider("c\($0)") })
        #expect(error(big) != nil)
        #expect(error(big, caps: .unlimited) == nil)
    }
}
