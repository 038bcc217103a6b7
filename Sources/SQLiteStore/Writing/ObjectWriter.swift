import Foundation
internal import GRDB
import ObjectModel

/// Inserts and updates objects and their relationships inside one write transaction, the way
/// Core Data saves them: `Z_PK` allocated from `Z_PRIMARYKEY.Z_MAX`, `Z_OPT` counting changes,
/// both sides of a one-to-one kept in step (RelationshipWrites.swift), bulk loads through
/// prepared templates (ObjectWriter+Templates.swift), the model's defaults for what is not given
/// (DefaultValues.swift).
///
/// Statements are prepared once per shape and reused, so inserting millions of rows costs one
/// statement execution each and no memory beyond the current row.
package final class ObjectWriter {
    let db: Database
    let layout: StoreLayout
    let path: String
    private let schema: String
    private var nextKeys: [Int: Int64] = [:]
    /// Whether a nil for a required attribute is refused at once. A migration turns this off and
    /// validates the whole destination afterwards, as Core Data validates at save.
    package var checksRequiredValues = true
    /// Instances inserted so far, by entity name: what a migration reconciles against.
    package var insertedCounts: [String: Int] {
        insertShapes.reduce(into: otherInsertedCounts) { counts, shape in
            if shape.value.inserted > 0 { counts[shape.key, default: 0] += shape.value.inserted }
        }
    }
    /// Instances inserted by templates or reserved keys; ``insert(_:_:toOne:)`` counts in its shape.
    var otherInsertedCounts: [String: Int] = [:]

    /// A view of the store `layout` describes, attached to `connection` as `schema` (`main` when
    /// it is the connection's own file); `path` names it in errors.
    package convenience init(connection: StoreConnection, layout: StoreLayout, schema: String = "main", path: String) {
        self.init(db: connection.db, layout: layout, schema: schema, path: path)
    }

    init(db: Database, layout: StoreLayout, schema: String = "main", path: String) {
        self.db = db
        self.layout = layout
        self.schema = schema
        self.path = path
    }

    /// A table name qualified with the schema, quoted.
    func t(_ table: String) -> String { SQLIdentifier.qualified(table, schema: schema) }

    /// Inserts an instance of `entity` with attribute `values` (attributes not given take the
    /// model's default values, as a new Core Data object does) and to-one destinations `toOne`
    /// (a key only: the destination's side is not touched); returns its ID.
    @discardableResult
    package func insert(_ entity: String, _ values: [String: StoreValue] = [:], toOne: [String: ObjectID] = [:]) throws
        -> ObjectID
    {
        let pending = try prepareInsert(entity, values, toOne: toOne)
        try run(pending)
        return pending.id
    }

    /// Every attribute of `values` in its argument position of `shape`'s insert.
    func bind(_ values: [String: StoreValue], of entity: String, into arguments: inout [SQLValue], shape: InsertShape)
        throws
    {
        for (name, value) in values {
            guard let position = shape.positions[name] else {
                throw unknownAttribute(name, of: entity, known: shape.positions.names)
            }
            // The common case converts with the column's kind alone; the full description is
            // looked at only to explain a value that cannot be stored, or to check a required nil.
            guard let converted = value.sqlValue(for: shape.kinds[position - 3]),
                !(converted.isNull && checksRequiredValues)
            else {
                arguments[position] = try storedValue(
                    value, entity: entity, name: name, attribute: shape.attributes[position - 3])
                continue
            }
            arguments[position] = converted
        }
    }

    private var insertShapes: [String: InsertShape] = [:]
    private var lastShape: (entity: String, shape: InsertShape)?
    /// Tables with rows queued (QueuedInserts.swift), in the order their first row was queued.
    var queuedTables: [RowQueue] = []
    /// The array of the row queued last, for the next insert to reuse (``freshRow(_:)``).
    var spareRow: [SQLValue] = []
    /// How each relationship is written, by entity number and name (RelationshipWrites.swift).
    var writePlans: [RelationshipWritePlan.Key: RelationshipWritePlan] = [:]

    func insertShape(_ entity: String) throws -> InsertShape {
        // A migration inserts instances of one entity many times in a row.
        if let last = lastShape, last.entity == entity { return last.shape }
        if let shape = insertShapes[entity] { lastShape = (entity, shape); return shape }
        let (description, table, number) = try resolve(entity)
        guard !description.isAbstract else {
            throw StoreError(
                .unknownEntity, path: path, "entity \(entity) is abstract and cannot have instances",
                fix:
                    """
                    insert one of its subentities: \
                    \(layout.model.subentities(of: description).map(\.name).joined(separator: ", "))
                    """
            )
        }
        let shape = InsertShape(
            number: number, root: layout.numbering.number(of: layout.model.rootEntity(of: description).name) ?? number,
            table: table.name, schema: schema, columns: layout.attributeColumns(of: entity),
            toOnes: layout.model.allRelationships(of: description).compactMap { relationship in
                guard
                    case let .foreignKey(_, column, entityColumn)? = layout.storage(
                        entity: entity, relationship: relationship.name)
                else { return nil }
                return (relationship.name, column, entityColumn)
            })
        insertShapes[entity] = shape
        lastShape = (entity, shape)
        return shape
    }

    /// Hands out `count` consecutive `Z_PK`s for instances of `entity` that the caller inserts
    /// itself with set-based SQL; they count as inserted.
    package func reserveKeys(for entity: String, count: Int) throws -> (first: Int64, entityNumber: Int) {
        try writeQueuedInserts()
        let (description, table, number) = try resolve(entity)
        let root = layout.numbering.number(of: layout.model.rootEntity(of: description).name) ?? number
        let first = try nextKey(root: root, table: table.name)
        let (next, overflow) = first.addingReportingOverflow(Int64(max(count, 1)))
        guard !overflow, next <= PrimaryKeyTable.highestKey else { throw noKeysLeft(table.name, first) }
        nextKeys[root] = next
        otherInsertedCounts[entity, default: 0] += count
        return (first, number)
    }

    /// The key the next instance of `entity` would get, without reserving it.
    package func nextKey(for entity: String) throws -> Int64 {
        let shape = try insertShape(entity)
        return try peekKey(root: shape.root, table: shape.table)
    }

    /// The model's default values for the stored attributes of `entity`, by attribute name.
    package func defaultValues(of entity: String) -> [String: StoreValue] {
        if let known = defaultsByEntity[entity] { return known }
        var values: [String: StoreValue] = [:]
        for (attribute, _) in layout.attributeColumns(of: entity) {
            if let value = Self.defaultValue(of: attribute) { values[attribute.name] = value }
        }
        defaultsByEntity[entity] = values
        return values
    }

    private var defaultsByEntity: [String: [String: StoreValue]] = [:]

    /// Changes attribute `values` of an existing object and counts the change in `Z_OPT` (unless
    /// `countsChange` is false: a migration finishing an object it created in the same save).
    package func update(_ id: ObjectID, _ values: [String: StoreValue], countsChange: Bool = true) throws {
        try writeQueuedInserts()
        let entity = try name(of: id)
        let (_, table, _) = try resolve(entity)
        let (columns, arguments) = try assignments(entity: entity, values)
        let sets = ((countsChange ? ["Z_OPT = Z_OPT + 1"] : []) + columns.map { "\(SQLIdentifier.quote($0)) = ?" })
            .joined(separator: ", ")
        try db.cachedStatement(sql: "UPDATE \(t(table.name)) SET \(sets) WHERE Z_PK = ?")
            .run(arguments + [.integer(id.primaryKey)])
    }

    /// Records the keys handed out in `Z_PRIMARYKEY.Z_MAX`, as Core Data does at save. Call it
    /// before committing when driving transactions yourself.
    package func finish() throws {
        try writeQueuedInserts()
        for (root, next) in nextKeys {
            try db.execute(
                sql: "UPDATE \(t("Z_PRIMARYKEY")) SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [next - 1, root])
        }
    }

    /// The next key of the hierarchy whose root is numbered `root`, handed out.
    func nextKey(root: Int, table: String) throws -> Int64 {
        // Once per inserted row: one look-up, the key counted up in place.
        if let index = nextKeys.index(forKey: root) {
            let next = nextKeys.values[index]
            guard next <= PrimaryKeyTable.highestKey else { throw noKeysLeft(table, next - 1) }
            nextKeys.values[index] = next + 1
            return next
        }
        let next = try peekKey(root: root, table: table)
        nextKeys[root] = next + 1
        return next
    }

    /// The next free key of a hierarchy: handed out already, or past both `Z_MAX` and the table's keys.
    private func peekKey(root: Int, table: String) throws -> Int64 {
        if let next = nextKeys[root] {
            guard next <= PrimaryKeyTable.highestKey else { throw noKeysLeft(table, next - 1) }
            return next
        }
        let recorded = try PrimaryKeyTable.recordedMax(db, number: root, path: path, schema: schema)
        let keys = CheckedColumn(path: path, table: table, column: "Z_PK")
        let used =
            try keys.integer(
                try DatabaseValue.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(t(table))") ?? .null, row: "its highest")
            ?? 0
        guard used <= PrimaryKeyTable.highestKey else { throw noKeysLeft(table, used) }
        return max(recorded, used) + 1
    }

    /// The error for a table whose keys reached ``PrimaryKeyTable/highestKey``: no real store gets
    /// there, so the store is damaged, and counting on would overflow.
    private func noKeysLeft(_ table: String, _ highest: Int64) -> StoreError {
        StoreError(
            .corrupt, path: path,
            """
            \(table).Z_PK reaches \(highest), which leaves no keys for new objects (at most \
            \(PrimaryKeyTable.highestKey))
            """,
            fix: CheckedColumn.damagedFix(path))
    }

    /// The description, table and number of `entity`, or the error naming the model's entities.
    func resolve(_ entity: String) throws -> (EntityDescription, StoreLayout.Table, Int) {
        guard let description = layout.model.entity(named: entity), let table = layout.table(for: entity),
            let number = layout.numbering.number(of: entity)
        else {
            throw StoreError(
                .unknownEntity, path: path, "the model has no entity \(entity)",
                fix: "use one of: \(layout.model.entities.map(\.name).joined(separator: ", "))")
        }
        return (description, table, number)
    }

    /// The entity name of `id`.
    func name(of id: ObjectID) throws -> String {
        guard let name = layout.numbering.name(of: id.entityNumber) else {
            throw StoreError(
                .unknownEntity, path: path, "no entity has number \(id.entityNumber) (object \(id))",
                fix: "use an ID this store handed out")
        }
        return name
    }

    /// Attribute columns by entity and name, built once per writer.
    private var attributeIndex: [String: [String: (attribute: AttributeDescription, column: StoreLayout.Column)]] = [:]

    private func assignments(entity: String, _ values: [String: StoreValue]) throws -> ([String], [SQLValue]) {
        if attributeIndex[entity] == nil {
            attributeIndex[entity] = Dictionary(
                layout.attributeColumns(of: entity).map { ($0.attribute.name, $0) },
                uniquingKeysWith: { first, _ in first })
        }
        let attributes = attributeIndex[entity] ?? [:]
        var columns: [String] = []
        var arguments: [SQLValue] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let (attribute, column) = attributes[name] else {
                throw unknownAttribute(name, of: entity, known: attributes.keys)
            }
            columns.append(column.name)
            arguments.append(try storedValue(value, entity: entity, name: name, attribute: attribute))
        }
        return (columns, arguments)
    }

    /// `value` in the storage form of `attribute`, or why it cannot be stored.
    func storedValue(_ value: StoreValue, entity: String, name: String, attribute: AttributeDescription) throws
        -> SQLValue
    {
        guard let converted = value.sqlValue(for: attribute) else {
            throw StoreError(
                .badValue, path: path,
                "\(entity).\(name) is \(attribute.attributeType.displayName) and cannot hold \(value)",
                fix: "give a value of the attribute's type")
        }
        if checksRequiredValues && converted.isNull && !attribute.isOptional && attribute.defaultValueString == nil {
            throw StoreError(
                .badValue, path: path, "\(entity).\(name) is required but was given no value", fix: "give it a value")
        }
        return converted
    }

    func unknownAttribute(_ name: String, of entity: String, known: some Sequence<String>) -> StoreError {
        let isRelationship =
            layout.model.entity(named: entity).flatMap { layout.model.relationship(named: name, in: $0) } != nil
        return StoreError(
            .unknownProperty, path: path,
            isRelationship
                ? "\(entity).\(name) is a relationship, not an attribute"
                : "entity \(entity) has no stored attribute \(name)",
            fix: isRelationship
                ? "set it with relate(_:_:to:)" : "use one of: \(known.sorted().joined(separator: ", "))")
    }

    /// `entity`'s relationships, for an error's fix.
    func relationshipNames(of entity: String) -> String {
        guard let description = layout.model.entity(named: entity) else { return "" }
        return layout.model.allRelationships(of: description).map(\.name).joined(separator: ", ")
    }
}
