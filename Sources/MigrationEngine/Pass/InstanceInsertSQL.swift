import ObjectModel
import SQLiteStore

/// Stage 1's SQL for one entity mapping, compiled from its value expressions: when the mapping
/// has no custom policy and every expression (and the filter) compiles, each chunk of source
/// rows is one `INSERT … SELECT` (the mapping keeps its source keys) or two (associations
/// numbered with `row_number()`, then the insert through them). ``SetBasedInstances`` runs
/// these per chunk; `chrysalis plan --sql` prints them. Otherwise ``compile(manager:mapping:index:)``
/// says why the mapping runs row by row.
///
/// The statements' parameters are the chunk's bounds (`:from`, `:last`: source keys, both included) and, when
/// the keys are renumbered, the first and last destination key reserved (`:first_key`, `:last_key`).
struct InstanceInsertSQL {
    let mapping: EntityMapping
    let mappingIndex: Int
    /// `src."ZTABLE"`, and its bare name.
    let sourceTable: String, sourceTableName: String
    /// `main."ZTABLE"`.
    let destinationTable: String
    let sourceNumber: Int, destinationNumber: Int
    /// The destination columns set (quoted), their values' SQL and arguments.
    private let columns: [String]
    private let values: [String]
    private let valueArguments: [SQLValue]
    let filter: ExpressionSQL.Fragment?
    /// To-one relationship mappings written by the insert itself (see ``foldableToOnes(manager:mapping:index:)``),
    /// which stage 2 then skips.
    let foldedRelationships: Set<String>
    /// Their source foreign-key columns and target mappings, looked up per chunk (the target's
    /// associations may be kept as its source keys, known only once it ran).
    private let folds: [(sourceColumn: String, target: Int, targetTable: String)]

    /// What compiling a mapping gives.
    enum Compiled {
        case setBased(InstanceInsertSQL)
        /// Row by row in Swift, and why.
        case rowByRow(String)
        /// No source entity: stage 1 reads no rows.
        case noSource

        /// Whether the mapping moves set-based.
        var isSetBased: Bool { if case .setBased = self { true } else { false } }
        /// The to-ones the set-based insert writes itself (none otherwise).
        var foldedRelationships: Set<String> {
            if case .setBased(let sql) = self { sql.foldedRelationships } else { [] }
        }
    }

    /// Compiles `mapping` (number `index` of the manager's pass), or says why it runs row by row.
    static func compile(manager: MigrationManager, mapping: EntityMapping, index: Int) -> Compiled {
        if let policy = mapping.policyName { return .rowByRow("custom policy \(policy)") }
        guard let sourceName = mapping.sourceEntity else { return .noSource }
        guard let source = manager.sourceModel.entity(named: sourceName),
            let sourceTable = manager.stores.sourceLayout.table(for: sourceName),
            let sourceNumber = manager.stores.sourceLayout.numbering.number(of: sourceName)
        else {
            return .rowByRow("the source entity \(sourceName) is not stored")
        }
        guard let destinationName = mapping.destinationEntity,
            let destination = manager.destinationModel.entity(named: destinationName),
            let destinationTable = manager.stores.destinationLayout.table(for: destinationName),
            let destinationNumber = manager.stores.destinationLayout.numbering.number(of: destinationName)
        else {
            return .rowByRow("no destination entity: the source rows are visited, nothing is inserted")
        }
        guard !destination.isAbstract else { return .rowByRow("the destination entity \(destinationName) is abstract") }
        let compiler = ExpressionSQL(layout: manager.stores.sourceLayout, entity: source, alias: "s")
        var filter: ExpressionSQL.Fragment?
        if let predicate = mapping.filter {
            guard let compiled = compiler.compile(predicate) else {
                return .rowByRow("its filter does not compile to SQL: \(predicate)")
            }
            guard ExpressionSQL.fitsParser(compiled) else {
                return .rowByRow("its filter nests deeper than SQLite's parser takes: \(predicate)")
            }
            filter = compiled
        }
        let assignments: (columns: [String], values: [String], arguments: [SQLValue])
        switch attributeValues(manager: manager, mapping: mapping, destination: destinationName, compiler: compiler) {
        case .success(let compiled): assignments = compiled
        case .failure(let reason): return .rowByRow(reason.text)
        }
        let folds = foldableToOnes(manager: manager, mapping: mapping, index: index)
        return .setBased(
            InstanceInsertSQL(
                mapping: mapping, mappingIndex: index, sourceTable: "src.\(SQLIdentifier.quote(sourceTable.name))",
                sourceTableName: sourceTable.name,
                destinationTable: "main.\(SQLIdentifier.quote(destinationTable.name))", sourceNumber: sourceNumber,
                destinationNumber: destinationNumber,
                columns: assignments.columns + folds.map { SQLIdentifier.quote($0.column) }, values: assignments.values,
                valueArguments: assignments.arguments, filter: filter, foldedRelationships: Set(folds.map(\.property)),
                folds: folds.map { (sourceColumn: $0.sourceColumn, target: $0.target, targetTable: $0.targetTable) }))
    }

