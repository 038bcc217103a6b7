import ObjectModel
import SQLiteStore

/// A value the destination model requires that existing rows may lack: a new required attribute
/// without a default, an attribute that becomes required without one, a new or newly required
/// relationship. Core Data infers such a step and then checks the rows: the migration fails
/// (error 134110, "Validation error missing attribute values on mandatory destination
/// attribute") for a store that has a row without the value, and succeeds for any other store —
/// an empty entity, or a column with no NULL. Chrysalis checks the same rows, before the step
/// writes anything.
public struct InferenceRequirement: Hashable, Sendable, CustomStringConvertible {
    /// Which rows must have the value.
    public enum Kind: Hashable, Sendable {
        /// The property is new: every existing row of the entity lacks it.
        case newValue
        /// The property existed but was optional: rows where it is empty lack it.
        case existingValue
        /// A uniqueness constraint the destination adds, over these source properties: the step
        /// builds its unique index, which rows sharing a value break (every row after the first
        /// of each value). The canonical reason for a staged migration's `willMigrate`.
        case unique([String])
    }

    /// The destination entity.
    public var entity: String
    /// The destination property.
    public var property: String
    /// Which rows must have the value.
    public var kind: Kind
    /// The change, said for people (`Note.id is new and required but has no default value`).
    public var description: String
    /// Whether the property is a relationship, which has no default value to give it.
    public var isRelationship = false

    /// The rows of the store that lack the value: for each destination entity, how many of its
    /// source rows (that entity's own, not its subentities', which carry requirements of their own).
    func violations(_ inference: InferredMapping, reader: ObjectReader) throws -> Int {
        guard let source = inference.entitySources[entity] else { return 0 }
        switch kind {
        case .newValue:
            return try reader.count(of: source, includingSubentities: false)
        case .existingValue:
            guard let from = inference.propertySources[entity]?[property] else { return 0 }
            return try reader.countLacking(from, of: source)
        case .unique(let from):
            return try reader.countSharingValues(from, of: source)
        }
    }

    /// The requirement as a plan's finding, with what the store's rows showed (`checked`) or
    /// that they are checked when the step runs.
    func finding(checked: Bool) -> String {
        if case .unique = kind {
            return "unique: \(description); "
                + (checked
                    ? "no two rows share a value, so the step can run" : "checked against the rows when the step runs")
        }
        return "required: \(description); "
            + (checked ? "no row lacks it, so the step can run" : "checked against the rows when the step runs")
    }

    /// The uniqueness constraints `entity` adds to its `source` (`sources`: source property by
    /// destination property). A constraint over a new property is not among them: its rows start
    /// from the default, which no row has yet.
    static func addedUniqueness(of entity: EntityDescription, from source: EntityDescription, sources: [String: String])
        -> [InferenceRequirement]
    {
        let before = Set(source.uniquenessConstraints.map { Set($0) })
        return entity.uniquenessConstraints.compactMap { constraint in
            let from = constraint.compactMap { sources[$0] }
            guard from.count == constraint.count, !before.contains(Set(from)) else { return nil }
            let names = constraint.joined(separator: ", ")
            return InferenceRequirement(
                entity: entity.name, property: names, kind: .unique(from),
                description: "\(entity.name).\(names) becomes unique")
        }
    }
}

extension InferredMapping {
    /// Each requirement the store's rows break, with how many rows break it; empty when Core Data
    /// would migrate this store. `reader` reads the store at the source version.
    package func unmetRequirements(reader: ObjectReader) throws -> [(requirement: InferenceRequirement, rows: Int)] {
        try requirements.compactMap { requirement in
            let rows = try requirement.violations(self, reader: reader)
            return rows == 0 ? nil : (requirement, rows)
        }
    }

    /// The error for a store whose rows break requirements: what Core Data would refuse, and why.
    func unmetRequirementsError(_ unmet: [(requirement: InferenceRequirement, rows: Int)], store path: String)
        -> MigrationError
    {
        let list = unmet.map { unmet -> String in
            switch unmet.requirement.kind {
            case .unique:
                return
                    "\(unmet.requirement.description) (\(unmet.rows) row\(unmet.rows == 1 ? " shares its" : "s share their") value with another)"
            case .newValue, .existingValue:
                return "\(unmet.requirement.description) (\(unmet.rows) row\(unmet.rows == 1 ? " lacks" : "s lack") it)"
            }
        }.joined(separator: "; ")
        if unmet.contains(where: { if case .unique = $0.requirement.kind { true } else { false } }) {
            var error = MigrationError(
                .unmetRequirement,
                "\(sourceVersion) → \(destinationVersion) cannot migrate \(path): \(list); its unique index cannot be built, and Core Data's migration fails on them too",
                fix:
                    "merge the objects that share a value before this step: a staged migration's willMigrate does it (--strategy staged; `chrysalis demo staged` shows one), or a mapping model"
            )
            error.step = "\(sourceVersion) → \(destinationVersion)"
            return error
        }
        let relationships = unmet.filter(\.requirement.isRelationship).count
        let fix =
            relationships == 0
            ? "give the attribute a default value in \(destinationVersion), make it optional, or write a mapping model that supplies the value"
            : relationships == unmet.count
                ? "make the relationship optional in \(destinationVersion), or write a mapping model that sets it for every object"
                : "give each attribute a default value in \(destinationVersion) and make each relationship optional, or write a mapping model that supplies the values"
        var error = MigrationError(
            .unmetRequirement,
            "\(sourceVersion) → \(destinationVersion) cannot migrate \(path): \(list); Core Data refuses such a store too (error 134110)",
            fix: fix)
        error.step = "\(sourceVersion) → \(destinationVersion)"
        return error
    }
}
