import Foundation
import GRDB
import ObjectModel
import SQLiteStore

/// Stage 1 as set-based SQL: when an entity mapping has no custom policy or association hook and
/// every expression (and the filter) compiles, each chunk of source rows becomes two statements —
/// associations numbered with `row_number()`, then one `INSERT … SELECT` into the destination.
struct SetBasedInstances {
    let manager: MigrationManager
    let mapping: EntityMapping
    let mappingIndex: Int
    private let sourceTable: String
    private let sourceTableName: String
    private let destinationTable: String
    private let sourceNumber: Int
    private let columns: [String]
    private let values: [String]
    private let valueArguments: [DatabaseValue]
    private let filter: ExpressionSQL.Fragment?
    /// To-one relationship mappings written by the stage-1 insert itself (see ``foldableToOnes``),
    /// which stage 2 then skips.
    let foldedRelationships: Set<String>
    /// Their source foreign-key columns and target mappings, looked up per chunk (the target's
    /// associations may be kept as its source keys, known only once it ran).
    private let folds: [(sourceColumn: String, target: Int, targetTable: String)]

    /// The plan for `mapping`, or `nil` when it must run row by row.
    init?(manager: MigrationManager, mapping: EntityMapping, index: Int) {
        guard mapping.policyName == nil, let sourceName = mapping.sourceEntity,
              let destinationName = mapping.destinationEntity, let source = manager.sourceModel.entity(named: sourceName),
              let destination = manager.destinationModel.entity(named: destinationName), !destination.isAbstract,
              let sourceTable = manager.sourceLayout.table(for: sourceName), let destinationTable = manager.destinationLayout.table(for: destinationName),
              let sourceNumber = manager.sourceLayout.numbering.number(of: sourceName) else { return nil }
        let compiler = ExpressionSQL(layout: manager.sourceLayout, entity: source, alias: "s")
        var filter: ExpressionSQL.Fragment?
        if let predicate = mapping.filter {
            guard let compiled = compiler.compile(predicate) else { return nil }
            filter = compiled
        }
        let defaults = manager.writer.defaultValues(of: destinationName)
        var columns: [String] = [], values: [String] = [], arguments: [DatabaseValue] = []
        // Values set on association come after the mapping's own, so they win.
        let onAssociation = Dictionary((manager.associationValues[destinationName] ?? []).map { ($0.attribute, $0.expression) }, uniquingKeysWith: { _, last in last })
        for (attribute, column) in manager.destinationLayout.attributeColumns(of: destinationName) {
            let expression = onAssociation[attribute.name] ?? mapping.attributeMappings.first { $0.name == attribute.name }?.expression
            if let expression {
                guard let fragment = compiler.compile(expression), let sql = ExpressionSQL.stored(fragment, in: attribute) else { return nil }
                values.append(sql)
                arguments += fragment.arguments
            } else if let value = defaults[attribute.name]?.databaseValue(for: attribute) {
                values.append("?")
                arguments.append(value)
            } else {
                continue
            }
            columns.append(ColumnNaming.quote(column.name))
        }
        // A to-one whose target mapping ran earlier in this pass is looked up while inserting,
        // instead of rewriting every row in stage 2.
        let folds = Self.foldableToOnes(manager: manager, mapping: mapping, index: index)
        for fold in folds { columns.append(ColumnNaming.quote(fold.column)) }
        self.folds = folds.map { (sourceColumn: $0.sourceColumn, target: $0.target, targetTable: $0.targetTable) }
        foldedRelationships = Set(folds.map(\.property))
        self.manager = manager
        self.mapping = mapping
        mappingIndex = index
        self.sourceTable = "src.\(ColumnNaming.quote(sourceTable.name))"
        sourceTableName = sourceTable.name
        self.destinationTable = "main.\(ColumnNaming.quote(destinationTable.name))"
        self.sourceNumber = sourceNumber
        self.columns = columns
        self.values = values
        valueArguments = arguments
        self.filter = filter
    }

