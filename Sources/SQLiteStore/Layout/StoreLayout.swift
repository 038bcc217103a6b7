import ObjectModel

/// Where every entity, attribute and relationship of a model lives in a Core Data SQLite store:
/// tables, columns, join tables and entity numbers, computed from the model alone.
///
/// Core Data uses single-table inheritance (one table per root entity, `Z_ENT` tells the concrete
/// entity), `Z`-prefixed upper-case column names, and a foreign-key column per to-one.
package struct StoreLayout: Sendable {
    /// What a column holds.
    package enum ColumnRole: Hashable, Sendable {
        /// An attribute's value.
        case attribute(AttributeType)
        /// A to-one relationship's destination `Z_PK`.
        case foreignKey
        /// The destination's `Z_ENT`, when the destination entity has subentities (`Z<n>_<REL>`).
        case foreignEntity
        /// The position in an ordered to-many (`Z_FOK_<INVERSE>`).
        case orderKey
    }

    /// One column of an entity table (the fixed `Z_PK`, `Z_ENT`, `Z_OPT` are implied).
    package struct Column: Hashable, Sendable {
        /// The SQL column name.
        package var name: String
        /// The declared SQL type.
        package var sqlType: String
        /// What it holds.
        package var role: ColumnRole
        /// The entity that declares the property.
        package var entity: String
        /// The property it stores.
        package var property: String
    }

    /// The table of one entity hierarchy.
    package struct Table: Hashable, Sendable {
        /// `Z<ROOT>`.
        package var name: String
        /// The root entity.
        package var rootEntity: String
        /// Columns in Core Data's order, after `Z_PK`, `Z_ENT`, `Z_OPT`.
        package var columns: [Column]

        /// Takes the names a real table has for predicted columns it lacks: a clash Core Data
        /// resolved with other digits (`ZTEXT1` for a predicted `ZTEXT2`, or the reverse).
        mutating func reconcileColumns(with existing: [String]) {
            var unclaimed = Set(existing).subtracting(columns.map(\.name))
            for index in columns.indices where !existing.contains(columns[index].name) {
                let stem = String(columns[index].name.reversed().drop(while: \.isASCIIDigit).reversed())
                guard let found = unclaimed.sorted().first(where: { ColumnNaming.isName($0, withSuffixOf: stem) })
                else { continue }
                columns[index].name = found
                unclaimed.remove(found)
            }
        }
    }

    /// How a relationship's links are stored.
    package enum RelationshipStorage: Hashable, Sendable {
        /// A to-one: the destination key in `column` of the source's `table`.
        case foreignKey(table: String, column: String, entityColumn: String?)
        /// A to-many whose inverse is a to-one: the source key sits in the destination's table.
        case inverseForeignKey(table: String, column: String, entityColumn: String?, orderColumn: String?)
        /// A many-to-many (or a to-many without inverse): rows of a join table.
        case joinTable(JoinTable, sourceColumn: String, destinationColumn: String, orderColumn: String?)
    }

    /// The entity numbers of `Z_ENT` and `Z_PRIMARYKEY`.
    package let numbering: EntityNumbering
    /// One table per root entity, by entity number of the root.
    package let tables: [Table]
    /// The join tables of many-to-many relationships.
    package let joinTables: [JoinTable]
    /// The model laid out.
    package let model: ManagedObjectModel
    private let columnsByProperty: [String: Column]
    /// Per entity, every stored attribute with its column (inherited ones included), computed once:
    /// inserts and reads look them up per row.
    private let attributeColumnsByEntity: [String: [AttributeColumn]]
    /// Per entity, property name → column (inherited ones included).
    private let resolvedColumns: [String: [String: Column]]
    /// Per entity, relationship name → its storage (inherited ones included), worked out once:
    /// writers and readers ask per object, and working it out walks the model.
    private var storages: [String: [String: RelationshipStorage]] = [:]
    /// Per entity, its table's position in ``tables``, and every property (inherited ones
    /// included) with what it is: asked per row and per key path step, so worked out once.
    private var tableIndexByEntity: [String: Int] = [:]
    private var propertiesByEntity: [String: [String: Property]] = [:]

    /// What a property of an entity is, as a key path step reads it.
    package enum Property: Sendable {
        /// An attribute (transient ones included: they read as nil from a store).
        case attribute(AttributeDescription)
        /// A relationship, with the entity numbers its destinations may have (its destination
        /// entity's and its subentities').
        case relationship(RelationshipDescription, destinationNumbers: Set<Int>)
    }

    /// A stored attribute and its column.
    package struct AttributeColumn: Sendable {
        /// The attribute.
        package var attribute: AttributeDescription
        /// Its column.
        package var column: Column
    }

    /// Lays out `model` as Core Data would for a new store, or as an existing store holds it:
    /// with `numbering` from its `Z_PRIMARYKEY` and the names its tables and columns have
    /// (`storeTables`, table → columns), which win over predicted ones wherever they differ.
    ///
    /// A layout is a pure function of these three, and a run asks for the same ones many times
    /// (making a store, filling it, planning, each step, checking: a dozen times for one
    /// `check-history` version), so the last ones laid out are kept (``LaidOut``).
    package init(model: ManagedObjectModel, numbering: EntityNumbering? = nil, storeTables: [String: [String]]? = nil) {
        let key = LaidOut.Key(model: model, numbering: numbering, storeTables: storeTables)
        if let laidOut = LaidOut.shared.layout(for: key) {
            self = laidOut
        } else {
            self.init(layingOut: model, numbering: numbering, storeTables: storeTables)
            LaidOut.shared.keep(self, for: key)
        }
    }

    private init(layingOut model: ManagedObjectModel, numbering: EntityNumbering?, storeTables: [String: [String]]?) {
        let numbering = numbering ?? EntityNumbering(model: model)
        self.model = model
        self.numbering = numbering
        let roots = numbering.entries.filter { $0.superNumber == 0 }.compactMap { model.entity(named: $0.name) }
        var tables = roots.map { Self.table(for: $0, model: model, numbering: numbering) }
        let walks = Self.propertyWalks(of: model, tables: tables)
        Self.placeOrderColumns(in: &tables, model: model, walks: walks)
        var byProperty: [String: Column] = [:]
        for index in tables.indices {
            if let existing = storeTables?[tables[index].name] { tables[index].reconcileColumns(with: existing) }
            for column in tables[index].columns where column.role != .foreignEntity {
                byProperty[
                    column.role == .orderKey
                        ? "\(column.entity).#order.\(column.property)" : "\(column.entity).\(column.property)"] = column
            }
            for column in tables[index].columns where column.role == .foreignEntity {
                byProperty["\(column.entity).#entity.\(column.property)"] = column
            }
        }
        self.tables = tables
        columnsByProperty = byProperty
        joinTables = JoinTable.all(in: model, numbering: numbering, walks: walks).map { join in
            storeTables.flatMap { join.reconciled(with: $0, numbering: numbering) } ?? join
        }
        var resolved: [String: [String: Column]] = [:]
        var attributeColumns: [String: [AttributeColumn]] = [:]
        for entity in model.entities {
            let line = model.ancestors(of: entity).reversed() + [entity]
            var columns: [String: Column] = [:]
            for declarer in line {
                for property in declarer.declaredPropertyNames {
                    if let column = byProperty["\(declarer.name).\(property)"] { columns[property] = column }
                }
            }
            resolved[entity.name] = columns
            attributeColumns[entity.name] = model.allAttributes(of: entity).compactMap { attribute in
                columns[attribute.name].map { AttributeColumn(attribute: attribute, column: $0) }
            }
        }
        resolvedColumns = resolved
        attributeColumnsByEntity = attributeColumns
        indexEntities()
    }

    /// The order Core Data meets each entity's SQL properties in (``PropertyWalk``), each to-one
    /// by the key and entity columns `tables` give it.
    /// Empty for a model with no join table and no ordered to-many, where the order shows nowhere
    /// and walking it would cost every layout a hash table per entity.
    private static func propertyWalks(of model: ManagedObjectModel, tables: [Table]) -> [String: PropertyWalk.Entity] {
        let walkShows = model.entities.contains { entity in
            entity.relationships.contains { relationship in
                guard relationship.isToMany else { return false }
                let inverse = relationship.inverseName.flatMap { name in
                    model.entity(named: relationship.destinationEntityName).flatMap {
                        model.relationship(named: name, in: $0)
                    }
                }
                return relationship.isOrdered || inverse?.isToMany != false
            }
        }
        guard walkShows else { return [:] }
        var keyColumns: [String: (key: String, entity: String?)] = [:]
        for column in tables.flatMap(\.columns) where column.role == .foreignKey {
            keyColumns["\(column.entity).\(column.property)", default: (column.name, nil)].key = column.name
        }
        for column in tables.flatMap(\.columns) where column.role == .foreignEntity {
            keyColumns["\(column.entity).\(column.property)", default: ("", nil)].entity = column.name
        }
        return PropertyWalk.entities(of: model) { entity, relationship in
            keyColumns["\(entity.name).\(relationship.name)"].map { ($0.key, $0.entity) }
                ?? (ColumnNaming.column(for: relationship.name), nil)
        }
    }

    /// Each entity's table, relationship storage and properties, looked up by name once here:
    /// a migration asks for them per row.
    private mutating func indexEntities() {
        for entity in model.entities {
            let root = model.rootEntity(of: entity).name
            tableIndexByEntity[entity.name] = tables.firstIndex { $0.rootEntity == root }
        }
        // Storage is resolved through other entities' tables, so after every table is known.
        for entity in model.entities {
            var found: [String: RelationshipStorage] = [:]
            for relationship in model.allRelationships(of: entity) {
                found[relationship.name] = resolveStorage(entity: entity.name, relationship: relationship.name)
            }
            storages[entity.name] = found
            propertiesByEntity[entity.name] = Self.properties(of: entity, model: model, numbering: numbering)
        }
    }

    /// Every property of `entity` as ``property(_:of:)`` gives it; the root-most declaration
    /// wins where a bad model declares a name twice, as ``ManagedObjectModel`` lists it first.
    private static func properties(of entity: EntityDescription, model: ManagedObjectModel, numbering: EntityNumbering)
        -> [String: Property]
    {
        var properties: [String: Property] = [:]
        for relationship in model.allRelationships(of: entity) where properties[relationship.name] == nil {
            let numbers =
                numbering.number(of: relationship.destinationEntityName).map { numbering.numbers(inHierarchyOf: $0) }
                ?? []
            properties[relationship.name] = .relationship(relationship, destinationNumbers: Set(numbers))
        }
        for attribute in model.allAttributes(of: entity) where properties[attribute.name] == nil {
            properties[attribute.name] = .attribute(attribute)
        }
        return properties
    }

    /// The property `name` of `entity` (declared or inherited): an attribute, or a relationship
    /// with the entity numbers its destinations may have. A relationship wins over an attribute
    /// of the same name, as key paths read them.
    package func property(_ name: String, of entity: String) -> Property? {
        propertiesByEntity[entity]?[name]
    }

    /// Whether the model has an entity called `name` (without copying its description).
    package func hasEntity(_ name: String) -> Bool {
        propertiesByEntity[name] != nil
    }

    /// The table holding instances of `entity` (its root's table).
    package func table(for entity: String) -> Table? {
        tableIndexByEntity[entity].map { tables[$0] }
    }

    /// The column of `property` as seen from `entity` (declared there or inherited).
    package func column(entity: String, property: String) -> Column? {
        resolvedColumns[entity]?[property]
    }

    /// Every stored attribute of `entity` (inherited ones included) with its column.
    package func attributeColumns(of entity: String) -> [(attribute: AttributeDescription, column: Column)] {
        (attributeColumnsByEntity[entity] ?? []).map { ($0.attribute, $0.column) }
    }

    /// How the relationship `name` of `entity` is stored; `nil` for transient or unknown ones.
    package func storage(entity: String, relationship name: String) -> RelationshipStorage? {
        storages[entity]?[name]
    }

    private func resolveStorage(entity: String, relationship name: String) -> RelationshipStorage? {
        guard let source = model.entity(named: entity), let relationship = model.relationship(named: name, in: source),
            !relationship.isTransient, let table = table(for: entity)
        else { return nil }
        if !relationship.isToMany, let column = column(entity: entity, property: name) {
            let typeColumn = lookup(entity: entity) { columnsByProperty["\($0).#entity.\(name)"] }
            return .foreignKey(table: table.name, column: column.name, entityColumn: typeColumn?.name)
        }
        let inverse = inverse(of: relationship)
        if let inverse, !inverse.isToMany, let destinationTable = self.table(for: relationship.destinationEntityName),
            let column = column(entity: relationship.destinationEntityName, property: inverse.name)
        {
            let typeColumn = lookup(entity: relationship.destinationEntityName) {
                columnsByProperty["\($0).#entity.\(inverse.name)"]
            }
            let order =
                relationship.isOrdered
                ? lookup(entity: relationship.destinationEntityName) {
                    columnsByProperty["\($0).#order.\(inverse.name)"]
                }?.name : nil
            return .inverseForeignKey(
                table: destinationTable.name, column: column.name, entityColumn: typeColumn?.name, orderColumn: order)
        }
        let declarer = declaringEntity(of: name, from: source)
        // A relationship may be a side of two tables when another names it as an inverse it does
        // not point back to (WordPress 101–109: Comment.sites names ReaderSiteTopic.cards, whose
        // inverse is ReaderCard.sites); it is stored in the table of the pair it points back to.
        let found = joinTables.compactMap { join in
            join.sides.firstIndex { $0.entity == declarer && $0.relationship == name }.map { (join, $0) }
        }
        let inverseDeclarer =
            model.entity(named: relationship.destinationEntityName).map { destination in
                relationship.inverseName.map { declaringEntity(of: $0, from: destination) }
            } ?? nil
        let pointsBack = { (join: JoinTable, side: Int) in
            join.sides.count == 2 && join.sides[1 - side].relationship == relationship.inverseName
                && join.sides[1 - side].entity == inverseDeclarer
        }
        guard let (join, side) = found.first(where: pointsBack) ?? found.first else { return nil }
        let other = join.sides.count == 2 ? join.sides[1 - side] : nil
        return .joinTable(
            join, sourceColumn: other?.column ?? join.sourceColumn ?? "",
            destinationColumn: join.sides[side].column, orderColumn: join.sides[side].orderColumn)
    }

    /// The inverse relationship object of `relationship`, looked up on its destination.
    func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let name = relationship.inverseName,
            let destination = model.entity(named: relationship.destinationEntityName)
        else { return nil }
        return model.relationship(named: name, in: destination)
    }

    private func declaringEntity(of property: String, from entity: EntityDescription) -> String {
        ([entity] + model.ancestors(of: entity)).first { $0.declaredPropertyNames.contains(property) }?.name
            ?? entity.name
    }

    private func lookup(entity: String, _ find: (String) -> Column?) -> Column? {
        guard let description = model.entity(named: entity) else { return nil }
        for candidate in [description] + model.ancestors(of: description) {
            if let found = find(candidate.name) { return found }
        }
        return nil
    }
}
