import Foundation
import GRDB
import ObjectModel

/// Inserts and updates objects and their relationships inside one write transaction, the way
/// Core Data saves them: `Z_PK` allocated from `Z_PRIMARYKEY.Z_MAX`, `Z_OPT` counting changes,
/// both sides of a one-to-one kept in step.
///
/// Statements are prepared once per shape and reused, so inserting millions of rows costs one
/// statement execution each and no memory beyond the current row.
public final class ObjectWriter {
    private let db: Database
    private let layout: StoreLayout
    private let path: String
    private let schema: String
    private var nextKeys: [Int: Int64] = [:]
    /// Whether a nil for a required attribute is refused at once. A migration turns this off and
    /// validates the whole destination afterwards, as Core Data validates at save.
    public var checksRequiredValues = true
    /// Instances inserted so far, by entity name: what a migration reconciles against.
    public var insertedCounts: [String: Int] {
        insertShapes.reduce(into: otherInsertedCounts) { counts, shape in
            if shape.value.inserted > 0 { counts[shape.key, default: 0] += shape.value.inserted }
        }
    }
    /// Instances inserted by templates or reserved keys; ``insert(_:_:toOne:)`` counts in its shape.
    private var otherInsertedCounts: [String: Int] = [:]

    /// A view of the store `layout` describes, attached to `db` as `schema` (`main` when it is the
    /// connection's own file); `path` names it in errors.
    public init(db: Database, layout: StoreLayout, schema: String = "main", path: String) {
        self.db = db
        self.layout = layout
        self.schema = schema
        self.path = path
    }

    /// A table name qualified with the schema, quoted.
    private func t(_ table: String) -> String { ColumnNaming.qualified(table, schema: schema) }

    /// Inserts an instance of `entity` with attribute `values` (attributes not given take the
    /// model's default values, as a new Core Data object does) and to-one destinations `toOne`
    /// (a key only: the destination's side is not touched); returns its ID.
    @discardableResult
    public func insert(_ entity: String, _ values: [String: StoreValue] = [:], toOne: [String: ObjectID] = [:]) throws -> ObjectID {
        let shape = try insertShape(entity)
        // Every attribute column is bound: the given value, else the default, else NULL (a
        // column left out of an INSERT is NULL too; Core Data's tables have no DEFAULT clauses).
        var arguments = shape.defaults
        for (name, value) in values {
            guard let position = shape.positions[name] else { throw unknownAttribute(name, of: entity, known: shape.positions.keys) }
            // The common case converts with the column's kind alone; the full description is
            // looked at only to explain a value that cannot be stored, or to check a required nil.
            guard let converted = value.databaseValue(for: shape.kinds[position - 3]), !(converted.isNull && checksRequiredValues) else {
                arguments[position] = try storedValue(value, entity: entity, name: name, attribute: shape.attributes[position - 3])
                continue
            }
            arguments[position] = converted
        }
        for (name, destination) in toOne {
            guard let position = shape.toOnePositions[name] else {
                throw StoreError(.unknownProperty, path: path, "entity \(entity) has no to-one relationship \(name)", fix: "use one of: \(relationshipNames(of: entity))")
            }
            arguments[position.key] = destination.primaryKey.databaseValue
            if let entityPosition = position.entity { arguments[entityPosition] = destination.entityNumber.databaseValue }
        }
        let key = try nextKey(root: shape.root, table: shape.table)
        arguments[0] = key.databaseValue
        try shape.statement(in: db).run(arguments)
        shape.inserted += 1
        return ObjectID(entityNumber: shape.number, primaryKey: key)
    }

    private var insertShapes: [String: InsertShape] = [:]

    private func insertShape(_ entity: String) throws -> InsertShape {
        if let shape = insertShapes[entity] { return shape }
        let (description, table, number) = try resolve(entity)
        guard !description.isAbstract else {
            throw StoreError(.unknownEntity, path: path, "entity \(entity) is abstract and cannot have instances",
                             fix: "insert one of its subentities: \(layout.model.subentities(of: description).map(\.name).joined(separator: ", "))")
        }
        let shape = InsertShape(number: number, root: layout.numbering.number(of: layout.model.rootEntity(of: description).name) ?? number,
                                table: table.name, schema: schema, columns: layout.attributeColumns(of: entity),
                                toOnes: layout.model.allRelationships(of: description).compactMap { relationship in
                                    guard case let .foreignKey(_, column, entityColumn)? = layout.storage(entity: entity, relationship: relationship.name) else { return nil }
                                    return (relationship.name, column, entityColumn)
                                })
        insertShapes[entity] = shape
        return shape
    }