    /// The standard-form to-one relationship mappings of `mapping` (foreign key on both sides, no
    /// entity column) whose target mapping comes earlier in the pass and is itself set-based, or
    /// already ran keeping its source keys, so its associations exist and are one destination
    /// per source when this mapping's stage 1 runs.
    static func foldableToOnes(manager: MigrationManager, mapping: EntityMapping, index: Int)
        -> [(property: String, column: String, sourceColumn: String, target: Int, targetTable: String)] {
        guard let destinationName = mapping.destinationEntity, let sourceName = mapping.sourceEntity,
              let source = manager.sourceModel.entity(named: sourceName) else { return [] }
        let mappings = manager.mappingModel.entityMappings
        return mapping.relationshipMappings.compactMap { property in
            guard let form = SetBasedRelationships.standardForm(property.expression),
                  let target = mappings.firstIndex(where: { $0.name == form.mapping }), target < index,
                  manager.associations.isIdentity(target) || SetBasedInstances(manager: manager, mapping: mappings[target], index: target) != nil,
                  case let .foreignKey(_, column, nil)? = manager.destinationLayout.storage(entity: destinationName, relationship: property.name),
                  case let .foreignKey(_, sourceColumn, _)? = manager.sourceLayout.storage(entity: sourceName, relationship: form.relationship),
                  let targetTable = SetBasedRelationships.sourceTarget(manager, of: form.relationship, in: source)
            else { return nil }
            return (property.name, column, sourceColumn, target, targetTable)
        }
    }

    /// The identity of this mapping's associations when numbering its destination instances in
    /// creation order would give each exactly its source key: no filter, and the source keys of
    /// the entity run without a gap from the destination's next free key. Then the mapping writes
    /// no association rows and its inserts copy `Z_PK` — the same store, less work.
    func keyIdentity() throws -> AssociationTable.Identity? {
        guard filter == nil, let destinationName = mapping.destinationEntity,
              let destinationNumber = manager.destinationLayout.numbering.number(of: destinationName),
              let (count, low, high) = try sourceKeySpan() else { return nil }
        // A damaged store's keys can span more than Int64 holds (negative to Int64.max).
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span < .max, span + 1 == count, try low == manager.writer.nextKey(for: destinationName) else { return nil }
        return AssociationTable.Identity(sourceTable: sourceTableName, sourceEntity: sourceNumber, destinationEntity: destinationNumber, keys: low...high)
    }

    /// How many instances of the source entity there are, and their lowest and highest keys.
    /// When they are all the table holds (its row count is the entity's, known from the step's
    /// count), the b-tree answers each at once; otherwise one scan does.
    private func sourceKeySpan() throws -> (count: Int64, low: Int64, high: Int64)? {
        let db = manager.db
        if let entity = mapping.sourceEntity, let known = manager.sourceRowCounts?[entity],
           try Int.fetchOne(db, sql: "SELECT count(*) FROM \(sourceTable)") == known {
            guard known > 0, let low = try Int64.fetchOne(db, sql: "SELECT min(Z_PK) FROM \(sourceTable)"),
                  let high = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(sourceTable)") else { return nil }
            return (Int64(known), low, high)
        }
        guard let span = try Row.fetchOne(db, sql: "SELECT count(*), min(Z_PK), max(Z_PK) FROM \(sourceTable) WHERE Z_ENT = ?", arguments: [sourceNumber]),
              let low = span[1] as Int64?, let high = span[2] as Int64? else { return nil }
        return (span[0], low, high)
    }

