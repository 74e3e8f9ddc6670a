/// The three channels of a colour picker.
public enum ColorChannel: String, Sendable, Hashable, CaseIterable {
    case red, green, blue
}

/// The state of a colour picker: three channels in `[0, 1]`.
public struct RGB: Sendable, Hashable {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// The value of one channel.
    public subscript(channel: ColorChannel) -> Double {
        get {
            switch channel {
            case .red: red
            case .green: green
            case .blue: blue
            }
        }
        set {
            switch channel {
            case .red: red = newValue
            case .green: green = newValue
            case .blue: blue = newValue
            }
        }
    }

    /// `#RRGGBB`: each channel `round(c*255)` as two upper-case hex digits.
    public var hex: String { ColorMath.hex(self) }
}

/// The math of a colour picker: each channel is a slider over `[0, 1]`.
public enum ColorMath {
    private static let digits: [Character] = Array("0123456789ABCDEF")

    /// `#RRGGBB` of a colour, channels clamped to [0, 1] and rounded half away from zero.
    public static func hex(_ color: RGB) -> String {
        var out = "#"
        for channel in ColorChannel.allCases {
            let byte = saturatingInt(roundHalfAway(unitClamp(color[channel]) * 255))
            out.append(digits[byte >> 4])
            out.append(digits[byte & 15])
        }
        return out
    }

    /// The colour of `#RRGGBB` (case-insensitive), each channel `byte/255`; `nil`
    /// for anything else (no shorthand, no missing `#`, no alpha).
    public static func parseHex(_ text: String) -> RGB? {
        let bytes = Array(text.utf8)
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#") else { return nil }
        var channels: [Double] = []
        for i in stride(from: 1, to: 7, by: 2) {
            guard let hi = hexDigit(bytes[i]), let lo = hexDigit(bytes[i + 1]) else { return nil }
            channels.append(Double(hi * 16 + lo) / 255)
        }
        return RGB(red: channels[0], green: channels[1], blue: channels[2])
    }

    /// The channel grid of a colour picker with `step` (e.g. 1/255); `nil` is continuous.
    public static func channelMath(step: Double?) -> SliderMath {
        SliderMath(min: 0, max: 1, step: step)
    }

    /// What typed text does to a channel whose value is `current`: a finite
    /// number is clamped into [0, 1] (and snapped to `step`); anything else —
    /// empty, junk, `nan`, `inf` — changes nothing.
    public static func channel(fromText text: String, current: Double, step: Double? = nil) -> Double {
        guard let number = parseNumber(text) else { return current }
        return channelMath(step: step).setting(number)
    }

    /// A finite decimal number in `text` (surrounding spaces allowed), or `nil`.
    public static func parseNumber(_ text: String) -> Double? {
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" })
        var end = trimmed.endIndex
        while end > trimmed.startIndex, trimmed[trimmed.index(before: end)] == " " || trimmed[trimmed.index(before: end)] == "\t" {
            end = trimmed.index(before: end)
        }
        let body = trimmed[trimmed.startIndex..<end]
        // Only decimal notation: Double("0x1p3") or "infinity" parse in Swift but
        // are not what a person typing a channel value means.
        guard !body.isEmpty, body.allSatisfy({ "0123456789+-.eE".contains($0) }) else { return nil }
        guard let value = Double(body), value.isFinite else { return nil }
        return value
    }

    private static func hexDigit(_ c: UInt8) -> Int? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(c - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(c - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
