import SQLiteStore

/// What each stage costs per unit, so the bar's shares follow time rather than row counts.
///
/// Measured stage by stage on the BookStore demo's stores (200,000 rows per root entity) in a debug
/// build (`chrysalis-bench --stages` times the same stages, `--scenario whole-chain` over
/// BookStore's whole chain), in microseconds per row: a set-based insert 0.6; an insert through a
/// custom policy, row by row, 10; relationships folded into the inserts or set-based next to
/// nothing, through a policy's own `createRelationships` about 10; building the destination's
/// indexes 0.3 and validating 0.5 per destination row; verification (counts, and `quick_check` when
/// asked) 0.2; a backup copy 0.3; an in-place change that rewrites or re-indexes a table 0.8 (one
/// that only adds or renames 0.1), counting its rows 0.3. The figures are ratios, not promises: a
/// release build is faster in every stage alike.
enum StageCost {
    static let setBasedInsert = 0.6, rowByRowInsert = 10.0
    static let defaultRelationships = 0.05, customRelationships = 10.0
    static let indexBuild = 0.3, validation = 0.5, verification = 0.2, swap = 0.02
    static let backupCopy = 0.3, inPlaceChange = 0.8, schemaChange = 0.1, rowCount = 0.3, rebuild = 2.0
    /// A floor per stage, so a stage of an empty store still shows as a step of the bar.
    static let perStage = 100.0

    /// A mapping step's stages: per pass, each entity mapping's instances, then each one's
    /// relationships, then validation; index builds before the first validation; verification
    /// and the swap at the end. `sourceRows` are rows per source entity; `createsOwnRelationships`
    /// tells, by policy name, which policies create relationships themselves, row by row.
    static func mappingStep(
        _ models: [MappingModel], sourceRows: [String: Int], createsOwnRelationships: (String) -> Bool
    ) -> ProgressBudget {
        var budget = ProgressBudget()
        let destinationRows = max(sourceRows.values.reduce(0, +), 1)
        for model in models {
            let counts = model.entityMappings.map { mapping in mapping.sourceEntity.flatMap { sourceRows[$0] } ?? 0 }
            for (index, mapping) in model.entityMappings.enumerated() {
                let perRow = mapping.policyName == nil ? setBasedInsert : rowByRowInsert
                budget.add(
                    .createInstances, pass: model.name, mapping: index + 1, units: counts[index],
                    cost: perStage + Double(counts[index]) * perRow)
            }
            for (index, mapping) in model.entityMappings.enumerated() {
                let ownRelationships = mapping.policyName.map(createsOwnRelationships) ?? false
                let perRow = ownRelationships ? customRelationships : defaultRelationships
                budget.add(
                    .createRelationships, pass: model.name, mapping: index + 1, units: counts[index],
                    cost: perStage + Double(counts[index]) * perRow)
            }
            budget.add(.indexes, units: 0, cost: perStage + Double(destinationRows) * indexBuild)
            budget.add(
                .validate, pass: model.name, units: destinationRows,
                cost: perStage + Double(destinationRows) * validation)
        }
        budget.add(.verify, units: destinationRows, cost: perStage + Double(destinationRows) * verification)
        budget.add(.swap, units: 1, cost: perStage + Double(destinationRows) * swap)
        return budget
    }

    /// An inferred step's stages: the backup copy (when it keeps one), the change (a rebuild
    /// costs more), the verification (counting rows when rows could change or are copied). The
    /// change counts `tables` (its statements' share, table by table), so the bar moves through a
    /// long rebuild instead of waiting for its end.
    static func inferredStep(rows: Int, bytes: Int, backup: Bool, rebuilds: Bool, countsRows: Bool, tables: Int = 0)
        -> ProgressBudget
    {
        var budget = ProgressBudget()
        let rowCost = Double(rows)
        if backup { budget.add(.backup, units: max(bytes >> 20, 1), cost: perStage + rowCost * backupCopy) }
        budget.add(
            .inPlace, units: tables,
            cost: perStage + rowCost * (rebuilds ? rebuild : countsRows ? inPlaceChange : schemaChange))
        budget.add(
            .verify, units: countsRows || rebuilds ? rows : 0,
            cost: perStage + (countsRows || rebuilds ? rowCost * rowCount : 0))
        return budget
    }
}

extension StageCost {
    /// An in-place step as it starts, its change known statement by statement: every stage in
    /// expected microseconds of SQLite's own work (the same in a debug build): the backup copy
    /// per byte and the verification per row counted, measured with the `eta` scenario
    /// (`chrysalis-bench --scenario eta --stages`), the change from ``StatementWeights``.
    static func inPlaceStep(rows: Int, bytes: Int, backup: Bool, countsRows: Bool, change: Double, tables: Int)
        -> ProgressBudget
    {
        var budget = ProgressBudget()
        if backup { budget.add(.backup, units: max(bytes >> 20, 1), cost: perStage + Double(bytes) * backupPerByte) }
        budget.add(.inPlace, units: tables, cost: perStage + change)
        budget.add(
            .verify, units: countsRows ? rows : 0, cost: perStage + (countsRows ? Double(rows) * countPerRow : 0))
        return budget
    }

    /// A staged migration's handler: the backup (when it keeps one), then the handler, whose work
    /// is the app's: costed as a row-by-row pass over the store's rows, its bar moving with each
    /// object it changes, up to one change per row.
    static func handlerStep(rows: Int, bytes: Int, backup: Bool) -> ProgressBudget {
        var budget = ProgressBudget()
        if backup { budget.add(.backup, units: max(bytes >> 20, 1), cost: perStage + Double(bytes) * backupPerByte) }
        budget.add(.handler, units: max(rows, 1), cost: perStage + Double(rows) * rowByRowInsert)
        return budget
    }

    /// Microseconds of an in-place step's backup per byte copied, and of its verification per row counted.
    static let backupPerByte = 0.0027, countPerRow = 0.3

    /// Bytes of a store per row, roughly, to guess rows from a file's size without reading a
    /// table (counting rows reads every page of a table).
    static let bytesPerRow = 64
}
