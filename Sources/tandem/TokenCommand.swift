#if canImport(Glibc)
import Glibc
#endif
import TandemAuth
import TandemCore
import TandemServer
import TandemStorage

/// `tandem token`: mints a token (or an invite link carrying one) with the
/// server's current secret, for operators who hand out access by hand.
enum TokenCommand {
    static let usage = """
    usage: tandem token --room ROOM [--room ROOM…] [--role ROLE] [--name NAME] [--ttl AGE]
                        [--sub ID] [--url http://HOST:PORT] [--auth-secret-file PATH]

    Prints an HS256 token signed with the server's secret (--auth-secret-file, or
    the environment variable TANDEM_AUTH_SECRET), or with --url the link that
    opens the room with it.

    flags (each also as --flag=value):
      --room ROOM              a room the token opens; repeat for more, * for every room
      --role ROLE              viewer, editor or admin (default viewer)
      --name NAME              the display name people see (wins over ?name=)
      --ttl AGE                how long the token is valid: 45s, 90m, 8h, 30d (default 8h, at most 366d)
      --sub ID                 the stable user id (default: "name:" and the name)
      --url URL                print http(s)://HOST:PORT/?room=ROOM&token=… instead of the token
      --auth-secret-file PATH  the file holding the secret, as for the server
      --help                   this text

    """

    /// What to mint, from the command line.
    struct Request {
        var rooms: [String] = []
        var role: Role = .viewer
        var name: String?
        var ttl: Double = 8 * 3600
        var subject: String?
        var url: String?
        var secretFile: String?
    }

    /// The flags `tandem token` knows (each takes a value).
    static let flags: Set<String> = ["room", "role", "name", "ttl", "sub", "url", "auth-secret-file"]

    /// The request for `arguments` (after `token`); `nil` means `--help`.
    static func parse(_ arguments: [String]) throws(Flags.Problem) -> Request? {
        var request = Request()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            let (name, inline) = try Flags.split(argument)
            if name == "help" { return nil }
            guard flags.contains(name) else { throw Flags.Problem(message: "unknown flag --\(name)") }
            guard let value = inline ?? rest.popFirst() else { throw Flags.Problem(message: "--\(name) needs a value") }
            switch name {
            case "room":
                guard !value.isEmpty else { throw Flags.Problem(message: "--room must not be empty") }
                request.rooms.append(value)
            case "role":
                guard let role = Role(rawValue: value) else {
                    throw Flags.Problem(message: "--role must be viewer, editor or admin, not '\(value)'")
                }
                request.role = role
            case "name":
                guard !value.isEmpty else { throw Flags.Problem(message: "--name must not be empty") }
                request.name = value
            case "ttl":
                guard let seconds = age(value) else {
                    throw Flags.Problem(message: "--ttl must be an age from 1s to 366d (45s, 90m, 8h, 30d), not '\(value)'")
                }
                request.ttl = seconds
            case "sub":
                guard !value.isEmpty else { throw Flags.Problem(message: "--sub must not be empty") }
                request.subject = value
            case "url":
                guard value.hasPrefix("http://") || value.hasPrefix("https://") else {
                    throw Flags.Problem(message: "--url must start with http:// or https://, not '\(value)'")
                }
                request.url = value
            case "auth-secret-file":
                request.secretFile = value
            default:
                throw Flags.Problem(message: "unknown flag --\(name)")
            }
        }
        guard !request.rooms.isEmpty else { throw Flags.Problem(message: "--room is required (a room id, or * for every room)") }
        guard request.subject != nil || request.name != nil else {
            throw Flags.Problem(message: "give --name or --sub: a token needs a user id")
        }
        return request
    }

    /// `45s`, `90m`, `8h`, `30d` or a bare number of seconds, from 1 s to 366 days.
    static func age(_ text: String) -> Double? {
        let units: [Character: Double] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
        var digits = Substring(text)
        var unit = 1.0
        if let last = text.last, let u = units[last] {
            unit = u
            digits = digits.dropLast()
        }
        guard let n = Int(digits), n >= 1 else { return nil }
        let seconds = Double(n) * unit
        return seconds <= 366 * 86_400 ? seconds : nil
    }

    /// The claims `request` asks for, issued at `now`. Without `--sub`, the
    /// user id is `name:` followed by the name: the same name always gets the
    /// same id, so a refreshed token keeps the same `sub`.
    static func claims(_ request: Request, now: Double) -> Claims {
        let scope: RoomScope = request.rooms.contains("*") ? .all : .rooms(Set(request.rooms))
        return Claims(subject: request.subject ?? "name:\(request.name ?? "")", name: request.name, rooms: scope,
                      role: request.role, expires: (now + request.ttl).rounded(.down), issuedAt: now.rounded(.down))
    }

    /// The token, or with `--url` the link: the first room that is not `*`
    /// (none: the web client's default room), the name, and the token.
    static func output(_ request: Request, token: String) -> String {
        guard var url = request.url else { return token }
        while url.hasSuffix("/") { url.removeLast() }
        var query: [String] = []
        if let room = request.rooms.first(where: { $0 != "*" }) { query.append("room=\(percentEncoded(room))") }
        if let name = request.name { query.append("name=\(percentEncoded(name))") }
        query.append("token=\(token)")
        return url + "/?" + query.joined(separator: "&")
    }

    /// `text` with everything but unreserved URL characters (RFC 3986) percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }

    /// Runs `tandem token ARGUMENTS`: prints the token or the link and exits 0,
    /// usage errors exit 2.
    static func run(_ arguments: [String], environment: String?) -> Never {
        let request: Request
        let secret: [UInt8]
        do throws(Flags.Problem) {
            guard let parsed = try parse(arguments) else {
                print(usage, terminator: "")
                exit(0)
            }
            request = parsed
        } catch {
            fail("\(error.message)\n\n\(usage)", code: 2)
        }
        do throws(Flags.Problem) {
            var config = ServerConfig()
            config.access.secretFile = request.secretFile
            try Flags.loadSecrets(into: &config, environment: environment)
            guard let current = config.access.secrets.first else {
                throw Flags.Problem(message: "no secret: give --auth-secret-file PATH or set \(Flags.secretVariable)")
            }
            secret = current
        } catch {
            fail(error.message, code: 2)
        }
        let now = Double(WallClock.milliseconds()) / 1000
        print(output(request, token: TokenMinter(secret: secret).mint(claims(request, now: now))))
        exit(0)
    }
}
