import TandemOSC

extension OSCPacket {
    /// How deep bundles may nest: a bundle inside a bundle is depth 2.
    static let maxBundleDepth = 8

    /// `#bundle` and its NUL: the first 8 bytes of every bundle.
    private static let bundleTag: [UInt8] = Array("#bundle".utf8) + [0]

    /// A bundle's framing, the one thing read here by hand: `#bundle\0`, an
    /// 8-byte time tag (ignored), then elements of a big-endian int32 size and
    /// that many bytes, each a message or a bundle. The sizes must fill the bundle exactly.
    static func element(_ bytes: UnsafeRawBufferPointer, depth: Int, into messages: inout [OSCMessage]) throws(OSCDrop) {
        guard bytes.starts(with: bundleTag) else {
            messages.append(try message(bytes))
            return
        }
        guard depth < maxBundleDepth else {
            throw OSCDrop(.malformed, "OSC bundles nested more than \(maxBundleDepth) deep")
        }
        guard bytes.count >= 16 else {
            throw OSCDrop(.malformed, "an OSC bundle of \(bytes.count) bytes, shorter than its 16-byte header")
        }
        var offset = 16
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else {
                throw OSCDrop(.malformed, "an OSC bundle ends inside an element's size (\(bytes.count - offset) of 4 bytes)")
            }
            let size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            offset += 4
            guard size <= bytes.count - offset else {
                throw OSCDrop(.malformed, "an OSC bundle element of \(size) bytes overruns the bundle (\(bytes.count - offset) left)")
            }
            try element(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size]), depth: depth + 1, into: &messages)
            offset += size
        }
    }
}