    /// Why an attribute keeps a mapping row by row.
    struct Reason: Error { let text: String }

    /// Every stored attribute of the destination: its value expression compiled (a value set on
    /// association wins over the mapping's own), else the model's default, else left out.
    private static func attributeValues(
        manager: MigrationManager, mapping: EntityMapping, destination: String, compiler: ExpressionSQL
    )
        -> Result<(columns: [String], values: [String], arguments: [SQLValue]), Reason>
    {
        let defaults = manager.stores.writer.defaultValues(of: destination)
        var columns: [String] = [], values: [String] = [], arguments: [SQLValue] = []
        let onAssociation = Dictionary(
            (manager.associationValues[destination] ?? []).map { ($0.attribute, $0.expression) },
            uniquingKeysWith: { _, last in last })
        for (attribute, column) in manager.stores.destinationLayout.attributeColumns(of: destination) {
            let expression =
                onAssociation[attribute.name]
                ?? mapping.attributeMappings.first { $0.name == attribute.name }?.expression
            if let expression {
                let origin =
                    onAssociation[attribute.name] != nil ? "the value set on association" : "the value expression"
                guard let compiled = compiler.compile(expression),
                    let fragment = compiler.stored(compiled, in: attribute, expression: expression)
                else {
                    return .failure(
                        Reason(text: "\(origin) of \(attribute.name) does not compile to SQL: \(expression)"))
                }
                guard ExpressionSQL.fitsParser(fragment) else {
                    return .failure(
                        Reason(
                            text:
                                "\(origin) of \(attribute.name) nests deeper than SQLite's parser takes: \(expression)"
                        ))
                }
                values.append(fragment.sql)
                arguments += fragment.arguments
            } else if let value = defaults[attribute.name]?.sqlValue(for: attribute) {
                values.append("?")
                arguments.append(value)
            } else {
                continue
            }
            columns.append(SQLIdentifier.quote(column.name))
        }
        return .success((columns, values, arguments))
    }

    /// The standard-form to-one relationship mappings of `mapping` (foreign key on both sides, no
    /// entity column) whose target mapping comes earlier in the pass and is itself set-based, or
    /// already ran keeping its source keys, so its associations exist and are one destination
    /// per source when this mapping's stage 1 runs.
    static func foldableToOnes(manager: MigrationManager, mapping: EntityMapping, index: Int)
        -> [(property: String, column: String, sourceColumn: String, target: Int, targetTable: String)]
    {
        guard let destinationName = mapping.destinationEntity, let sourceName = mapping.sourceEntity,
            let source = manager.sourceModel.entity(named: sourceName)
        else { return [] }
        let mappings = manager.mappingModel.entityMappings
        return mapping.relationshipMappings.compactMap { property in
            guard let form = SetBasedRelationships.standardForm(property.expression),
                let target = mappings.firstIndex(where: { $0.name == form.mapping }), target < index,
                manager.stores.associations.isIdentity(target)
                    || compile(manager: manager, mapping: mappings[target], index: target).isSetBased,
                case let .foreignKey(_, column, nil)? = manager.stores.destinationLayout.storage(
                    entity: destinationName, relationship: property.name),
                case let .foreignKey(_, sourceColumn, _)? = manager.stores.sourceLayout.storage(
                    entity: sourceName, relationship: form.relationship),
                let targetTable = SetBasedRelationships.sourceTarget(manager, of: form.relationship, in: source)
            else { return nil }
            return (property.name, column, sourceColumn, target, targetTable)
        }
    }

