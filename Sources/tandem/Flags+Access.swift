import TandemServer

extension Flags {
    /// The usage lines of the access flags.
    static let accessUsage = ""

    /// The access flags that take no value.
    static let accessSwitches: Set<String> = []

    /// Parses `--name value` if it is one of the access flags; `false` if it is not.
    static func parseAccess(_ name: String, _ value: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        default: return false
        }
    }

    /// Sets the switch `--name` if it is one of the access switches; `false` if it is not.
    static func parseAccessSwitch(_ name: String, into config: inout ServerConfig) throws(Problem) -> Bool {
        switch name {
        default: return false
        }
    }
}
