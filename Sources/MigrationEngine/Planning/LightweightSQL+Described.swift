import ObjectModel
import SQLiteStore

extension LightweightSQL {
    /// The step's statements as a plan shows them.
    func described(_ step: MigrationPlan.Step, schema: SchemaObjects) -> StepStatements {
        let statements = statements(schema: schema)
        let rebuilt = tableMethods().filter { $0.value == .rebuilt }.keys.sorted()
        let summary =
            rebuilt.isEmpty
            ? "in place: one transaction on the store itself (only ALTER TABLE), verified before it commits"
            : """
            in place: one transaction on the store itself (tables rebuilt: \(rebuilt.joined(separator: ", "))), \
            verified before it commits
            """
        var parts = [
            StepStatements.Part(
                title: "schema changes", statements: statements.changes,
                notes: statements.changes.isEmpty ? ["no table changes"] : [])
        ]
        if !statements.indexes.isEmpty {
            parts.append(StepStatements.Part(title: "indexes built", statements: statements.indexes))
        }
        if !statements.derived.isEmpty {
            parts.append(
                StepStatements.Part(
                    title: "derived attributes computed, their triggers made", statements: statements.derived))
        }
        parts.append(
            StepStatements.Part(
                title: "bookkeeping",
                notes: [
                    """
                    Z_PRIMARYKEY renumbered for \(step.destination.name) (keys count on from where they were), \
                    Z_METADATA records its hashes, Z_MODELCACHE dropped
                    """
                ]))
        return StepStatements(
            source: step.source.name, destination: step.destination.name, summary: summary, parts: parts)
    }
}