    /// A prepared insert for bulk loading: one entity, a fixed list of attribute columns and
    /// to-one relationships, so each row costs one statement execution and no lookups.
    public struct InsertTemplate {
        let entity: String
        let entityNumber: Int
        let root: Int
        let table: String
        let sql: String
        let hasEntityColumn: [Bool]
    }

    /// Prepares inserts of `entity` setting `attributes` and the to-one `relationships`, in order.
    public func template(for entity: String, attributes: [String], relationships: [String]) throws -> InsertTemplate {
        let (description, table, number) = try resolve(entity)
        let root = layout.numbering.number(of: layout.model.rootEntity(of: description).name) ?? number
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        for name in attributes {
            guard let column = layout.column(entity: entity, property: name) else {
                throw StoreError(.unknownProperty, path: path, "entity \(entity) has no stored attribute \(name)", fix: "check the model")
            }
            columns.append(ColumnNaming.quote(column.name))
        }
        var hasEntityColumn: [Bool] = []
        for name in relationships {
            guard case let .foreignKey(_, column, entityColumn)? = layout.storage(entity: entity, relationship: name) else {
                throw StoreError(.unknownProperty, path: path, "entity \(entity) has no to-one relationship \(name)", fix: "check the model")
            }
            columns.append(ColumnNaming.quote(column))
            if let entityColumn { columns.append(ColumnNaming.quote(entityColumn)) }
            hasEntityColumn.append(entityColumn != nil)
        }
        let sql = "INSERT INTO \(t(table.name)) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        return InsertTemplate(entity: entity, entityNumber: number, root: root, table: table.name, sql: sql, hasEntityColumn: hasEntityColumn)
    }

    /// Inserts one row with `template`: attribute values already in storage form, then one
    /// destination (or nil) per to-one relationship.
    @discardableResult
    public func insert(_ template: InsertTemplate, values: [DatabaseValue], destinations: [ObjectID?]) throws -> ObjectID {
        let key = try nextKey(root: template.root, table: template.table)
        var arguments: [DatabaseValue] = [key.databaseValue, template.entityNumber.databaseValue, 1.databaseValue] + values
        for (destination, hasEntity) in zip(destinations, template.hasEntityColumn) {
            arguments.append(destination?.primaryKey.databaseValue ?? .null)
            if hasEntity { arguments.append(destination?.entityNumber.databaseValue ?? .null) }
        }
        try db.cachedStatement(sql: template.sql).run(arguments)
        otherInsertedCounts[template.entity, default: 0] += 1
        return ObjectID(entityNumber: template.entityNumber, primaryKey: key)
    }

