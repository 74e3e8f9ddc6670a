import TandemServer

extension Flags {
    /// The usage lines of the access flags.
    static let accessUsage = """
      --auth-secret-file PATH           turns tokens on: the HS256 secret (at least 32 bytes;
                                        one trailing newline dropped); or TANDEM_AUTH_SECRET
      --auth-previous-secret-file PATH  the secret before the current one: its tokens still
                                        pass while keys rotate
      --auth-leeway SECS                slack on token exp and nbf (default 30; 0 to 300)

    """

    /// The environment variable that may hold the current secret instead of a file.
    static let secretVariable = "TANDEM_AUTH_SECRET"

    /// The access flags that take no value.
    static let accessSwitches: Set<String> = []

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
        default: return false
        }
        return true
    }

    /// Sets the switch `--name` if it is one of the access switches; `false` if it is not.
    static func parseAccessSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
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
