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
        /// The relationship's links, kept in the source property named here, would hold objects
        /// of an entity its new destination is not: rows with a link break it.
        case linkElsewhere(String)
    }

    /// The destination entity.
    public var entity: String
    /// The destination property.
    public var property: String
    /// Which rows must have the value.
    public var kind: Kind
    /// The change, said for people (`Note.id is new and required but has no default value`).
    public var description: String

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
        case .linkElsewhere(let from):
            return try reader.count(of: source, includingSubentities: false) - reader.countLacking(from, of: source)
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
    func unmetRequirementsError(_ unmet: [(requirement: InferenceRequirement, rows: Int)], store path: String) -> MigrationError {
        let list = unmet.map { unmet -> String in
            if case .linkElsewhere = unmet.requirement.kind {
                return "\(unmet.requirement.description) (\(unmet.rows) row\(unmet.rows == 1 ? " has" : "s have") a link)"
            }
            return "\(unmet.requirement.description) (\(unmet.rows) row\(unmet.rows == 1 ? " lacks" : "s lack") it)"
        }.joined(separator: "; ")
        let missing = unmet.contains { if case .linkElsewhere = $0.requirement.kind { return false } else { return true } }
        var error = MigrationError(
            .wrongModel,
            "\(sourceVersion) → \(destinationVersion) cannot migrate \(path): \(list); Core Data refuses such a store too\(missing ? " (error 134110)" : "")",
            fix: missing
                ? "give the attribute a default value in \(destinationVersion), make it optional, or write a mapping model that supplies the value; the store is unchanged"
                : "write a mapping model for \(sourceVersion) → \(destinationVersion) that says what the links become; the store is unchanged")
        error.step = "\(sourceVersion) → \(destinationVersion)"
        return error
    }
}
