/// One notion of equal text for everything people name and others read:
/// room titles, control labels, units, groups, descriptions, snap labels and
/// preset names.
///
/// `clean` puts text in Unicode Normalization Form C, so that two spellings a
/// person cannot tell apart ("é" as one scalar or as "e" and a combining
/// accent) are the same bytes — one key in SQLite and Redis, one entry under a
/// cap — and removes the controls that make text read in another direction
/// than it is stored: the bidi embeddings, overrides and isolates
/// (U+202A–U+202E, U+2066–U+2069) and the direction marks U+200E, U+200F and
/// U+061C. Nothing else changes (line breaks in a description stay).
///
/// `fits` is the two caps every such field has: at most `characters` grapheme
/// clusters (as a person counts) and at most `bytes` UTF-8 bytes, so that a
/// short-looking text built of long clusters (a 15-character title of 60 KB)
/// is refused.
public enum ShownText {
    /// `raw` in NFC, without bidi controls.
    public static func clean(_ raw: String) -> String {
        var kept = String.UnicodeScalarView()
        var changed = false
        for scalar in raw.unicodeScalars {
            if isDirectionControl(scalar) { changed = true } else { kept.append(scalar) }
        }
        let text = changed ? String(kept) : raw
        let nfc = text._nfcCodeUnits
        return nfc.elementsEqual(text.utf8) ? text : String(decoding: nfc, as: UTF8.self)
    }

    /// Whether `text` is within both caps: `characters` grapheme clusters and
    /// `bytes` UTF-8 bytes.
    public static func fits(_ text: String, characters: Int, bytes: Int) -> Bool {
        text.utf8.count <= bytes && text.count <= characters
    }

    /// The byte cap that goes with a cap of `characters`: eight bytes a
    /// character (an emoji with a skin tone, a letter with two accents),
    /// saturating.
    public static func byteCap(characters: Int) -> Int {
        let (product, overflow) = characters.multipliedReportingOverflow(by: 8)
        return overflow ? .max : product
    }

    /// The bidi embeddings, overrides, isolates and direction marks.
    public static func isDirectionControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
