#if canImport(Glibc)
import Glibc
#endif
import TandemBench

// tandem-bench: a load generator for any tandem.v1 server. See docs/benchmarks.md, "tandem-bench: the load generator".

let flags: Flags
do {
    guard let parsed = try Flags.parse(Array(CommandLine.arguments.dropFirst()),
                                          environmentToken: getenv("TANDEM_TOKEN").map { String(cString: $0) }) else {
        print(Flags.usage)
        exit(0)
    }
    flags = parsed
} catch {
    printError(error.message)
    printError(Flags.usage)
    exit(2)
}
signal(SIGPIPE, SIG_IGN)

do {
    try ClientTLS.checkServer(flags)
    let created = try Scenario.prepareRooms(flags)
    let scenario = try Scenario(flags: flags)
    scenario.generator.expectedSchemas = created
    scenario.run()
    if let refusal = scenario.refusalBehindEarlyCloses() {
        printError(refusal)
        exit(1)
    }
    for note in scenario.generator.closedBeforeWelcomeNotes { printError(note) }
    let report = scenario.report()
    print(report.summary)
    if let path = flags.json { try writeFile(path, report.jsonBytes) }
    if let path = flags.svg { try writeFile(path, Array(LatencySVG.render(report).utf8)) }
    exit(report.passed ? 0 : 1)
} catch {
    printError(error.description)
    exit(1)
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws(HTTP.Failure) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw HTTP.Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard n == bytes.count else { throw HTTP.Failure(description: "cannot write \(path)") }
}
