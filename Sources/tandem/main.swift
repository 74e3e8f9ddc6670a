#if canImport(Glibc)
import Glibc
#endif
import TandemCore
import TandemServer
import TandemStorage

/// `tandem`: flags → config → server. Exits 0 after a clean shutdown, 1 when it
/// cannot start, 2 on a bad flag. `tandem token …` mints a token instead (TokenCommand.swift).
/// Once the flags are read, in the format they ask for (`--log-format`).
func fail(_ message: String, code: Int32, format: LogFormat = .text) -> Never {
    var line = format == .text ? "tandem: \(message)\n"
        : format.line(label: "error", message: Log.escaped("tandem: \(message)"), unixMillis: WallClock.milliseconds())
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(code)
}

/// The current secret from the environment, when the operator set it there instead of in a file.
let environmentSecret = getenv(Flags.secretVariable).map { String(cString: $0) }

if CommandLine.arguments.dropFirst().first == "token" {
    TokenCommand.run(Array(CommandLine.arguments.dropFirst(2)), environment: environmentSecret)
}

var config: ServerConfig
do {
    guard let parsed = try Flags.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(Flags.usage, terminator: "")
        exit(0)
    }
    config = parsed
} catch {
    var text = "tandem: \(error.message)\n\n\(Flags.usage)"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(2)
}
do {
    try Flags.loadSecrets(into: &config, environment: environmentSecret)
} catch {
    fail(error.message, code: 2, format: config.logFormat)
}

do {
    let server = try Server(config: config, rooms: [.demo])
    server.run()
    exit(0)
} catch {
    fail(error.description, code: 1, format: config.logFormat)
}