    /// Moves the source rows with `Z_PK` after `after`, up to `limit` of them; returns how many
    /// source rows the chunk covered and the last `Z_PK`.
    func moveChunk(after: Int64, limit: Int) throws -> (rows: Int, last: Int64) {
        let db = manager.db
        let associations = manager.associations
        let identity = associations.identity(of: mappingIndex)
        let rows: Int, last: Int64
        if let identity {
            // Dense keys and no filter (see keyIdentity()): the chunk is the next keys of the range.
            let first = max(after, identity.keys.lowerBound - 1)
            last = min(first + Int64(limit), identity.keys.upperBound)
            guard last > first else { return (0, after) }
            rows = Int(last - first)
        } else {
            guard let range = try Row.fetchOne(db, sql: "SELECT count(*), max(Z_PK) FROM (SELECT Z_PK FROM \(sourceTable) WHERE Z_ENT = ? AND Z_PK > ? ORDER BY Z_PK LIMIT ?)",
                                               arguments: [sourceNumber, after, limit]),
                  let end = range[1] as Int64? else { return (0, after) }
            rows = range[0]
            last = end
        }
        let condition = "s.Z_ENT = ? AND s.Z_PK > ? AND s.Z_PK <= ?" + (filter.map { " AND \($0.sql)" } ?? "")
        let conditionArguments: [DatabaseValue] = [sourceNumber.databaseValue, after.databaseValue, last.databaseValue] + (filter?.arguments ?? [])
        // Every row of a kept-keys chunk matches; otherwise the filter decides.
        let matching = identity != nil ? rows
            : try Int.fetchOne(db, sql: "SELECT count(*) FROM \(sourceTable) s WHERE \(condition)", arguments: StatementArguments(conditionArguments)) ?? 0
        guard matching > 0, let destinationName = mapping.destinationEntity else { return (rows, last) }
        let keys = try manager.writer.reserveKeys(for: destinationName, count: matching)
        let names = (["Z_PK", "Z_ENT", "Z_OPT"] + columns).joined(separator: ", ")
        // A target that kept its source keys needs no look-up: the key is the source's own.
        var lookups: [String] = [], lookupArguments: [DatabaseValue] = []
        for fold in folds {
            let key = "s.\(ColumnNaming.quote(fold.sourceColumn))"
            if let identity = associations.identityLookup(fold.target, key: key, into: fold.targetTable) {
                lookups.append(identity.key)
            } else {
                lookups.append("(SELECT f.destination_pk FROM \(associations.relation(fold.target)) f WHERE f.mapping = ? AND f.source_pk = \(key))")
                lookupArguments.append(fold.target.databaseValue)
            }
        }
        if identity != nil {
            // The chunk's source keys are the keys just reserved.
            guard keys.first == last - Int64(matching) + 1 else {
                throw MigrationError(.verification, "\(mapping.name): destination keys \(keys.first)… do not follow source keys \(last - Int64(matching) + 1)…\(last)",
                                     fix: "the source is untouched; report this with the mapping model")
            }
            let selected = (["s.Z_PK", "?", "1"] + values + lookups).joined(separator: ", ")
            try db.execute(sql: "INSERT INTO \(destinationTable) (\(names)) SELECT \(selected) FROM \(sourceTable) s WHERE \(condition) ORDER BY s.Z_PK",
                           arguments: StatementArguments([keys.entityNumber.databaseValue] + valueArguments + lookupArguments + conditionArguments))
        } else {
            try db.execute(sql: """
                INSERT INTO work.associations (mapping, source_entity, source_pk, destination_entity, destination_pk)
                SELECT ?, s.Z_ENT, s.Z_PK, ?, ? + row_number() OVER (ORDER BY s.Z_PK) - 1 FROM \(sourceTable) s WHERE \(condition)
                """, arguments: StatementArguments([mappingIndex.databaseValue, keys.entityNumber.databaseValue, keys.first.databaseValue] + conditionArguments))
            let selected = (["a.destination_pk", "?", "1"] + values + lookups).joined(separator: ", ")
            try db.execute(sql: """
                INSERT INTO \(destinationTable) (\(names)) SELECT \(selected) FROM work.associations a JOIN \(sourceTable) s ON s.Z_PK = a.source_pk
                WHERE a.mapping = ? AND a.destination_pk BETWEEN ? AND ? ORDER BY a.destination_pk
                """, arguments: StatementArguments([keys.entityNumber.databaseValue] + valueArguments + lookupArguments
                    + [mappingIndex.databaseValue, keys.first.databaseValue, (keys.first + Int64(matching) - 1).databaseValue]))
        }
        // A custom manager's association hook still sees every pair, after the set-based insert.
        if let hook = manager.didAssociate, manager.didAssociateEntities.map({ $0.contains(destinationName) }) ?? true {
            let pairs = try Row.fetchAll(db, sql: """
                SELECT source_entity, source_pk, destination_entity, destination_pk FROM \(associations.relation(mappingIndex))
                WHERE mapping = ? AND destination_pk BETWEEN ? AND ? ORDER BY destination_pk
                """, arguments: [mappingIndex, keys.first, keys.first + Int64(matching) - 1])
            for pair in pairs {
                try hook(manager, ObjectID(entityNumber: pair[0], primaryKey: pair[1]), ObjectID(entityNumber: pair[2], primaryKey: pair[3]), mapping)
            }
        }
        return (rows, last)
    }
}
