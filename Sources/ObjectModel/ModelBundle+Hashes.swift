import Foundation

extension ModelBundle {
    /// The version whose entity hashes equal `hashes` — Core Data's compatibility rule: the same
    /// entity names, each with an equal hash.
    public func version(matchingHashes hashes: [String: Data]) -> Version? {
        versions.first { $0.entityHashes == hashes }
    }

    /// The version sharing the most entity hashes with `hashes`, and the entities that differ
    /// (present on one side only, or with different hashes), sorted by name.
    public func nearestVersion(toHashes hashes: [String: Data]) -> (version: Version, differingEntities: [String])? {
        let scored = versions.map { version -> (Version, [String]) in
            let own = version.entityHashes
            let names = Set(own.keys).union(hashes.keys)
            return (version, names.filter { own[$0] != hashes[$0] }.sorted(by: VersionHash.precedesInUTF16))
        }
        return scored.min { $0.1.count < $1.1.count }.map { (version: $0.0, differingEntities: $0.1) }
    }
}
