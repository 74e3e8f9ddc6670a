import TandemServer

extension Flags {
    /// The usage lines of the access flags: tokens, then origins and hosts.
    static let accessUsage = authUsage + originUsage

    static let authUsage = """
      --auth-secret-file PATH
                           turns tokens on: the HS256 secret (at least 32 bytes; one
                           trailing newline dropped); or the variable TANDEM_AUTH_SECRET
      --auth-previous-secret-file PATH
                           the secret before the current one: its tokens still pass
                           while keys rotate
      --auth-leeway SECS   slack on token exp and nbf (default 30; 0 to 300)
                           (tandem token --help: mint tokens and invite links)

    """

    /// The environment variable that may hold the current secret instead of a file.
    static let secretVariable = "TANDEM_AUTH_SECRET"

    static let originUsage = ""
        + "  --allow-origin ORIGIN\n"
        + "                       also accept WebSockets and POST/PUT/DELETE from pages of ORIGIN\n"
        + "                       (scheme://host[:port]; repeatable; * allows any, with a warning)\n"
        + "  --public-host NAME   a name (NAME or NAME:PORT) clients reach this server by; the Host\n"
        + "                       header must be one of them or a loopback name (repeatable)\n"
        + "  --open-admin         with auth off, let peers other than loopback create, replace and\n"
        + "                       delete rooms (default: loopback only)\n"

    /// The access flags that take no value.
    static let accessSwitches: Set<String> = ["open-admin"]

    /// Parses `--name value` if it is one of the access flags; `false` if it is not.
    static func parseAccess(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        case "auth-secret-file":
            // Files only: a secret on the command line shows in `ps` and in shell history.
            guard config.access.secretFile == nil else { throw Problem(message: "--auth-secret-file given twice") }
            guard !value.isEmpty else { throw Problem(message: "--auth-secret-file needs a path") }
            config.access.secretFile = value
        case "auth-previous-secret-file":
            guard config.access.previousSecretFile == nil else { throw Problem(message: "--auth-previous-secret-file given twice") }
            guard !value.isEmpty else { throw Problem(message: "--auth-previous-secret-file needs a path") }
            config.access.previousSecretFile = value
        case "auth-leeway":
            guard let seconds = Double(value), seconds.isFinite, (0...300).contains(seconds) else {
                throw Problem(message: "--auth-leeway must be a number of seconds from 0 to 300, not '\(value)'")
            }
            config.access.authLeeway = seconds
        case "allow-origin":
            guard value == "*" || WebOrigin(parsing: value) != nil else {
                throw Problem(message: "--allow-origin must be an origin such as https://example.com:8443 (scheme, host, optional port) or *, not '\(value)'")
            }
            config.access.allowedOrigins.append(value)
            return true
        case "public-host":
            guard WebOrigin(parsing: "http://" + value) != nil, !value.contains("/") else {
                throw Problem(message: "--public-host must be a host name, optionally with a port (example.com, example.com:8080), not '\(value)'")
            }
            config.access.publicHosts.append(value)
            return true
        default: return false
        }
        return true
    }

    /// Sets the switch `--name` if it is one of the access switches; `false` if it is not.
    static func parseAccessSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        case "open-admin":
            config.access.openAdmin = true
            return true
        default: return false
        }
    }

    /// Reads the secrets the flags named, or the current one from `environment`
    /// (the value of TANDEM_AUTH_SECRET), into `config.access.secrets`: current
    /// first, previous second. A file and the variable together are refused
    /// rather than one silently winning; so is a previous secret without a current one.
    static func loadSecrets(into config: inout ServerConfig, environment: String?) throws(Problem) {
        var secrets: [[UInt8]] = []
        switch (config.access.secretFile, environment) {
        case let (path?, nil):
            secrets.append(try secret(fromFile: path, flag: "--auth-secret-file"))
        case let (nil, value?):
            do {
                secrets.append(try SecretFile.checked(Array(value.utf8)))
            } catch {
                throw Problem(message: "\(secretVariable): \(error.message)")
            }
        case (_?, _?):
            throw Problem(message: "the secret is given both by --auth-secret-file and by \(secretVariable): give one")
        case (nil, nil):
            break
        }
        if let path = config.access.previousSecretFile {
            guard !secrets.isEmpty else {
                throw Problem(message: "--auth-previous-secret-file needs a current secret (--auth-secret-file or \(secretVariable))")
            }
            let previous = try secret(fromFile: path, flag: "--auth-previous-secret-file")
            guard previous != secrets[0] else {
                throw Problem(message: "--auth-previous-secret-file \(path): the same secret as the current one")
            }
            secrets.append(previous)
        }
        config.access.secrets = secrets
    }

    static func secret(fromFile path: String, flag: String) throws(Problem) -> [UInt8] {
        do {
            return try SecretFile.read(path)
        } catch {
            throw Problem(message: "\(flag) \(path): \(error.message)")
        }
    }
}
