import Foundation
import ObjectModel

extension ModelBundle {
    /// The version a store with `metadata` was written with, or `nil` if none has its hashes:
    /// among versions with the same hashes, the one whose identifier the store recorded.
    package func version(for metadata: StoreMetadata) -> Version? {
        version(matchingHashes: metadata.versionHashes, recordedIdentifiers: metadata.versionIdentifiers)
    }
}

/// Which model describes a store: a version of the given bundle, else the model the store
/// archived in `Z_MODELCACHE` ("the store's own model"), with how far it is from the bundle.
package struct StoreModelMatch: Sendable {
    /// Where the model came from.
    package enum Source: String, Sendable {
        /// A version of the bundle has the store's hashes.
        case bundle
        /// No bundle version matched (or none was given): the store's own archived model.
        case modelCache = "modelcache"
    }

    /// The matching bundle version's name.
    package var matchedVersion: String?
    /// Other versions with the matched version's hashes: one model to Core Data, told apart only
    /// by identifiers, which are not hashed (Wire's 2.98.0 beside 2.100.0).
    package var identicalVersions: [String] = []
    /// The model that describes the store, if any could be found.
    package var model: ManagedObjectModel?
    /// Where ``model`` came from; `nil` when there is none.
    package var source: Source?
    /// When no version matched: the bundle version closest to the store.
    package var nearestVersion: String?
    /// When no version matched: entities whose hashes differ from the nearest version's.
    package var differingEntities: [String]
    /// Whether the store's own archived model reproduces every hash in its metadata.
    package var cachedModelReproducesHashes: Bool?

    /// Finds the model for a store with `metadata` in `bundle` (if given), falling back to the
    /// model the store archived in `Z_MODELCACHE` (`cachedModel`, read only when needed).
    package static func find(
        metadata: StoreMetadata, in bundle: ModelBundle?, cachedModel: () throws -> ManagedObjectModel?
    ) throws -> StoreModelMatch {
        var match = StoreModelMatch(differingEntities: [])
        if let bundle, let version = bundle.version(for: metadata) {
            match.matchedVersion = version.name
            match.identicalVersions = bundle.versions(matchingHashes: metadata.versionHashes).map(\.name).filter {
                $0 != version.name
            }
            match.model = version.model
            match.source = .bundle
            return match
        }
        if let bundle, let nearest = bundle.nearestVersion(toHashes: metadata.versionHashes) {
            match.nearestVersion = nearest.version.name
            match.differingEntities = nearest.differingEntities
        }
        if let cached = try cachedModel() {
            match.model = cached
            match.source = .modelCache
            match.cachedModelReproducesHashes = VersionHash.entityHashes(of: cached) == metadata.versionHashes
        }
        return match
    }
}
