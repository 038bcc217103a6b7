import Foundation
internal import GRDB
import ObjectModel

extension PersistentStore {
    /// Computes every derived attribute of `layout` and (re)makes its triggers, as Core Data's
    /// store has them: what a store filled with rows gets last.
    package func makeDerivedAttributes(_ layout: StoreLayout) throws {
        let derived = DerivedAttributeTriggers(layout: layout)
        guard !derived.derivations.isEmpty else { return }
        try write { db in
            for name in derived.derivations.flatMap(\.triggerNames) {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \(SQLIdentifier.quote(name))")
            }
            for statement in derived.statements { try db.execute(sql: statement.sql) }
        }
    }
}
