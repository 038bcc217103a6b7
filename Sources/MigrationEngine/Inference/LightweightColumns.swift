import ObjectModel
import SQLiteStore

/// How each column of one destination table gets its values from the source table, for an
/// inferred (lightweight) step: kept or renamed, filled with a default, or computed with SQL
/// when a relationship's storage changed.
struct LightweightColumns {
    /// One destination column's value, per source row.
    enum Value: Equatable {
        /// The source column as it is (possibly renamed), NULL for rows of entities it no longer
        /// applies to, and `default` where it is NULL and the attribute became required.
        case source(column: String, fill: SQLValue?)
        /// A constant (a new attribute's default) or NULL.
        case constant(SQLValue)
        /// An SQL expression over the source row `s` (relationship storage changed), and the
        /// tables it searches by a column for each row.
        case computed(String, lookups: [Lookup] = [])
    }

    /// A table searched by `column` for every row a rebuild copies (a link kept on the other
    /// side, or in a join table): the step gives the column an index first, since Core Data's may
    /// be gone with a table rebuilt in the same step, and a search without one is a scan per row:
    /// time that grows with the square of the rows.
    struct Lookup: Hashable {
        var table: String
        var column: String
    }

    struct Column {
        var name: String
        var value: Value
        /// Destination entity numbers whose rows this column applies to.
        var applies: [Int]
    }

    let inference: InferredMapping
    let source: StoreLayout
    let destination: StoreLayout
    /// Source entity number → destination entity number, for the entities that survive.
    let entityNumbers: [Int: Int]
    /// Destination entity → itself and every entity below it: the entities a column declared on
    /// it applies to. Worked out once per step: finding them per column walked the whole model
    /// for every column, most of a step's time in a 60-entity model (WooCommerce).
    private let applicable: [String: [String]]
    /// Each destination table's columns, worked out once: a step asks for a table's columns for
    /// each of its statements and for every index the store has on it.
    private var byTable: [String: [Column]] = [:]