    /// Hands out `count` consecutive `Z_PK`s for instances of `entity` that the caller inserts
    /// itself with set-based SQL; they count as inserted.
    public func reserveKeys(for entity: String, count: Int) throws -> (first: Int64, entityNumber: Int) {
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
    public func nextKey(for entity: String) throws -> Int64 {
        let shape = try insertShape(entity)
        return try peekKey(root: shape.root, table: shape.table)
    }

    /// The model's default values for the stored attributes of `entity`, by attribute name.
    public func defaultValues(of entity: String) -> [String: StoreValue] {
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
    public func update(_ id: ObjectID, _ values: [String: StoreValue], countsChange: Bool = true) throws {
        let entity = try name(of: id)
        let (_, table, _) = try resolve(entity)
        let (columns, arguments) = try assignments(entity: entity, values)
        let sets = ((countsChange ? ["Z_OPT = Z_OPT + 1"] : []) + columns.map { "\(ColumnNaming.quote($0)) = ?" }).joined(separator: ", ")
        try db.cachedStatement(sql: "UPDATE \(t(table.name)) SET \(sets) WHERE Z_PK = ?")
            .run(arguments + [id.primaryKey.databaseValue])
    }

    /// Sets the relationship `name` of `id` to exactly `destinations` (in order, for ordered
    /// relationships); a to-one takes zero or one destination.
    public func relate(_ id: ObjectID, _ name: String, to destinations: [ObjectID]) throws {
        let entity = try self.name(of: id)
        guard let storage = layout.storage(entity: entity, relationship: name),
              let source = layout.model.entity(named: entity), let relationship = layout.model.relationship(named: name, in: source) else {
            throw StoreError(.unknownProperty, path: path, "entity \(entity) has no stored relationship \(name)",
                             fix: "use one of: \(relationshipNames(of: entity))")
        }
        for destination in destinations {
            let destinationName = try self.name(of: destination)
            let allowed = layout.model.entity(named: relationship.destinationEntityName).map { [$0.name] + descendants(of: $0) } ?? []
            guard allowed.contains(destinationName) else {
                throw StoreError(.badValue, path: path, "\(entity).\(name) points to \(relationship.destinationEntityName), not to \(destinationName)",
                                 fix: "relate it to an instance of \(relationship.destinationEntityName)")
            }
        }
        let q = ColumnNaming.quote
        switch storage {
        case let .foreignKey(table, column, entityColumn):
            guard destinations.count <= 1 else {
                throw StoreError(.badValue, path: path, "\(entity).\(name) is to-one but was given \(destinations.count) destinations",
                                 fix: "give at most one destination")
            }
            var sets = ["\(q(column)) = ?"]
            var arguments: [DatabaseValue] = [destinations.first?.primaryKey.databaseValue ?? .null]
            if let entityColumn {
                sets.append("\(q(entityColumn)) = ?")
                arguments.append(destinations.first?.entityNumber.databaseValue ?? .null)
            }
            try db.cachedStatement(sql: "UPDATE \(t(table)) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?")
                .run(arguments + [id.primaryKey.databaseValue])
            // A one-to-one keeps a key on both sides.
            if let inverse = layout.inverse(of: relationship), !inverse.isToMany, let destination = destinations.first {
                try setForeignKey(of: destination, inverse.name, to: id)
            }
        case let .inverseForeignKey(table, column, entityColumn, orderColumn):
            let typeSet = entityColumn.map { ", \(q($0)) = ?" } ?? ""
            let orderSet = orderColumn.map { ", \(q($0)) = ?" } ?? ""
            try db.cachedStatement(sql: "UPDATE \(t(table)) SET \(q(column)) = NULL\(typeSet)\(orderSet) WHERE \(q(column)) = ?")
                .run((entityColumn == nil ? [] : [DatabaseValue.null]) + (orderColumn == nil ? [] : [DatabaseValue.null]) + [id.primaryKey.databaseValue])
            let update = try db.cachedStatement(sql: "UPDATE \(t(table)) SET \(q(column)) = ?\(typeSet)\(orderSet) WHERE Z_PK = ?")
            for (position, destination) in destinations.enumerated() {
                var arguments: [DatabaseValue] = [id.primaryKey.databaseValue]
                if entityColumn != nil { arguments.append(id.entityNumber.databaseValue) }
                if orderColumn != nil { arguments.append(Self.orderKey(position).databaseValue) }
                try update.run(arguments + [destination.primaryKey.databaseValue])
            }
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn):
            try db.cachedStatement(sql: "DELETE FROM \(t(join.name)) WHERE \(q(sourceColumn)) = ?").execute(arguments: [id.primaryKey])
            let columns = [sourceColumn, destinationColumn] + (orderColumn.map { [$0] } ?? [])
            let insert = try db.cachedStatement(sql: "INSERT INTO \(t(join.name)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
            for (position, destination) in destinations.enumerated() {
                var arguments: [DatabaseValue] = [id.primaryKey.databaseValue, destination.primaryKey.databaseValue]
                if orderColumn != nil { arguments.append(Self.orderKey(position).databaseValue) }
                try insert.run(arguments)
            }
        }
    }

    private func setForeignKey(of id: ObjectID, _ name: String, to destination: ObjectID) throws {
        guard case let .foreignKey(table, column, entityColumn)? = layout.storage(entity: try self.name(of: id), relationship: name) else { return }
        let q = ColumnNaming.quote
        let typeSet = entityColumn.map { ", \(q($0)) = ?" } ?? ""
        var arguments: [DatabaseValue] = [destination.primaryKey.databaseValue]
        if entityColumn != nil { arguments.append(destination.entityNumber.databaseValue) }
        try db.cachedStatement(sql: "UPDATE \(t(table)) SET \(q(column)) = ?\(typeSet) WHERE Z_PK = ?")
            .run(arguments + [id.primaryKey.databaseValue])
    }

    /// Adds `destinations` to the to-many relationship `name` of `id`, keeping what is there
    /// (for a to-one, sets it).
    public func add(_ id: ObjectID, _ name: String, _ destinations: [ObjectID]) throws {
        let entity = try self.name(of: id)
        switch layout.storage(entity: entity, relationship: name) {
        case .foreignKey?:
            try relate(id, name, to: Array(destinations.suffix(1)))
        case let .inverseForeignKey(table, column, entityColumn, orderColumn)?:
            var next = orderColumn == nil ? 0
                : try Int64.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM \(t(table)) WHERE \(ColumnNaming.quote(column)) = ?"), arguments: [id.primaryKey]) ?? 0
            let q = ColumnNaming.quote
            let sets = [q(column) + " = ?"] + (entityColumn.map { [q($0) + " = ?"] } ?? []) + (orderColumn.map { [q($0) + " = ?"] } ?? [])
            let update = try db.cachedStatement(sql: "UPDATE \(t(table)) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?")
            for destination in destinations {
                var arguments: [DatabaseValue] = [id.primaryKey.databaseValue]
                if entityColumn != nil { arguments.append(id.entityNumber.databaseValue) }
                if orderColumn != nil { arguments.append(Self.orderKey(Int(next)).databaseValue); next += 1 }
                try update.run(arguments + [destination.primaryKey.databaseValue])
            }
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn)?:
            let q = ColumnNaming.quote
            var next = orderColumn == nil ? 0
                : try Int64.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM \(t(join.name)) WHERE \(q(sourceColumn)) = ?"), arguments: [id.primaryKey]) ?? 0
            let columns = [sourceColumn, destinationColumn] + (orderColumn.map { [$0] } ?? [])
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(t(join.name)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
            for destination in destinations {
                var arguments: [DatabaseValue] = [id.primaryKey.databaseValue, destination.primaryKey.databaseValue]
                if orderColumn != nil { arguments.append(Self.orderKey(Int(next)).databaseValue); next += 1 }
                try insert.run(arguments)
            }
        case nil:
            throw StoreError(.unknownProperty, path: path, "entity \(entity) has no stored relationship \(name)",
                             fix: "use one of: \(relationshipNames(of: entity))")
        }
    }

    /// The model's default for `attribute`, converted from Xcode's `defaultValueString`.
    public static func defaultValue(of attribute: AttributeDescription) -> StoreValue? {
        guard let text = attribute.defaultValueString else { return nil }
        switch attribute.attributeType {
        // Numbers are read as Xcode's model compiler reads them, with NSString's integerValue and
        // doubleValue: the leading number, or 0 (Wire's `mutedStatus`, Integer 32, keeps the
        // Boolean default "NO" it had before its type changed: Core Data gives it 0).
        case .integer16, .integer32, .integer64: return .integer(Self.leadingNumber(text, fraction: false).flatMap { Int64($0) } ?? 0)
        case .double, .float: return .double(Self.leadingNumber(text, fraction: true).flatMap(Double.init) ?? 0)
        case .decimal: return Decimal(string: text).map(StoreValue.decimal)
        case .boolean: return .bool(["YES", "TRUE", "1"].contains(text.uppercased()))
        case .string: return .string(text)
        case .uri: return URL(string: text).map(StoreValue.uri)
        default: return nil
        }
    }

    /// The number `text` starts with, as NSString's `integerValue` (leading spaces, a sign,
    /// digits) or `doubleValue` (also a fraction and an exponent) finds it; `nil` when none.
    static func leadingNumber(_ text: String, fraction: Bool) -> String? {
        let scalars = Array(text.unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\n" })
        var end = 0
        func digits() -> Int {
            let start = end
            while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
            return end - start
        }
        if end < scalars.count, scalars[end] == "+" || scalars[end] == "-" { end += 1 }
        var count = digits()
        if fraction, end < scalars.count, scalars[end] == "." { end += 1; count += digits() }
        guard count > 0 else { return nil }
        if fraction, end < scalars.count, scalars[end] == "e" || scalars[end] == "E" {
            let mantissa = end
            end += 1
            if end < scalars.count, scalars[end] == "+" || scalars[end] == "-" { end += 1 }
            if digits() == 0 { end = mantissa }
        }
        return String(String.UnicodeScalarView(scalars[..<end]))
    }

    /// Core Data's ordering keys: steps of 1024 from 1024 (position 0).
    static func orderKey(_ position: Int) -> Int64 { Int64(position + 1) * 1024 }

    /// Records the keys handed out in `Z_PRIMARYKEY.Z_MAX`, as Core Data does at save. Call it
    /// before committing when driving transactions yourself.
    public func finish() throws {
        for (root, next) in nextKeys {
            try db.execute(sql: "UPDATE \(t("Z_PRIMARYKEY")) SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [next - 1, root])
        }
    }

    private func nextKey(root: Int, table: String) throws -> Int64 {
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
        let used = try keys.integer(try DatabaseValue.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(t(table))") ?? .null, row: "its highest") ?? 0
        guard used <= PrimaryKeyTable.highestKey else { throw noKeysLeft(table, used) }
        return max(recorded, used) + 1
    }

    /// The error for a table whose keys reached ``PrimaryKeyTable/highestKey``: no real store gets
    /// there, so the store is damaged, and counting on would overflow.
    private func noKeysLeft(_ table: String, _ highest: Int64) -> StoreError {
        StoreError(.corrupt, path: path, "\(table).Z_PK reaches \(highest), which leaves no keys for new objects (at most \(PrimaryKeyTable.highestKey))",
                   fix: CheckedColumn.damagedFix(path))
    }

    private func resolve(_ entity: String) throws -> (EntityDescription, StoreLayout.Table, Int) {
        guard let description = layout.model.entity(named: entity), let table = layout.table(for: entity),
              let number = layout.numbering.number(of: entity) else {
            throw StoreError(.unknownEntity, path: path, "the model has no entity \(entity)",
                             fix: "use one of: \(layout.model.entities.map(\.name).joined(separator: ", "))")
        }
        return (description, table, number)
    }

    private func name(of id: ObjectID) throws -> String {
        guard let name = layout.numbering.name(of: id.entityNumber) else {
            throw StoreError(.unknownEntity, path: path, "no entity has number \(id.entityNumber) (object \(id))", fix: "use an ID this store handed out")
        }
        return name
    }

    /// Attribute columns by entity and name, built once per writer.
    private var attributeIndex: [String: [String: (attribute: AttributeDescription, column: StoreLayout.Column)]] = [:]

    private func assignments(entity: String, _ values: [String: StoreValue]) throws -> ([String], [DatabaseValue]) {
        if attributeIndex[entity] == nil {
            attributeIndex[entity] = Dictionary(layout.attributeColumns(of: entity).map { ($0.attribute.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        let attributes = attributeIndex[entity] ?? [:]
        var columns: [String] = []
        var arguments: [DatabaseValue] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let (attribute, column) = attributes[name] else { throw unknownAttribute(name, of: entity, known: attributes.keys) }
            columns.append(column.name)
            arguments.append(try storedValue(value, entity: entity, name: name, attribute: attribute))
        }
        return (columns, arguments)
    }

    /// `value` in the storage form of `attribute`, or why it cannot be stored.
    private func storedValue(_ value: StoreValue, entity: String, name: String, attribute: AttributeDescription) throws -> DatabaseValue {
        guard let converted = value.databaseValue(for: attribute) else {
            throw StoreError(.badValue, path: path, "\(entity).\(name) is \(attribute.attributeType.displayName) and cannot hold \(value)",
                             fix: "give a value of the attribute's type")
        }
        if checksRequiredValues && converted.isNull && !attribute.isOptional && attribute.defaultValueString == nil {
            throw StoreError(.badValue, path: path, "\(entity).\(name) is required but was given no value", fix: "give it a value")
        }
        return converted
    }

    private func unknownAttribute(_ name: String, of entity: String, known: some Sequence<String>) -> StoreError {
        let isRelationship = layout.model.entity(named: entity).flatMap { layout.model.relationship(named: name, in: $0) } != nil
        return StoreError(.unknownProperty, path: path,
                          isRelationship ? "\(entity).\(name) is a relationship, not an attribute" : "entity \(entity) has no stored attribute \(name)",
                          fix: isRelationship ? "set it with relate(_:_:to:)" : "use one of: \(known.sorted().joined(separator: ", "))")
    }

    private func descendants(of entity: EntityDescription) -> [String] {
        layout.model.subentities(of: entity).flatMap { [$0.name] + descendants(of: $0) }
    }

    private func relationshipNames(of entity: String) -> String {
        guard let description = layout.model.entity(named: entity) else { return "" }
        return layout.model.allRelationships(of: description).map(\.name).joined(separator: ", ")
    }
}
