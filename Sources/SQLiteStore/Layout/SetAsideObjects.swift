internal import GRDB

/// An app's triggers and views, out of the way of an in-place step. SQLite fires a trigger on
/// whatever writes its table, the tool's own bookkeeping included: an `AFTER UPDATE ON
/// Z_METADATA` trigger that deletes rows would run when a step records its new model, and the
/// step would report every row kept. And `ALTER TABLE` refuses to change a table a view names.
/// So before its first write a step drops every trigger and view Core Data did not make, and
/// once its writes are done makes again those it keeps: triggers on tables that are not the
/// model's (`Z_METADATA`, `Z_PRIMARYKEY`, history, an app's tables) and views. Triggers on the
/// model's tables stay dropped, as the plan says. All in the step's transaction.
package struct SetAsideObjects: Sendable, Equatable {
    /// What is made again after the step, in the order SQLite listed it.
    package var kept: [SchemaObjects.Object]
    /// Triggers on the model's tables, dropped for good.
    package var dropped: [SchemaObjects.Object]

    /// Whether an object is one of an app's rather than Core Data's: Core Data makes no views
    /// and no triggers but its derived attributes' (`Z_DA_…`).
    package static func isApps(_ object: SchemaObjects.Object) -> Bool {
        object.type == "view"
            || (object.type == "trigger" && !DerivedAttributeTriggers.isDerivedAttributeTrigger(object.name))
    }
}

extension StoreConnection {
    /// Every trigger and view an app made, as SQLite keeps them.
    package func appTriggersAndViews() throws -> [SchemaObjects.Object] {
        try converting {
            try Row.fetchAll(
                db,
                sql:
                    """
                    SELECT type, name, sql, tbl_name FROM main.sqlite_master WHERE type IN ('trigger', 'view') AND \
                    sql IS NOT NULL ORDER BY rowid
                    """
            )
            .map { SchemaObjects.Object(type: $0[0], name: $0[1], sql: $0[2], table: $0[3]) }
            .filter(SetAsideObjects.isApps)
        }
    }

    /// Drops every trigger and view an app made (``SetAsideObjects``); those on `modelTables`
    /// (upper case) are dropped for good, the rest returned to be made again.
    package func setAsideAppObjects(modelTables: Set<String>) throws -> SetAsideObjects {
        let objects = try appTriggersAndViews()
        var setAside = SetAsideObjects(kept: [], dropped: [])
        for object in objects {
            try execute(
                SQLStatement(
                    "DROP \(object.type == "view" ? "VIEW" : "TRIGGER") main.\(SQLIdentifier.quote(object.name))"))
            if object.type == "trigger" && modelTables.contains(object.table.uppercased()) {
                setAside.dropped.append(object)
            } else {
                setAside.kept.append(object)
            }
        }
        return setAside
    }

    /// Makes again what ``setAsideAppObjects(modelTables:)`` kept. A trigger whose table the step
    /// removed cannot be made again and is returned; a view is checked by reading it, and one
    /// that names what the step removed is returned with SQLite's reason.
    package func restore(_ setAside: SetAsideObjects) throws -> [(object: SchemaObjects.Object, reason: String)] {
        var failed: [(SchemaObjects.Object, String)] = []
        for object in setAside.kept {
            do {
                try execute(SQLStatement(object.sql))
                if object.type == "view" {
                    try execute(SQLStatement("SELECT * FROM main.\(SQLIdentifier.quote(object.name)) LIMIT 0"))
                }
            } catch {
                failed.append((object, "\(error)"))
            }
        }
        return failed
    }
}
