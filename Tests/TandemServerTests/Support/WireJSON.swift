import Foundation

/// A JSON object from the wire.
typealias JSONObject = [String: Any]

/// Parses one text frame as a JSON object.
func parseObject(_ text: String) throws -> JSONObject {
    guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? JSONObject else {
        throw SocketError.protocolViolation("not a JSON object: \(text.prefix(300))")
    }
    return object
}

/// Compact JSON text of `object`, for messages.
func describe(_ object: Any) -> String {
    guard JSONSerialization.isValidJSONObject(object),
          let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
        return String(describing: object)
    }
    return String(decoding: data, as: UTF8.self)
}

/// The array under `key`, as objects (missing means empty: the protocol may leave empty arrays out).
func objects(_ frame: JSONObject, _ key: String) -> [JSONObject] {
    frame[key] as? [JSONObject] ?? []
}

/// Whether `state` has exactly the numeric fields of `expected` (within 1e-9) and its string fields.
func stateMatches(_ state: Any?, _ expected: [String: Any]) -> Bool {
    guard let state = state as? JSONObject, Set(state.keys) == Set(expected.keys) else { return false }
    for (key, want) in expected {
        switch want {
        case let text as String:
            guard state[key] as? String == text else { return false }
        case let number as Double:
            guard let got = (state[key] as? NSNumber)?.doubleValue, abs(got - number) < 1e-9 else { return false }
        case let number as Int:
            guard let got = (state[key] as? NSNumber)?.doubleValue, got == Double(number) else { return false }
        default:
            return false
        }
    }
    return true
}

/// The `changes` entry for `control` in an update, if any.
func change(_ frame: JSONObject, _ control: String) -> JSONObject? {
    objects(frame, "changes").last { $0["control"] as? String == control }
}
