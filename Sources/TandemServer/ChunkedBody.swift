/// Decodes a `Transfer-Encoding: chunked` request body (RFC 9112 §7.1) as lws
/// hands it over raw: lws 4.1 does not decode chunked requests, it passes the
/// bytes on as the body of a POST or PUT without a Content-Length.
///
/// A parser with an explicit state, fed piece by piece; it stops at the first
/// error or once the decoded body would pass `limit`. Chunk extensions are
/// skipped, trailers are read and dropped.
struct ChunkedBody {
    /// What feeding bytes led to.
    enum Outcome: Equatable {
        /// More bytes are needed.
        case needMore
        /// The last chunk and the trailers arrived: the decoded body.
        case complete([UInt8])
        /// The body would be longer than the limit.
        case tooLarge
        /// The framing is broken, with why.
        case malformed(String)
    }

    private enum State {
        /// Reading a chunk-size line (hex digits, maybe `;extensions`, CRLF).
        case size(line: [UInt8])
        /// Reading `remaining` bytes of chunk data.
        case data(remaining: Int)
        /// Expecting the CRLF after chunk data (`seen` of its two bytes).
        case dataEnd(seen: Int)
        /// Reading trailer lines after the last chunk; an empty line ends them.
        case trailer(line: [UInt8])
        case done
        case failed
    }

    /// The largest decoded body accepted.
    let limit: Int
    private var state = State.size(line: [])
    private(set) var body: [UInt8] = []

    /// Lines (size or trailer) longer than this are refused: no legitimate
    /// client sends kilobytes of chunk extensions.
    static let maxLine = 1024

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes the next bytes of the raw body.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch state {
            case .done:
                return .malformed("bytes after the last chunk")
            case .failed:
                return .malformed("the body was already refused")
            case var .size(line):
                i += 1
                if byte != UInt8(ascii: "\n") {
                    guard line.count < Self.maxLine else { return fail("a chunk-size line is too long") }
                    line.append(byte)
                    state = .size(line: line)
                    continue
                }
                guard line.last == UInt8(ascii: "\r") else { return fail("a chunk-size line must end with CRLF") }
                guard let size = Self.chunkSize(line.dropLast()) else { return fail("a chunk size must be hexadecimal") }
                if size == 0 {
                    state = .trailer(line: [])
                } else {
                    guard body.count + size <= limit else { state = .failed; return .tooLarge }
                    state = .data(remaining: size)
                }
            case let .data(remaining):
                let n = min(remaining, bytes.count - i)
                body.append(contentsOf: bytes[i ..< i + n])
                i += n
                state = remaining == n ? .dataEnd(seen: 0) : .data(remaining: remaining - n)
            case let .dataEnd(seen):
                i += 1
                guard byte == (seen == 0 ? UInt8(ascii: "\r") : UInt8(ascii: "\n")) else {
                    return fail("chunk data must be followed by CRLF")
                }
                state = seen == 0 ? .dataEnd(seen: 1) : .size(line: [])
            case var .trailer(line):
                i += 1
                if byte != UInt8(ascii: "\n") {
                    guard line.count < Self.maxLine else { return fail("a trailer line is too long") }
                    line.append(byte)
                    state = .trailer(line: line)
                    continue
                }
                guard line.last == UInt8(ascii: "\r") else { return fail("a trailer line must end with CRLF") }
                if line.count == 1 {
                    state = .done
                    guard i == bytes.count else { return .malformed("bytes after the last chunk") }
                    return .complete(body)
                }
                state = .trailer(line: [])
            }
        }
        return .needMore
    }

    private mutating func fail(_ why: String) -> Outcome {
        state = .failed
        return .malformed(why)
    }

    /// The size at the start of a chunk-size line (before any `;extension`), or `nil`.
    private static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard !digits.isEmpty, digits.count <= 8 else { return nil }
        var size = 0
        for d in digits {
            guard let v = Character(Unicode.Scalar(d)).hexDigitValue else { return nil }
            size = size * 16 + v
        }
        return size
    }
}