    init(inference: InferredMapping, source: StoreLayout, destination: StoreLayout) {
        (self.inference, self.source, self.destination) = (inference, source, destination)
        var numbers: [Int: Int] = [:]
        for (to, from) in inference.entitySources {
            if let a = source.numbering.number(of: from), let b = destination.numbering.number(of: to) {
                numbers[a] = b
            }
        }
        entityNumbers = numbers
        let entities = destination.model.entities
        let children = Dictionary(
            grouping: entities.filter { $0.parentName != nil }.map { ($0.parentName!, $0.name) }, by: \.0
        ).mapValues { $0.map(\.1) }
        func below(_ name: String) -> [String] { (children[name] ?? []).flatMap { [$0] + below($0) } }
        applicable = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, [$0.name] + below($0.name)) })
        for table in destination.tables { byTable[table.name] = plan(of: table) }
    }

    /// `CASE <expr> WHEN old THEN new … END`: an old `Z_ENT` value in the new numbering.
    func remap(_ expression: String) -> String {
        let pairs = entityNumbers.sorted { $0.key < $1.key }
        guard pairs.contains(where: { $0.key != $0.value }) else { return expression }
        return "CASE \(expression) " + pairs.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ") + " END"
    }

    /// The destination table's columns, each with where its values come from.
    func columns(of table: StoreLayout.Table) -> [Column] {
        byTable[table.name] ?? plan(of: table)
    }

    private func plan(of table: StoreLayout.Table) -> [Column] {
        table.columns.map { column in
            let applies = applicableEntities(column.entity)
            let numbers = applies.compactMap { destination.numbering.number(of: $0) }
            return Column(name: column.name, value: value(of: column, applies: applies), applies: numbers)
        }
    }

    private func applicableEntities(_ declarer: String) -> [String] {
        applicable[declarer] ?? []
    }

    private func value(of column: StoreLayout.Column, applies: [String]) -> Value {
        let model = destination.model
        let mapped = applies.filter { inference.entitySources[$0] != nil }
        switch column.role {
        case .attribute:
            guard
                let attribute = model.entity(named: column.entity).flatMap({
                    model.allAttributes(of: $0).first { $0.name == column.property }
                })
            else {
                return .constant(.null)
            }
            return attributeValue(column, attribute: attribute, mapped: mapped)
        case .foreignKey:
            return linkColumn(column, mapped: mapped, entityType: false)
        case .foreignEntity:
            return linkColumn(column, mapped: mapped, entityType: true)
        case .orderKey:
            return orderColumn(column, mapped: mapped)
        }
    }

    /// An attribute's column: the source column it pairs with, kept (or filled with the default
    /// where it became required); the default for rows whose entity had no such attribute; and
    /// per source entity when the attribute gathers several source columns (moved up a hierarchy
    /// from subentities that each declared it).
    private func attributeValue(_ column: StoreLayout.Column, attribute: AttributeDescription, mapped: [String])
        -> Value
    {
        let q = SQLIdentifier.quote
        let defaultValue = ObjectWriter.defaultValue(of: attribute).flatMap { $0.sqlValue(for: attribute) }
        let becameRequired = !attribute.isOptional && defaultValue != nil
        // Each source entity whose rows land here, with the column its value comes from (nil: none).
        let origins = mapped.compactMap { entity -> (number: Int, column: StoreLayout.Column?)? in
            guard let origin = inference.entitySources[entity], let number = source.numbering.number(of: origin) else {
                return nil
            }
            return (
                number,
                inference.propertySources[entity]?[column.property].flatMap {
                    source.column(entity: origin, property: $0)
                }
            )
        }
        let columns = Set(origins.compactMap(\.column))
        guard let only = columns.first else { return .constant(defaultValue ?? .null) }
        /// Whether values from `sourceColumn` gain Core Data's in-row tag (byte 1, as `StoreValue`
        /// writes it): external storage is turned on.
        func tags(_ sourceColumn: StoreLayout.Column) -> Bool {
            let was = source.model.entity(named: sourceColumn.entity).flatMap { entity in
                entity.attributes.first { $0.name == sourceColumn.property }
            }
            return attribute.allowsExternalBinaryDataStorage && was?.allowsExternalBinaryDataStorage == false
        }
        /// One source column's value as this column's, the default where it is empty.
        func expression(of sourceColumn: StoreLayout.Column) -> String {
            let value = "s.\(q(sourceColumn.name))"
            if tags(sourceColumn) {
                return "CASE WHEN \(value) IS NULL THEN NULL ELSE CAST(X'01' || \(value) AS BLOB) END"
            }
            return becameRequired ? "COALESCE(\(value), \((defaultValue ?? .null).literal))" : value
        }
        guard columns.count == 1, origins.allSatisfy({ $0.column != nil }) else {
            let cases = origins.map {
                "WHEN \($0.number) THEN \($0.column.map(expression) ?? (defaultValue ?? .null).literal)"
            }
            return .computed("CASE s.Z_ENT \(cases.joined(separator: " ")) END")
        }
        // Values pass as they are, as Core Data's in-place migration passes them: a new column
        // type gets them through a rebuilt table, where SQLite's affinity converts them
        // (Integer → Double stores 3 as 3.0).
        if tags(only) || only.sqlType != column.sqlType { return .computed(expression(of: only)) }
        return .source(column: only.name, fill: becameRequired ? defaultValue : nil)
    }

    /// A to-one's key (or its destination's `Z_ENT`): kept when the source stored it the same
    /// way, else looked up from wherever the source kept the link.
    private func linkColumn(_ column: StoreLayout.Column, mapped: [String], entityType: Bool) -> Value {
        guard let entity = mapped.first, let origin = inference.entitySources[entity],
            let relationship = destination.model.entity(named: entity).flatMap({
                destination.model.relationship(named: column.property, in: $0)
            })
        else {
            return .constant(.null)
        }
        let key: String, lookup: Lookup?
        if let from = inference.propertySources[entity]?[column.property],
            let storage = source.storage(entity: origin, relationship: from)
        {
            switch storage {
            case let .foreignKey(_, sourceColumn, entityColumn):
                let q = SQLIdentifier.quote
                // A key to an object of an entity the step removes goes with it: Core Data's
                // inferred relationship mapping finds no destination instance for it (Bridge SDK's
                // `ScheduledActivity.resourceList` to a `DateRangeResourceList`, gone at V1).
                let removed = removedTargets(of: from, in: origin)
                let kept = { (value: String) in
                    guard let entityColumn, !removed.isEmpty else { return value }
                    let numbers = removed.map(String.init).joined(separator: ", ")
                    return "CASE WHEN s.\(q(entityColumn)) IN (\(numbers)) THEN NULL ELSE \(value) END"
                }
                if entityType {
                    if let entityColumn { return .computed(kept(remap("s.\(q(entityColumn))"))) }
                    return .computed(targetEntity(of: "s.\(q(sourceColumn))", relationship: relationship))
                }
                if entityColumn != nil, !removed.isEmpty { return .computed(kept("s.\(q(sourceColumn))")) }
                return .source(column: sourceColumn, fill: nil)
            case let .inverseForeignKey(table, sourceColumn, _, _):
                (key, lookup) = first("Z_PK", of: table, by: sourceColumn)
            case let .joinTable(join, sourceColumn, destinationColumn, _):
                (key, lookup) = first(destinationColumn, of: join.name, by: sourceColumn)
            }
        } else if let reversed = reversedLink(for: relationship, entity: entity) {
            (key, lookup) = reversed
        } else {
            return .constant(.null)
        }
        return .computed(
            entityType ? targetEntity(of: key, relationship: relationship) : key, lookups: lookup.map { [$0] } ?? [])
    }

    /// The entity numbers the source's to-one `name` of `entity` may point to whose entities the
    /// step removes.
    private func removedTargets(of name: String, in entity: String) -> [Int] {
        guard
            let relationship = source.model.entity(named: entity).flatMap({
                source.model.relationship(named: name, in: $0)
            }),
            let target = source.numbering.number(of: relationship.destinationEntityName)
        else { return [] }
        let carried = Set(inference.entitySources.values)
        return source.numbering.numbers(inHierarchyOf: target).filter { number in
            source.numbering.name(of: number).map { !carried.contains($0) } ?? false
        }
    }

    /// `select` of the first row of `table` whose `column` is the copied row's key, in rowid
    /// order (a join table's insertion order, an entity table's key order), and the lookup it makes.
    private func first(_ select: String, of table: String, by column: String) -> (String, Lookup?) {
        let q = SQLIdentifier.quote
        return (
            "(SELECT l.\(q(select)) FROM \(q(table)) l WHERE l.\(q(column)) = s.Z_PK ORDER BY l.rowid LIMIT 1)",
            Lookup(table: table, column: column)
        )
    }

    /// The link seen from the other side, when only the inverse existed in the source.
    private func reversedLink(for relationship: RelationshipDescription, entity: String) -> (String, Lookup?)? {
        guard let inverseName = relationship.inverseName,
            let target = destination.model.entity(named: relationship.destinationEntityName),
            let targetOrigin = inference.entitySources[target.name],
            let inverseFrom = inference.propertySources[target.name]?[inverseName],
            let storage = source.storage(entity: targetOrigin, relationship: inverseFrom)
        else { return nil }
        switch storage {
        case let .foreignKey(table, column, _):
            return first("Z_PK", of: table, by: column)
        case let .joinTable(join, sourceColumn, destinationColumn, _):
            return first(sourceColumn, of: join.name, by: destinationColumn)
        case let .inverseForeignKey(table, column, _, _):
            // The inverse was a to-many kept in these very rows, under the old to-one's name
            // (Wire 1.24's `Message.conversation` ↔ `Conversation.messages` became
            // `visibleInConversation` ↔ `allMessages`, renamed from `messages`): Core Data keeps
            // the links through the paired to-many, so the key is the old column's.
            if source.table(for: inference.entitySources[entity] ?? entity)?.name == table {
                return ("s.\(SQLIdentifier.quote(column))", nil)
            }
            return (
                "(SELECT o.\(SQLIdentifier.quote(column)) FROM \(SQLIdentifier.quote(table)) o WHERE o.Z_PK = s.Z_PK)",
                nil
            )
        }
    }

    /// The new `Z_ENT` of the object a key points to.
    private func targetEntity(of key: String, relationship: RelationshipDescription) -> String {
        guard let origin = inference.entitySources[relationship.destinationEntityName],
            let table = source.table(for: origin)
        else { return "NULL" }
        return "(SELECT \(remap("t.Z_ENT")) FROM \(SQLIdentifier.quote(table.name)) t WHERE t.Z_PK = \(key))"
    }

    /// An ordered to-many's positions, kept when the source had them in this table, else numbered
    /// in key order (steps of 1024, as Core Data does).
    private func orderColumn(_ column: StoreLayout.Column, mapped: [String]) -> Value {
        guard let entity = mapped.first, let origin = inference.entitySources[entity],
            let from = inference.propertySources[entity]?[column.property],
            case let .foreignKey(table, keyColumn, _)? = source.storage(entity: origin, relationship: from)
        else { return .constant(.null) }
        if let existing = source.tables.first(where: { $0.name == table })?.columns.first(where: {
            $0.role == .orderKey && $0.property == from
        }) {
            return .source(column: existing.name, fill: nil)
        }
        // One window over the rows the copy reads, sorted once: a count of the earlier members per
        // row was quadratic once the step had dropped the key's index (WooCommerce's Model 65 → 66
        // numbers its order items so; `WooCommerceAppTests` migrates that step). A row in no
        // collection keeps 0.
        let key = "s.\(SQLIdentifier.quote(keyColumn))"
        return .computed(
            "CASE WHEN \(key) IS NULL THEN 0 ELSE row_number() OVER (PARTITION BY \(key) ORDER BY s.Z_PK) * 1024 END")
    }
}
