import Foundation

extension ModelBundle {
    /// The version whose entity hashes equal `hashes` — Core Data's compatibility rule: the same
    /// entity names, each with an equal hash.
    ///
    /// - Parameter hashes: Entity name → version hash, as a store records them.
    /// - Returns: The first version with those hashes, or `nil` when none has them.
    public func version(matchingHashes hashes: [String: Data]) -> Version? {
        versions.first { $0.entityHashes == hashes }
    }

    /// The version to show for a store with `hashes` that recorded `identifiers`
    /// (`NSStoreModelVersionIdentifiers`). Versions with equal hashes are one model to Core Data
    /// (Wire's 2.98.0 and 2.100.0), and identifiers are not hashed, so they only choose among
    /// those: the one whose identifiers the store recorded, else the first. A store may record an
    /// identifier no version has any more (Moody's `"1"`); it still matches by its hashes.
    ///
    /// - Parameters:
    ///   - hashes: Entity name → version hash, as the store records them.
    ///   - identifiers: The store's `NSStoreModelVersionIdentifiers`.
    /// - Returns: The matching version the store's identifiers name, else the first match; `nil`
    ///   when no version has those hashes.
    public func version(matchingHashes hashes: [String: Data], recordedIdentifiers identifiers: [String]) -> Version? {
        let matching = versions(matchingHashes: hashes)
        let recorded = Set(identifiers.filter { !$0.isEmpty })
        return matching.first { !recorded.isDisjoint(with: $0.model.versionIdentifiers) } ?? matching.first
    }

    /// Every version whose hashes equal `hashes`: the versions Core Data takes for one another.
    ///
    /// - Parameter hashes: Entity name → version hash, as a store records them.
    /// - Returns: The versions with those hashes, in the bundle's order; empty when none has them.
    public func versions(matchingHashes hashes: [String: Data]) -> [Version] {
        versions.filter { $0.entityHashes == hashes }
    }

    /// The version sharing the most entity hashes with `hashes`, and the entities that differ
    /// (present on one side only, or with different hashes), sorted by name.
    ///
    /// - Parameter hashes: Entity name → version hash, as a store records them.
    /// - Returns: The nearest version and the names of the entities that differ; `nil` for a bundle
    ///   without versions.
    public func nearestVersion(toHashes hashes: [String: Data]) -> (version: Version, differingEntities: [String])? {
        let scored = versions.map { version -> (Version, [String]) in
            let own = version.entityHashes
            let names = Set(own.keys).union(hashes.keys)
            return (version, names.filter { own[$0] != hashes[$0] }.sorted(by: VersionHash.precedesInUTF16))
        }
        return scored.min { $0.1.count < $1.1.count }.map { (version: $0.0, differingEntities: $0.1) }
    }
}
