extension Room {
    /// A room restored with who made each control's last commit, as a
    /// cluster keeps it (docs/scale-out.md): a new owner's welcome shows the
    /// same authors the old one did. A state that does not fit its control
    /// falls back to the initial state, with no author.
    public init(schema: RoomSchema, committed: [ControlState], revisions: [Int], revision: Int,
                committedBy: [ClientID?], limits: RoomLimits = RoomLimits()) {
        self.init(schema: schema, committed: committed, revisions: revisions, revision: revision, limits: limits)
        for i in schema.controls.indices where i < committedBy.count && i < committed.count && self.committed[i] == committed[i] {
            self.committedBy[i] = committedBy[i]
        }
    }
}
