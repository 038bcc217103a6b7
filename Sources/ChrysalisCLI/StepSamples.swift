import Foundation
import MigrationConsole
import MigrationEngine
import SQLiteStore

/// What `chrysalis console` shows in an in-place step's result pane: a few rows of each entity
/// the step changed, read from the store at the step's version, so the new column or the renamed
/// entity is there to see. A mapping step's pane shows its row counts instead.
enum StepSamples {
    /// Rows shown per entity.
    static let rowsPerEntity = 3

    /// The tables for `done`'s result pane (empty for a mapping step).
    static func tables(_ done: CompletedStep) throws -> [StepResult.Table] {
        guard case .lightweight(let inference) = done.step.kind else { return [] }
        let model = done.step.destination.model
        let entities = Array(Set(inference.changes.map(\.entity))).sorted().filter { model.entity(named: $0) != nil }
        guard !entities.isEmpty else { return [] }
        let store = try PersistentStore.open(at: done.store)
        defer { try? store.close() }
        let layout = try store.layout(for: model)
        return try store.readObjects(layout) { reader in
            try entities.prefix(3).compactMap { name -> StepResult.Table? in
                guard let number = layout.numbering.number(of: name) else { return nil }
                let objects = try (1...Int64(rowsPerEntity)).compactMap {
                    try reader.object(ObjectID(entityNumber: number, primaryKey: $0))
                }
                let columns = Array(Set(objects.flatMap(\.values.keys))).sorted().prefix(4)
                let changes = inference.changes.filter { $0.entity == name }.map(\.description).joined(separator: "; ")
                return StepResult.Table(
                    title: "\(name) (\(changes))", columns: ["pk"] + columns,
                    rows: objects.map { object in
                        [String(object.id.primaryKey)] + columns.map { describe(object.values[$0]) }
                    })
            }
        }
    }

    private static func describe(_ value: StoreValue?) -> String {
        switch value {
        case .string(let text)?: return text
        case .integer(let number)?: return String(number)
        case .double(let number)?: return String(number)
        case .bool(let flag)?: return flag ? "YES" : "NO"
        case .null?, nil: return "NULL"
        case let other?: return "\(other)"
        }
    }
}
