/// What `/healthz` answers: 200 `ok`, or 503 with the first problem found.
extension Server {
    /// Why this server is not healthy, or `nil`.
    func healthProblem() -> String? {
        if stopping != nil { return "shutting down" }
        return service.healthProblem()
    }
}
