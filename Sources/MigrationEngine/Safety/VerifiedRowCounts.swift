import ObjectModel

/// The rows per entity a step of a plan left the store holding, verified by that step, with the
/// store's fingerprint at that moment. While the fingerprint still matches, nothing has written
/// the store since, so the next step takes these counts instead of reading every table again
/// (a read of every row, at the start of every step: `chrysalis-bench --scenario whole-chain`
/// runs a plan of four steps).
struct VerifiedRowCounts {
    let rows: [String: Int]
    let fingerprint: OtherWriters.Fingerprint

    init(rows: [String: Int], fingerprint: OtherWriters.Fingerprint) {
        self.rows = rows
        self.fingerprint = fingerprint
    }

    /// What `report` counted after its step, as the store at `path` now is; nil when the step
    /// counted nothing (a schema-only change).
    init?(after report: MigrationReport, store path: String) {
        guard !report.rowsAfter.isEmpty else { return nil }
        rows = report.rowsAfter
        fingerprint = OtherWriters.Fingerprint(store: path)
    }

    /// The counts, if `fingerprint` (taken before the step opened the store) matches and they
    /// name every entity of `model`; otherwise nil, and the step counts for itself.
    func rows(matching fingerprint: OtherWriters.Fingerprint, model: ManagedObjectModel) -> [String: Int]? {
        guard fingerprint == self.fingerprint, model.entities.allSatisfy({ rows[$0.name] != nil }) else { return nil }
        return rows
    }
}
