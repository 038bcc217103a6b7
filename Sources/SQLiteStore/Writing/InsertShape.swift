internal import GRDB
import ObjectModel

/// What inserting an instance of one entity needs, prepared once per writer: one statement
/// setting every stored attribute and to-one key, and the model's defaults already in storage form.
final class InsertShape {
    let number: Int, root: Int, table: String
    let attributes: [AttributeDescription]
    let kinds: [StoreValue.StorageKind]
    /// Argument positions by attribute name (after `Z_PK`, `Z_ENT`, `Z_OPT`).
    let positions: NameIndex<Int>
    /// Argument positions of each to-one's key (and destination entity), after the attributes.
    let toOnePositions: NameIndex<(key: Int, entity: Int?)>
    /// `Z_PK` (filled per row), `Z_ENT`, `Z_OPT` 1, then each attribute's default or NULL, then NULL keys.
    let defaults: [SQLValue]
    /// Its table's queue, which writes its rows (QueuedInserts.swift).
    let rows: RowQueue
    /// Instances of the entity written (through ``rows``).
    var inserted: Int { rows.written }

    init(
        number: Int, root: Int, table: String, schema: String,
        columns: [(attribute: AttributeDescription, column: StoreLayout.Column)],
        toOnes: [(name: String, column: String, entityColumn: String?)]
    ) {
        (self.number, self.root, self.table) = (number, root, table)
        attributes = columns.map(\.attribute)
        kinds = columns.map { StoreValue.StorageKind($0.attribute) }
        positions = NameIndex(columns.enumerated().map { ($1.attribute.name, $0 + 3) })
        var names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map { SQLIdentifier.quote($0.column.name) }
        var toOnePositions: [(String, (key: Int, entity: Int?))] = []
        for toOne in toOnes {
            names.append(SQLIdentifier.quote(toOne.column))
            let key = names.count - 1
            if let entityColumn = toOne.entityColumn { names.append(SQLIdentifier.quote(entityColumn)) }
            toOnePositions.append((toOne.name, (key, toOne.entityColumn == nil ? nil : key + 1)))
        }
        self.toOnePositions = NameIndex(toOnePositions)
        defaults =
            [.null, SQLValue(number), 1]
            + columns.map { ObjectWriter.defaultValue(of: $0.attribute)?.sqlValue(for: $0.attribute) ?? .null }
            + Array(repeating: .null, count: names.count - 3 - columns.count)
        rows = RowQueue(
            table: table,
            insertInto:
                "INSERT INTO \(SQLIdentifier.qualified(table, schema: schema)) (\(names.joined(separator: ", ")))",
            width: names.count)
    }
}
