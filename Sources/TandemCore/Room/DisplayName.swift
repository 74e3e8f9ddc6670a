/// A display name made safe to show to others: what `?name=` (or a token's
/// `name`) becomes in `welcome`, `joined` and the history.
///
/// Removed: control characters (Cc) and format characters (Cf) — among them
/// the bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069), the marks
/// U+200E, U+200F and U+061C, which could make a name read backwards or spill
/// its direction into the text after it. Kept: U+200D (zero width joiner) and
/// U+200C (non-joiner), which emoji sequences and some scripts need and which
/// change no direction. Whitespace runs (line separators included) become one
/// space and the ends are trimmed; the name is cut to 64 characters (grapheme
/// clusters, as a person counts them); empty becomes "Guest".
public enum DisplayName {
    /// The longest name shown, in characters.
    public static let maxLength = 64

    /// The name shown when none is left.
    public static let fallback = "Guest"

    /// `raw` cleaned as described above.
    public static func clean(_ raw: String) -> String {
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in raw.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !scalars.isEmpty
                continue
            }
            guard isShown(scalar) else { continue }
            if pendingSpace {
                scalars.append(" ")
                pendingSpace = false
            }
            scalars.append(scalar)
        }
        var name = String(scalars)
        if name.count > maxLength {
            name = String(name.prefix(maxLength))
            while name.last?.isWhitespace == true { name.removeLast() }
        }
        return name.isEmpty ? fallback : name
    }

    /// Whether `scalar` may appear in a name.
    static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control:
            return false
        case .format:
            return scalar.value == 0x200C || scalar.value == 0x200D
        default:
            return true
        }
    }
}
