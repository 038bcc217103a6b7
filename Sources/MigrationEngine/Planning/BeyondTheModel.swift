import ObjectModel
import SQLiteStore

/// What a plan does with what the store holds beyond its model (``StoreExtras``), said for
/// people: the plan prints it and `migrate` repeats it with its result, so that nothing is
/// dropped without being named. The rules are Core Data's (docs/Rules.md, "Beyond the model"):
///
/// - An inferred step changes the store with SQL, as Core Data's SQLite migrator does: history
///   is kept (renumbered, truncated where a removed entity had changes) and an app's tables are
///   left alone.
/// - A mapping-model step builds a new store from the model, as `NSMigrationManager` does: it
///   carries neither the history nor an app's tables.
/// - Every step drops indexes and triggers on the model's tables that Core Data did not make
///   (an inferred step drops them with the tables' own objects; a new store never had them).
/// - An inferred step keeps an app's views and its triggers on other tables, set aside while it
///   writes so that nothing fires on its own writes; a new store does not carry them.
enum BeyondTheModel {
    static func findings(_ extras: StoreExtras, steps: [MigrationPlan.Step]) -> [String] {
        derivationsNotWritten(steps) + objects(extras, steps: steps)
    }

    /// Derived attributes whose SQL Chrysalis does not write (any derivation but a to-many's
    /// `@count`). An in-place step that leaves such a derivation as it was keeps the triggers
    /// Core Data made for it; a step that adds or changes one, and a mapping step's new store,
    /// leave it without `Z_DA_` triggers, so its values stay as the step leaves them and are no
    /// longer kept up to date. Said once per attribute, at the first step that leaves it so.
    private static func derivationsNotWritten(_ steps: [MigrationPlan.Step]) -> [String] {
        var said: Set<String> = [], lines: [String] = []
        for step in steps {
            let destination = DerivedAttributeTriggers(layout: step.predicted.destination)
            var kept: Set<DerivedAttributeTriggers.Unwritten> = []
            if case .lightweight = step.kind {
                kept = Set(
                    destination.unchangedUnwritten(
                        from: DerivedAttributeTriggers(layout: step.predicted.source)))
            }
            for derivation in destination.unwritten
            where !kept.contains(derivation) && said.insert(derivation.description).inserted {
                let store =
                    if case .mapping = step.kind {
                        "the new store of \(step.source.name) → \(step.destination.name)"
                    } else {
                        "the store after \(step.source.name) → \(step.destination.name)"
                    }
                lines.append(
                    "derived attribute \(derivation): Chrysalis does not write Core Data's SQL for this derivation, so \(store) has no Z_DA_ triggers for it; its values stay as the step leaves them and are no longer kept up to date until Core Data migrates the store"
                )
            }
        }
        return lines
    }

    /// What the steps do to what the store holds beyond its model: its history, an app's own
    /// tables, views and triggers.
    private static func objects(_ extras: StoreExtras, steps: [MigrationPlan.Step]) -> [String] {
        guard !extras.isEmpty, let first = steps.first else { return [] }
        let mapping = steps.first { if case .mapping = $0.kind { true } else { false } }
        let inferredBefore = steps.prefix { if case .lightweight = $0.kind { true } else { false } }
        var lines: [String] = []
        if let history = extras.history {
            lines += historyLines(history, inferredBefore: Array(inferredBefore), mapping: mapping)
        }
        for table in extras.appTables {
            let what = "table \(table.name) (\(table.rows) row\(table.rows == 1 ? "" : "s"), not the model's)"
            if let mapping {
                lines.append(
                    "\(what): not carried into the new store of \(mapping.source.name) → \(mapping.destination.name), as Core Data does not carry it; copy it out first to keep it"
                )
            } else {
                lines.append("\(what): kept as it is")
            }
        }
        for object in extras.keptObjects {
            let what =
                object.type == "view"
                ? "view \(object.name) (not Core Data's)"
                : "trigger \(object.name) on \(object.table) (not Core Data's)"
            if let mapping {
                lines.append(
                    "\(what): not carried into the new store of \(mapping.source.name) → \(mapping.destination.name), as Core Data does not carry it; to keep it, run it again after the migration: \(object.sql)"
                )
            } else {
                lines.append(
                    "\(what): kept; set aside while each step writes, so that the migration's own writes fire nothing, and made again after it"
                        + (object.type == "view"
                            ? " (a view naming what a step removes stops that step, which rolls back)" : ""))
            }
        }
        for object in extras.appObjects {
            lines.append(
                "\(object.type) \(object.name) on \(object.table) (not Core Data's): dropped by \(first.source.name) → \(first.destination.name); to keep it, run it again after the migration: \(object.sql)"
            )
        }
        return lines
    }

    /// What the steps do to the store's persistent history: kept and renumbered by the inferred
    /// steps before any mapping step, not carried into a mapping step's new store.
    private static func historyLines(
        _ history: StoreExtras.History, inferredBefore: [MigrationPlan.Step], mapping: MigrationPlan.Step?
    ) -> [String] {
        var lines: [String] = []
        let size =
            "persistent history (\(history.transactions) transaction\(history.transactions == 1 ? "" : "s"), \(history.changes) change\(history.changes == 1 ? "" : "s"))"
        if !inferredBefore.isEmpty {
            let removing = inferredBefore.compactMap { step -> String? in
                guard case .lightweight(let inference) = step.kind, !inference.removedEntities.isEmpty else {
                    return nil
                }
                return inference.removedEntities.sorted().joined(separator: ", ")
            }
            lines.append(
                "\(size): kept by the inferred step\(inferredBefore.count == 1 ? "" : "s"), each change renumbered to the new entity numbers"
                    + (removing.isEmpty
                        ? ""
                        : "; truncated up to the last transaction that changed a removed entity (\(removing.joined(separator: ", "))), as Core Data truncates it")
                    + "; ACHANGE.ZCOLUMNS is kept as it was (Core Data rewrites it where properties changed)")
        }
        if let mapping {
            lines.append(
                "\(size): not carried into the new store of \(mapping.source.name) → \(mapping.destination.name), as Core Data's mapping-model migration does not carry it; an app reading history from a saved token must start again"
            )
        }
        return lines
    }
}
