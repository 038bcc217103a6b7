import Foundation

/// A versioned model: an Xcode `.xcdatamodeld` directory with one `.xcdatamodel` per version
/// and a current version, read and written in Xcode's own layout.
public struct ModelBundle: Hashable, Sendable {
    /// One named version of the model.
    public struct Version: Hashable, Sendable {
        /// The version's name: its folder name without `.xcdatamodel` (may contain spaces).
        public var name: String
        /// The model as that version defines it.
        public let model: ManagedObjectModel
        /// Every entity's version hash, worked out once: finding a store's version compares them
        /// for every version of a bundle (90 for a real app's history), and each is a SHA-256.
        public let entityHashes: [String: Data]

        /// A version called `name`.
        public init(name: String, model: ManagedObjectModel) {
            self.name = name
            self.model = model
            entityHashes = VersionHash.entityHashes(of: model)
        }
    }

    /// The bundle's name, without `.xcdatamodeld`.
    public var name: String
    /// Every version, oldest first by name (numbers in names compare as numbers).
    public var versions: [Version]
    /// The version new stores use and migrations go to.
    public var currentVersionName: String

    /// A bundle of `versions`; they are put in name order.
    public init(name: String, versions: [Version], currentVersionName: String) {
        self.name = name
        self.versions = versions.sorted { VersionName.precedes($0.name, $1.name) }
        self.currentVersionName = currentVersionName
    }

    /// The current version.
    public var current: Version {
        guard let version = version(named: currentVersionName) else {
            preconditionFailure("current version \(currentVersionName) is not in bundle \(name)")
        }
        return version
    }

    /// The version called `name`.
    public func version(named name: String) -> Version? { versions.first { $0.name == name } }

    /// Reads the `.xcdatamodeld` at `url`: every version (each validated) and the current one.
    public static func read(at url: URL) throws -> ModelBundle {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelFileError(file: url.path, problem: "is not a model bundle directory",
                                 fix: "give the path of an .xcdatamodeld folder")
        }
        let folders = ((try? fileManager.contentsOfDirectory(atPath: url.path)) ?? [])
            .filter { $0.hasSuffix(".xcdatamodel") }
        let versions = try folders.map { folder in
            Version(name: String(folder.dropLast(".xcdatamodel".count)),
                    model: try ModelXMLReader.read(contentsOf: url.appendingPathComponent(folder).appendingPathComponent("contents")))
        }
        let name = url.deletingPathExtension().lastPathComponent
        guard !versions.isEmpty else {
            throw ModelFileError(file: url.path, problem: "holds no model versions (no *.xcdatamodel folder)",
                                 fix: "add a version in Xcode, or point at the right .xcdatamodeld")
        }
        let current = try CurrentVersion.resolve(in: url, bundleName: name, versionNames: versions.map(\.name))
        return ModelBundle(name: name, versions: versions, currentVersionName: current)
    }

    /// Writes the bundle as an `.xcdatamodeld` at `url` (created or overwritten version by
    /// version), with a `.xccurrentversion` naming the current version.
    public func write(to url: URL) throws {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: url, withIntermediateDirectories: true)
        for version in versions {
            let folder = url.appendingPathComponent(version.name + ".xcdatamodel")
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(ModelXMLWriter.xml(for: version.model).utf8)
                .write(to: folder.appendingPathComponent("contents"), options: .atomic)
        }
        try CurrentVersion.write(currentVersionName, in: url)
    }
}

/// Orders version names the way people number them: `Model` < `Model 2` < `Model 10`.
enum VersionName {
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let left = chunks(lhs), right = chunks(rhs)
        for (a, b) in zip(left, right) where a != b {
            if let x = Int(a), let y = Int(b) { return x < y }
            return a < b
        }
        return left.count < right.count
    }

    /// Runs of digits and runs of everything else.
    private static func chunks(_ name: String) -> [String] {
        var result: [String] = []
        for character in name {
            if let last = result.last, last.last?.isNumber == character.isNumber {
                result[result.count - 1].append(character)
            } else {
                result.append(String(character))
            }
        }
        return result
    }
}
