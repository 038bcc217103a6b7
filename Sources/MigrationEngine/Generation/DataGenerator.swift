import Foundation
import ObjectModel
import SQLiteStore

/// Fills a store of any model with realistic rows: N per root entity, spread over the concrete
/// entities of each hierarchy, to-ones pointing at random rows of their destination, a few
/// many-to-many links per row, some NULLs. Deterministic for a seed, and streamed: rows go in
/// chunks of their own transactions, so ten million rows need no more memory than ten.
package struct DataGenerator {
    /// The model of the store to fill.
    package let model: ManagedObjectModel
    /// The seed; the same seed gives the same rows.
    package let seed: UInt64
    /// Rows per transaction.
    package var chunkSize = 20_000
    /// Whether the first rows of each entity hold edge values instead of realistic ones: no value
    /// (where optional), empty, the type's extremes, text beyond ASCII (``EdgeValues``). What a
    /// history check puts through every migration.
    package var edgeValues = false
    /// Whether `rows` counts per concrete entity rather than per root entity: every entity of a
    /// hierarchy then has as many rows as one without subentities, so a required to-one, or a
    /// one-to-one, into a subentity finds a partner for each row. What a history check uses.
    package var rowsPerConcreteEntity = false
    /// Rows for these root entities instead of `rows` (by name): a cache entity real stores
    /// never fill gets none (``HistoryRows``).
    package var rowsPerEntity: [String: Int] = [:]

    /// A generator for stores of `model`.
    package init(model: ManagedObjectModel, seed: UInt64 = 1) {
        self.model = model
        self.seed = seed
    }

    /// Where generated rows of one hierarchy go: its concrete entities, in the order rows cycle
    /// through them, and the key before the first generated row.
    private struct Hierarchy {
        var root: EntityDescription
        var concretes: [EntityDescription]
        var numbers: [Int]
        var base: Int64
        /// The rows generated in the hierarchy, cycling through ``concretes``.
        var rows: Int
    }

    /// Adds `rows` generated rows per root entity to `store`; `progress` gets the rows done so far.
    /// `progress` is called after each chunk with the rows written so far; it may throw (a
    /// cancel) to stop the fill there.
    package func fill(_ store: PersistentStore, rows: Int, progress: (Int) throws -> Void = { _ in }) throws {
        let layout = try store.layout(for: model)
        var hierarchies: [String: Hierarchy] = [:]
        let roots = model.entities.filter { $0.parentName == nil }.sorted {
            (layout.numbering.number(of: $0.name) ?? 0) < (layout.numbering.number(of: $1.name) ?? 0)
        }
        for root in roots {
            let concretes = concreteEntities(of: root)
            let base = try store.readObjects(layout) { try $0.highestKey(of: root.name) }
            let count = rowsPerEntity[root.name] ?? rows
            hierarchies[root.name] = Hierarchy(
                root: root, concretes: concretes,
                numbers: concretes.compactMap { layout.numbering.number(of: $0.name) }, base: base,
                rows: rowsPerConcreteEntity ? count * concretes.count : count)
        }
        var random = SeededRandom(seed: seed)
        var done = 0
        for root in roots {
            guard let hierarchy = hierarchies[root.name], !hierarchy.concretes.isEmpty else { continue }
            var plans = hierarchy.concretes.map { rowPlan(for: $0, layout: layout, hierarchies: hierarchies) }
            var index = 0
            while index < hierarchy.rows {
                let end = min(index + chunkSize, hierarchy.rows)
                try store.writeObjects(layout) { writer in
                    let templates = try plans.map {
                        try writer.template(
                            for: $0.entity.name, attributes: $0.attributes.map(\.name),
                            relationships: $0.toOnes.map(\.name))
                    }
                    for row in index..<end {
                        let which = row % plans.count
                        let values = zip(plans[which].attributes, plans[which].rules).map {
                            value(for: $0, rule: $1, index: row, random: &random)
                        }
                        let targets = plans[which].toOnes.indices.map {
                            plans[which].toOnes[$0].pick(row: row, random: &random)
                        }
                        try writer.insert(templates[which], values: values, destinations: targets)
                    }
                }
                done += end - index
                try progress(done)
                index = end
            }
        }
        try linkManyToMany(store: store, layout: layout, hierarchies: hierarchies, random: &random)
        try numberOrderedMembers(store: store, layout: layout)
        try store.makeDerivedAttributes(layout)
    }

    /// What each row of a concrete entity is given: its stored attributes with their sample
    /// rules, and its to-ones with the rule that picks their targets.
    private struct RowPlan {
        let entity: EntityDescription
        let attributes: [AttributeDescription]
        let rules: [SampleRule]
        var toOnes: [TargetRule]
    }

    /// The ``RowPlan`` of `entity` in a store laid out as `layout`.
    private func rowPlan(for entity: EntityDescription, layout: StoreLayout, hierarchies: [String: Hierarchy])
        -> RowPlan
    {
        let attributes = model.allAttributes(of: entity).filter {
            !$0.isTransient && !$0.isDerived && layout.column(entity: entity.name, property: $0.name) != nil
        }
        // Attributes under a uniqueness constraint get a value of their row's own: a
        // constraint's index spans the whole table (8 corpus bundles failed on repeats).
        let unique = Set(([entity] + model.ancestors(of: entity)).flatMap { $0.uniquenessConstraints.flatMap { $0 } })
        return RowPlan(
            entity: entity, attributes: attributes,
            rules: attributes.map { SampleRule(attributeName: $0.name, unique: unique.contains($0.name)) },
            toOnes: model.allRelationships(of: entity).filter { !$0.isToMany && !$0.isTransient }.map {
                TargetRule($0, in: model, hierarchies: hierarchies)
            })
    }

    /// Gives the members of every ordered one-to-many their positions (`Z_FOK_…`), Core Data's
    /// way: 1024 apart, in key order within each owner.
    private func numberOrderedMembers(store: PersistentStore, layout: StoreLayout) throws {
        let q = SQLIdentifier.quote
        for entity in model.entities where !entity.isAbstract {
            for relationship in entity.relationships where relationship.isToMany && relationship.isOrdered {
                guard
                    case let .inverseForeignKey(table, column, _, order?)? = layout.storage(
                        entity: entity.name, relationship: relationship.name)
                else {
                    continue
                }
                try store.withConnection { connection in
                    try connection.execute(
                        SQLStatement(
                            """
                            UPDATE \(q(table)) SET \(q(order)) = ranked.position
                            FROM (SELECT Z_PK, 1024 * row_number() OVER (PARTITION BY \(q(column)) ORDER BY Z_PK) AS position
                                  FROM \(q(table)) WHERE \(q(column)) IS NOT NULL) AS ranked
                            WHERE \(q(table)).Z_PK = ranked.Z_PK
                            """))
                }
            }
        }
    }

    func concreteEntities(of root: EntityDescription) -> [EntityDescription] {
        var result: [EntityDescription] = []
        func visit(_ entity: EntityDescription) {
            if !entity.isAbstract { result.append(entity) }
            for child in model.subentities(of: entity) { visit(child) }
        }
        visit(root)
        return result
    }

    /// How a to-one picks its destination row: any row of the destination's hierarchy whose
    /// concrete entity it accepts; a one-to-one pairs row i with row i, so both sides agree.
    private struct TargetRule {
        var name: String
        var optional: Bool
        var oneToOne: Bool
        /// A one-to-one both of whose sides may be empty leaves row i empty on both sides or on
        /// neither: a store Core Data wrote never has one side pointing at an object whose other
        /// side is empty (Core Data keeps inverses), so the choice is the pair's, not the side's.
        var pairSeed: UInt64?
        var hierarchy: Hierarchy?
        var accepted: Set<Int>

        init(_ relationship: RelationshipDescription, in model: ManagedObjectModel, hierarchies: [String: Hierarchy]) {
            name = relationship.name
            optional = relationship.isOptional
            let destination = model.entity(named: relationship.destinationEntityName)
            let inverse = destination.flatMap { d in
                relationship.inverseName.flatMap { model.relationship(named: $0, in: d) }
            }
            oneToOne = inverse.map { !$0.isToMany } ?? false
            if oneToOne, let inverse, relationship.isOptional, inverse.isOptional {
                // The same for both sides: the pair's two names, in order, hashed as FNV-1a.
                let key = [relationship.name, inverse.name].sorted().joined(separator: "\u{0}")
                pairSeed = key.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
            }
            let found = destination.flatMap { hierarchies[model.rootEntity(of: $0).name] }
            // A required to-one into a concrete entity points at that entity's own objects: a
            // subentity's, which a mapping model's entity mapping for the destination does not
            // visit, would leave it empty in a mapping step and fail Core Data's validation for
            // data an app does not store (WordPress 41 → 42: SourcePostAttribution.post, a
            // ReaderPost, never a ReaderGapMarker). Optional ones reach subentities too.
            let exact = !relationship.isOptional && destination?.isAbstract == false
            let names =
                destination.map { d in Set([d.name] + (exact ? [] : InferredNames.descendants(of: d, in: model))) }
                ?? []
            hierarchy = found
            accepted = Set(found.map { h in h.concretes.indices.filter { names.contains(h.concretes[$0].name) } } ?? [])
        }

        /// Destination rows a one-to-one has taken: no object is linked to two.
        var taken: Set<Int> = []

        mutating func pick(row: Int, random: inout SeededRandom) -> ObjectID? {
            guard let hierarchy, !accepted.isEmpty, hierarchy.rows > 0 else { return nil }
            let rows = hierarchy.rows
            if let pairSeed {
                // One row in eight, as for any optional to-one, by the top bits of a mix.
                if (((UInt64(row) &+ 1) ^ pairSeed) &* 0x9E37_79B9_7F4A_7C15) >> 61 == 0 { return nil }
            } else if optional && random.chance(8) {
                return nil
            }
            let first = oneToOne ? row : random.below(rows)
            let count = hierarchy.concretes.count
            // The next row of an accepted entity (not yet taken, for a one-to-one); none when too
            // few rows reach that entity.
            let tries = oneToOne ? rows : min(rows, count)
            guard
                let pick = (0..<tries).lazy.map({ (first + $0) % rows })
                    .first(where: { accepted.contains($0 % count) && !taken.contains($0) })
            else { return nil }
            if oneToOne { taken.insert(pick) }
            return ObjectID(entityNumber: hierarchy.numbers[pick % count], primaryKey: hierarchy.base + Int64(pick) + 1)
        }
    }

    private func value(for attribute: AttributeDescription, rule: SampleRule, index: Int, random: inout SeededRandom)
        -> SQLValue
    {
        if rule.unique, let value = Self.uniqueValue(for: attribute, row: index) {
            return value.sqlValue(for: attribute) ?? .null
        }
        if edgeValues, let edge = EdgeValues.value(for: attribute, row: index) {
            return edge.sqlValue(for: attribute) ?? .null
        }
        if attribute.isOptional && random.chance(4) { return .null }
        let stored: StoreValue
        switch attribute.attributeType {
        case .string: stored = .string(SampleValues.string(rule.text, index: index, &random))
        case .integer16, .integer32, .integer64:
            stored = .integer(Int64(rule.smallNumber ? 1 + random.below(12) : random.below(30_000)))
        case .double, .float, .decimal:
            stored = .double(
                rule.temperature ? Double(300 + random.below(150)) : Double(random.below(10_000)) / 100 + 1)
        case .boolean: stored = .bool(random.chance(50))
        case .date:
            stored = .date(Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(random.below(200_000_000))))
        case .uuid: stored = .uuid(UUID(uuid: SampleValues.uuid(&random)))
        case .uri: stored = .uri(URL(string: "https://example.com/items/\(index)")!)
        case .binaryData: stored = .data(Data((0..<(4 + random.below(28))).map { _ in UInt8(random.below(256)) }))
        case .transformable:
            // What a value transformer writes is the app's; a required one still needs bytes:
            // a property list of a string, as NSSecureUnarchiveFromData's plist archives are.
            guard !attribute.isOptional,
                let data = try? PropertyListSerialization.data(
                    fromPropertyList: "value \(index)", format: .binary, options: 0)
            else { return .null }
            stored = .data(data)
        default: return .null
        }
        return stored.sqlValue(for: attribute) ?? .null
    }

    /// A value no other row of the table has, for an attribute under a uniqueness constraint;
    /// `nil` for a type with too few values (a Boolean), which keeps its sample values.
    static func uniqueValue(for attribute: AttributeDescription, row: Int) -> StoreValue? {
        switch attribute.attributeType {
        case .string: return .string("\(attribute.name) \(row + 1)")
        case .integer16: return row < Int(Int16.max) ? .integer(Int64(row + 1)) : nil
        case .integer32, .integer64: return .integer(Int64(row + 1))
        case .double, .float, .decimal: return .double(Double(row + 1))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(row)))
        case .uuid:
            var bytes = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: UInt64(row + 1).bigEndian) { bytes.replaceSubrange(8..<16, with: $0) }
            return .uuid(
                UUID(
                    uuid: (
                        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                    )))
        case .uri: return .uri(URL(string: "https://example.com/unique/\(row + 1)")!)
        case .binaryData, .transformable: return .data(Data("\(attribute.name) \(row + 1)".utf8))
        default: return nil
        }
    }

    /// One or two links per row, from the first side of every many-to-many pair.
    private func linkManyToMany(
        store: PersistentStore, layout: StoreLayout, hierarchies: [String: Hierarchy], random: inout SeededRandom
    ) throws {
        for entity in model.entities where !entity.isAbstract {
            for relationship in entity.relationships where relationship.isToMany {
                guard
                    case .joinTable(let join, _, _, _)? = layout.storage(
                        entity: entity.name, relationship: relationship.name),
                    join.sides.first?.relationship == relationship.name,
                    let hierarchy = hierarchies[model.rootEntity(of: entity).name],
                    let slot = hierarchy.concretes.firstIndex(where: { $0.name == entity.name })
                else { continue }
                var rule = TargetRule(relationship, in: model, hierarchies: hierarchies)
                rule.optional = false
                rule.oneToOne = false
                var row = 0
                while row < hierarchy.rows {
                    let end = min(row + chunkSize, hierarchy.rows)
                    try store.writeObjects(layout) { writer in
                        for index in row..<end where index % hierarchy.concretes.count == slot {
                            let owner = ObjectID(
                                entityNumber: hierarchy.numbers[slot], primaryKey: hierarchy.base + Int64(index) + 1)
                            let targets = (0..<(1 + random.below(2))).compactMap { _ in
                                rule.pick(row: index, random: &random)
                            }
                            try writer.add(owner, relationship.name, Array(Set(targets)))
                        }
                    }
                    row = end
                }
            }
        }
    }
}

/// Subentity names below an entity.
enum InferredNames {
    static func descendants(of entity: EntityDescription, in model: ManagedObjectModel) -> [String] {
        model.subentities(of: entity).flatMap { [$0.name] + descendants(of: $0, in: model) }
    }
}
