import TandemCore

/// `{"type":"restore","seq":n,"rev":R}`: commit the room's states as they
/// were right after revision R, as one new revision (the server reads them
/// from storage and applies an `Operation.batch`). The decoder only checks
/// the shape; whether R is a revision the log still holds is the server's.
extension MessageDecoder {
    /// The largest `rev` read: revisions are counted like `seq`, up to 2^53.
    static let maxRevision = maxSeq

    /// A `restore` frame (`type` already read): `seq` as for every message,
    /// then `rev` required (`bad_message` when absent) and a whole number
    /// from 0 to 2^53 (`bad_value` otherwise).
    static func decodeRestore(_ json: JSON, seq: Int?) -> Inbound {
        guard let seq else { return .refused(seq: nil, code: .badMessage, message: "seq must be a whole number from 1 to 2^53") }
        switch restoreRevision(json["rev"]) {
        case let .success(revision): return .restore(seq: seq, revision: revision)
        case let .failure(refusal): return .refused(seq: seq, code: refusal.code, message: refusal.message)
        }
    }

    /// The body of `POST /api/rooms/{room}/restore`: `{"rev": R}`, by the same
    /// rules, as a restore numbered `seq`.
    public static func decodeRestoreBody(_ bytes: some Collection<UInt8>, seq: Int) -> Inbound {
        let json: JSON
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            return .refused(seq: seq, code: .badMessage, message: "not JSON: \(error)")
        }
        guard case .object = json else { return .refused(seq: seq, code: .badMessage, message: "expected a JSON object") }
        return decodeRestore(json, seq: seq)
    }

    /// A revision written in a URL path (`/timeline/{rev}`): digits only, 0 to 2^53.
    public static func revision(inPath text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 16, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let n = Int(text), n <= maxRevision else { return nil }
        return n
    }

    static func restoreRevision(_ rev: JSON?) -> Result<Int, WireRefusal> {
        guard let rev, rev != .null else { return .failure(WireRefusal(.badMessage, "a restore needs rev, the revision to go back to")) }
        guard case let .number(x) = rev, x == x.rounded(.towardZero), x >= 0, x <= Double(maxRevision) else {
            return .failure(WireRefusal(.badValue, "rev must be a revision: a whole number ≥ 0"))
        }
        return .success(Int(x))
    }
}
