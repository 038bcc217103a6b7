import Foundation

/// A compiled model bundle (`Name.momd`) as an app ships it: which version is current and every
/// version's entity hashes and checksum, from its `VersionInfo.plist`.
///
/// Each version's `.mom` is a keyed archive of the model; where it is present it is decoded too,
/// so a `.momd` alone is enough to describe, and later migrate to, every version.
public struct CompiledModelBundle: Hashable, Sendable {
    /// The bundle's name, without `.momd`.
    public var name: String
    /// `NSManagedObjectModel_CurrentVersionName`.
    public var currentVersionName: String
    /// `NSManagedObjectModel_VersionHashes`: version → entity → 32-byte hash.
    public var versionHashes: [String: [String: Data]]
    /// `NSManagedObjectModel_VersionChecksums` (newer toolchains): version → base64 SHA-256.
    public var versionChecksums: [String: String]
    /// The models decoded from each version's `.mom`, where the bundle has one.
    public var models: [String: ManagedObjectModel]

    /// Version names in order (numbers in names compare as numbers).
    public var versionNames: [String] { versionHashes.keys.sorted(by: VersionName.precedes) }

    /// The bundle as a ``ModelBundle`` when every version's `.mom` was there to decode.
    public var modelBundle: ModelBundle? {
        guard models.count == versionHashes.count else { return nil }
        return ModelBundle(
            name: name, versions: models.map { ModelBundle.Version(name: $0.key, model: $0.value) },
            currentVersionName: currentVersionName)
    }

    /// Reads `url/VersionInfo.plist` and each version's `.mom`.
    ///
    /// - Parameter url: The compiled `.momd` folder.
    /// - Returns: The bundle, with a model for each version whose `.mom` is there.
    /// - Throws: A `ModelFileError` when `VersionInfo.plist` is missing, not a dictionary, has no
    ///   version hashes or names a current version without any, or a `.mom` cannot be decoded.
    public static func read(at url: URL) throws -> CompiledModelBundle {
        let file = url.appendingPathComponent("VersionInfo.plist")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ModelFileError(
                file: file.path, problem: "is missing or unreadable",
                fix: "give the path of a compiled .momd folder that has a VersionInfo.plist")
        }
        guard let info = (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any] else {
            throw ModelFileError(
                file: file.path, problem: "is not a property list dictionary", fix: "rebuild the app to regenerate it")
        }
        guard let hashes = info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]], !hashes.isEmpty
        else {
            throw ModelFileError(
                file: file.path, element: "NSManagedObjectModel_VersionHashes",
                problem: "is missing or not a dictionary of version → entity → hash",
                fix: "rebuild the app to regenerate VersionInfo.plist")
        }
        let name = url.deletingPathExtension().lastPathComponent
        let current =
            info["NSManagedObjectModel_CurrentVersionName"] as? String
            ?? (hashes.count == 1 ? hashes.keys.first! : name)
        guard hashes[current] != nil else {
            throw ModelFileError(
                file: file.path, element: "NSManagedObjectModel_CurrentVersionName",
                problem:
                    """
                    names \"\(current)\", which has no hashes (versions: \
                    \(hashes.keys.sorted().joined(separator: ", ")))
                    """,
                fix: "rebuild the app to regenerate VersionInfo.plist")
        }
        var models: [String: ManagedObjectModel] = [:]
        for version in hashes.keys {
            let mom = url.appendingPathComponent(version + ".mom")
            if let data = FileManager.default.contents(atPath: mom.path) {
                models[version] = try ArchivedModelReader.read(data, source: mom.path)
            }
        }
        return CompiledModelBundle(
            name: name, currentVersionName: current, versionHashes: hashes,
            versionChecksums: info["NSManagedObjectModel_VersionChecksums"] as? [String: String] ?? [:],
            models: models)
    }
}