    // MARK: The statements

    /// The chunk's source rows: the mapping's entity, keys from `:from` to `:last`, through the filter.
    private var condition: (sql: String, arguments: [SQLStatement.Argument]) {
        (
            "s.Z_ENT = ? AND s.Z_PK >= ? AND s.Z_PK <= ?" + (filter.map { " AND \($0.sql)" } ?? ""),
            [.value(SQLValue(sourceNumber)), .parameter("from"), .parameter("last")]
                + (filter?.arguments.map(SQLStatement.Argument.value) ?? [])
        )
    }

    /// The columns every insert sets: the keys, then the attributes and folded to-ones.
    private var names: String { (["Z_PK", "Z_ENT", "Z_OPT"] + columns).joined(separator: ", ") }

    /// The folded to-ones' values: a target that kept its source keys needs no look-up (the key
    /// is the source's own); otherwise the target's association is looked up.
    private func lookups(_ associations: AssociationTable) -> (sql: [String], arguments: [SQLValue]) {
        var sql: [String] = [], arguments: [SQLValue] = []
        for fold in folds {
            let key = "s.\(SQLIdentifier.quote(fold.sourceColumn))"
            if let identity = associations.identityLookup(fold.target, key: key, into: fold.targetTable) {
                sql.append(identity.key)
            } else {
                sql.append(
                    """
                    (SELECT f.destination_pk FROM \(associations.relation(fold.target)) f WHERE f.mapping = ? AND \
                    f.source_pk = \(key))
                    """
                )
                arguments.append(SQLValue(fold.target))
            }
        }
        return (sql, arguments)
    }

    /// The chunk's insert when the mapping keeps its source keys (``SetBasedInstances/keyIdentity()``):
    /// every source row of the chunk becomes the destination row with the same `Z_PK`.
    func keptKeysInsert(_ associations: AssociationTable) -> SQLStatement {
        let (lookupSQL, lookupArguments) = lookups(associations)
        let selected = (["s.Z_PK", "?", "1"] + values + lookupSQL).joined(separator: ", ")
        return SQLStatement(
            """
            INSERT INTO \(destinationTable) (\(names)) SELECT \(selected) FROM \(sourceTable) s WHERE \
            \(condition.sql) ORDER BY s.Z_PK
            """,
            arguments: ([SQLValue(destinationNumber)] + valueArguments + lookupArguments).map(
                SQLStatement.Argument.value) + condition.arguments)
    }

    /// The chunk's statements when the keys are renumbered: the pairs numbered from `:first_key`
    /// into `work.associations`, then the insert through them (keys `:first_key` to `:last_key`).
    func renumberedInserts(_ associations: AssociationTable) -> [SQLStatement] {
        let pairs = SQLStatement(
            """
            INSERT INTO work.associations (mapping, source_entity, source_pk, destination_entity, destination_pk)
            SELECT ?, s.Z_ENT, s.Z_PK, ?, ? + row_number() OVER (ORDER BY s.Z_PK) - 1 FROM \(sourceTable) s WHERE \(condition.sql)
            """,
            arguments: [.value(SQLValue(mappingIndex)), .value(SQLValue(destinationNumber)), .parameter("first_key")]
                + condition.arguments)
        let (lookupSQL, lookupArguments) = lookups(associations)
        let selected = (["a.destination_pk", "?", "1"] + values + lookupSQL).joined(separator: ", ")
        let insert = SQLStatement(
            """
            INSERT INTO \(destinationTable) (\(names)) SELECT \(selected) FROM work.associations a JOIN \(sourceTable) s ON s.Z_PK = a.source_pk
            WHERE a.mapping = ? AND a.destination_pk BETWEEN ? AND ? ORDER BY a.destination_pk
            """,
            arguments: ([SQLValue(destinationNumber)] + valueArguments + lookupArguments).map(
                SQLStatement.Argument.value)
                + [.value(SQLValue(mappingIndex)), .parameter("first_key"), .parameter("last_key")])
        return [pairs, insert]
    }

    /// How many source rows of the chunk pass the filter (renumbered keys only).
    var matchingRows: SQLStatement {
        SQLStatement("SELECT count(*) FROM \(sourceTable) s WHERE \(condition.sql)", arguments: condition.arguments)
    }
}
