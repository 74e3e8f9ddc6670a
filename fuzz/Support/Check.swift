/// A broken property: prints what broke and traps, so libFuzzer records the input as a crash.
///
/// `fatalError` rather than a test framework's assertion: the fuzzers link no
/// test target, and a trap is what libFuzzer watches for.
func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    guard !condition else { return }
    fatalError("fuzz property broken: \(message())", file: file, line: line)
}

#if canImport(Glibc)
import Glibc
#endif

/// Set `FUZZ_TRACE=1` when replaying one input to see each step as it is checked.
let tracing: Bool = getenv("FUZZ_TRACE") != nil

func trace(_ line: @autoclosure () -> String) {
    guard tracing else { return }
    // Straight to fd 2, unbuffered: the line must be out before a trap ends the process.
    let text = Array((line() + "\n").utf8)
    _ = text.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
}
