import SQLiteStore

extension LightweightSQL {
    /// Core Data keeps persistent history through an in-place migration: each change's entity
    /// renumbered, and the history truncated up to the last transaction that changed an entity
    /// the step removes ("Persistent History … has to be truncated due to the following entities
    /// being removed"; docs/Rules.md, "Beyond the model", has the evidence). Nothing when the store keeps none.
    func history(_ schema: SchemaObjects) -> [SQLStatement] {
        guard schema.tables.isSuperset(of: ["ACHANGE", "ATRANSACTION"]) else { return [] }
        let numbers = columns.entityNumbers
        let removed = source.numbering.entries.map(\.number).filter { numbers[$0] == nil }.sorted()
        var statements: [SQLStatement] = []
        if !removed.isEmpty {
            let bound =
                """
                (SELECT max(ZTRANSACTIONID) FROM ACHANGE WHERE ZENTITY IN \
                (\(removed.map(String.init).joined(separator: ", "))))
                """
            statements.append(SQLStatement("DELETE FROM ATRANSACTION WHERE Z_PK <= \(bound)"))
            statements.append(SQLStatement("DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= \(bound)"))
        }
        let moved = numbers.filter { $0.key != $0.value }.keys.sorted()
        if !moved.isEmpty {
            statements.append(
                SQLStatement(
                    """
                    UPDATE ACHANGE SET ZENTITY = \(columns.remap("ZENTITY")) WHERE ZENTITY IN \
                    (\(moved.map(String.init).joined(separator: ", ")))
                    """
                ))
        }
        return statements
    }

    /// Core Data recreates every derived attribute's triggers for the destination model after an
    /// in-place migration, and computes the values first (its generator's "data", then "trigger"
    /// statements). The triggers were dropped with the source's objects; a value is computed
    /// again only where the source did not already keep it by the same statement.
    func derived() -> [SQLStatement] {
        let kept = Set(DerivedAttributeTriggers(layout: source).derivations.map(\.backfill.sql))
        let wanted = DerivedAttributeTriggers(layout: destination).derivations
        return wanted.filter { !kept.contains($0.backfill.sql) }.map(\.backfill) + wanted.flatMap(\.triggers)
    }
}
