/// A broken property: prints what broke and traps, so libFuzzer records the input as a crash.
///
/// `fatalError` rather than a test framework's assertion: the fuzzers link no
/// test target, and a trap is what libFuzzer watches for.
func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    guard !condition else { return }
    fatalError("fuzz property broken: \(message())", file: file, line: line)
}
