import TandemServer

extension Flags {
    /// The usage lines of the limit flags.
    static let limitUsage = ""

    /// The limit flags that take no value.
    static let limitSwitches: Set<String> = []

    /// Parses `--name value` if it is one of the limit flags; `false` if it is not.
    static func parseLimit(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        default: return false
        }
    }

    /// Sets the switch `--name` if it is one of the limit switches; `false` if it is not.
    static func parseLimitSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        default: return false
        }
    }
}
