import Foundation
import ObjectModel

/// A store's metadata: the `Z_METADATA` plist (entity hashes, version identifiers, framework
/// version, digest, checksum, and any key an app added) plus the store UUID from `Z_UUID`.
///
/// Every key is kept, known or not, so a migration can carry an app's own metadata across.
package struct StoreMetadata: Hashable, Sendable {
    /// The store's UUID (`NSStoreUUID`), kept in `Z_UUID`, not in the plist.
    package var uuid: String
    /// Every key of the plist, as read.
    package var values: [String: PropertyListValue]

    /// Metadata made of `values`.
    package init(uuid: String, values: [String: PropertyListValue]) {
        self.uuid = uuid
        self.values = values
    }

    /// The metadata Core Data writes for a new store of `model`.
    package init(model: ManagedObjectModel, uuid: String = UUID().uuidString) {
        self.uuid = uuid
        values = [
            "NSStoreType": .string("SQLite"),
            "NSPersistenceFrameworkVersion": .integer(1344),
            "NSStoreModelVersionHashesVersion": .integer(3),
            "_NSAutoVacuumLevel": .string("2"),
        ]
        setModel(model)
    }

    /// `NSStoreModelVersionHashes`: entity name → 32-byte version hash.
    package var versionHashes: [String: Data] {
        guard case .dictionary(let hashes)? = values["NSStoreModelVersionHashes"] else { return [:] }
        return hashes.compactMapValues { if case .data(let data) = $0 { data } else { nil } }
    }

    /// `NSStoreModelVersionIdentifiers`.
    package var versionIdentifiers: [String] {
        guard case .array(let items)? = values["NSStoreModelVersionIdentifiers"] else { return [] }
        return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    /// `NSPersistenceFrameworkVersion`: the Core Data build that last saved the store.
    package var frameworkVersion: Int? {
        if case .integer(let number)? = values["NSPersistenceFrameworkVersion"] { return number }
        return nil
    }

    /// `NSStoreModelVersionHashesDigest` (stores from 2020 on).
    package var versionHashesDigest: String? { string("NSStoreModelVersionHashesDigest") }

    /// `NSStoreModelVersionChecksumKey` (stores from 2024 on).
    package var versionChecksum: String? { string("NSStoreModelVersionChecksumKey") }

    /// Points the metadata at `model`: its hashes, identifiers, digest and checksum; every other
    /// key is left as it was.
    package mutating func setModel(_ model: ManagedObjectModel) {
        // Hashed once: the digest and the checksum are taken over the same entity hashes.
        let hashes = VersionHash.entityHashes(of: model)
        values["NSStoreModelVersionHashes"] = .dictionary(hashes.mapValues { .data($0) })
        values["NSStoreModelVersionIdentifiers"] = .array(model.versionIdentifiers.map { .string($0) })
        values["NSStoreModelVersionHashesDigest"] = .string(VersionHash.versionHashesDigest(ofHashes: hashes))
        values["NSStoreModelVersionChecksumKey"] = .string(VersionHash.versionChecksum(ofHashes: hashes))
    }

    /// Reads a `Z_PLIST` blob; `path` names the store in errors.
    package static func decode(plist: Data, uuid: String, path: String) throws -> StoreMetadata {
        // Core Data writes binary plists; OpenStep text would parse almost any bytes as a string.
        var format = PropertyListSerialization.PropertyListFormat.binary
        guard let object = try? PropertyListSerialization.propertyList(from: plist, format: &format),
            format != .openStep
        else {
            throw StoreError(
                .badMetadata, path: path, "Z_METADATA.Z_PLIST is not a property list",
                fix: "the metadata is damaged; restore the store from a backup")
        }
        guard let dictionary = object as? [String: Any], case .dictionary(let values)? = PropertyListValue(dictionary)
        else {
            throw StoreError(
                .badMetadata, path: path, "Z_METADATA.Z_PLIST is a property list but not a dictionary",
                fix: "the metadata is damaged; restore the store from a backup")
        }
        return StoreMetadata(uuid: uuid, values: values)
    }

    /// The binary plist Core Data writes to `Z_PLIST`.
    package func encodedPlist() throws -> Data {
        try PropertyListValue.dictionary(values).binaryPlist()
    }

    private func string(_ key: String) -> String? {
        if case .string(let text)? = values[key] { return text }
        return nil
    }
}
