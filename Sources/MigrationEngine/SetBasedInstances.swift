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
    private let destinationTable: String
    private let sourceNumber: Int
    private let columns: [String]
    private let values: [String]
    private let valueArguments: [DatabaseValue]
    private let filter: ExpressionSQL.Fragment?
    /// To-one relationship mappings written by the stage-1 insert itself (see ``foldableToOnes``),
    /// which stage 2 then skips.
    let foldedRelationships: Set<String>

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
        for (attribute, column) in manager.destinationLayout.attributeColumns(of: destinationName) {
            let expression = mapping.attributeMappings.first { $0.name == attribute.name }?.expression
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
        var folded: Set<String> = []
        for fold in Self.foldableToOnes(manager: manager, mapping: mapping, index: index) {
            columns.append(ColumnNaming.quote(fold.column))
            values.append("(SELECT f.destination_pk FROM work.associations f WHERE f.mapping = ? AND f.source_pk = s.\(ColumnNaming.quote(fold.sourceColumn)))")
            arguments.append(fold.target.databaseValue)
            folded.insert(fold.property)
        }
        foldedRelationships = folded
        self.manager = manager
        self.mapping = mapping
        mappingIndex = index
        self.sourceTable = "src.\(ColumnNaming.quote(sourceTable.name))"
        self.destinationTable = "main.\(ColumnNaming.quote(destinationTable.name))"
        self.sourceNumber = sourceNumber
        self.columns = columns
        self.values = values
        valueArguments = arguments
        self.filter = filter
    }

    /// The standard-form to-one relationship mappings of `mapping` (foreign key on both sides, no
    /// entity column) whose target mapping comes earlier in the pass and is itself set-based, so
    /// its associations exist and are one destination per source when this mapping's stage 1 runs.
    static func foldableToOnes(manager: MigrationManager, mapping: EntityMapping, index: Int)
        -> [(property: String, column: String, sourceColumn: String, target: Int)] {
        guard let destinationName = mapping.destinationEntity, let sourceName = mapping.sourceEntity else { return [] }
        let mappings = manager.mappingModel.entityMappings
        return mapping.relationshipMappings.compactMap { property in
            guard let form = SetBasedRelationships.standardForm(property.expression),
                  let target = mappings.firstIndex(where: { $0.name == form.mapping }), target < index,
                  SetBasedInstances(manager: manager, mapping: mappings[target], index: target) != nil,
                  case let .foreignKey(_, column, nil)? = manager.destinationLayout.storage(entity: destinationName, relationship: property.name),
                  case let .foreignKey(_, sourceColumn, _)? = manager.sourceLayout.storage(entity: sourceName, relationship: form.relationship)
            else { return nil }
            return (property.name, column, sourceColumn, target)
        }
    }

    /// Moves the source rows with `Z_PK` after `after`, up to `limit` of them; returns how many
    /// source rows the chunk covered and the last `Z_PK`.
    func moveChunk(after: Int64, limit: Int) throws -> (rows: Int, last: Int64) {
        let db = manager.db
        guard let range = try Row.fetchOne(db, sql: "SELECT count(*), max(Z_PK) FROM (SELECT Z_PK FROM \(sourceTable) WHERE Z_ENT = ? AND Z_PK > ? ORDER BY Z_PK LIMIT ?)",
                                           arguments: [sourceNumber, after, limit]),
              let last = range[1] as Int64? else { return (0, after) }
        let rows: Int = range[0]
        let condition = "s.Z_ENT = ? AND s.Z_PK > ? AND s.Z_PK <= ?" + (filter.map { " AND \($0.sql)" } ?? "")
        let conditionArguments: [DatabaseValue] = [sourceNumber.databaseValue, after.databaseValue, last.databaseValue] + (filter?.arguments ?? [])
        let matching = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(sourceTable) s WHERE \(condition)", arguments: StatementArguments(conditionArguments)) ?? 0
        guard matching > 0, let destinationName = mapping.destinationEntity else { return (rows, last) }
        let keys = try manager.writer.reserveKeys(for: destinationName, count: matching)
        try db.execute(sql: """
            INSERT INTO work.associations (mapping, source_entity, source_pk, destination_entity, destination_pk)
            SELECT ?, s.Z_ENT, s.Z_PK, ?, ? + row_number() OVER (ORDER BY s.Z_PK) - 1 FROM \(sourceTable) s WHERE \(condition)
            """, arguments: StatementArguments([mappingIndex.databaseValue, keys.entityNumber.databaseValue, keys.first.databaseValue] + conditionArguments))
        let names = (["Z_PK", "Z_ENT", "Z_OPT"] + columns).joined(separator: ", ")
        let selected = (["a.destination_pk", "?", "1"] + values).joined(separator: ", ")
        try db.execute(sql: """
            INSERT INTO \(destinationTable) (\(names)) SELECT \(selected) FROM work.associations a JOIN \(sourceTable) s ON s.Z_PK = a.source_pk
            WHERE a.mapping = ? AND a.destination_pk BETWEEN ? AND ? ORDER BY a.destination_pk
            """, arguments: StatementArguments([keys.entityNumber.databaseValue] + valueArguments
                + [mappingIndex.databaseValue, keys.first.databaseValue, (keys.first + Int64(matching) - 1).databaseValue]))
        // A custom manager's association hook still sees every pair, after the set-based insert.
        if let hook = manager.didAssociate, manager.didAssociateEntities.map({ $0.contains(destinationName) }) ?? true {
            let pairs = try Row.fetchAll(db, sql: """
                SELECT source_entity, source_pk, destination_entity, destination_pk FROM work.associations
                WHERE mapping = ? AND destination_pk BETWEEN ? AND ? ORDER BY destination_pk
                """, arguments: [mappingIndex, keys.first, keys.first + Int64(matching) - 1])
            for pair in pairs {
                try hook(manager, ObjectID(entityNumber: pair[0], primaryKey: pair[1]), ObjectID(entityNumber: pair[2], primaryKey: pair[3]), mapping)
            }
        }
        return (rows, last)
    }
}
