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
        /// What Core Data would say of the model (``ManagedObjectModel/problems()``), pointing at
        /// the version's file.
        public let findings: [ModelFinding]

        /// A version called `name`; `findings` default to the model's problems, placed in no file.
        ///
        /// - Parameters:
        ///   - name: The version's name.
        ///   - model: The model the version defines.
        ///   - findings: What was found in its file; `nil` for the model's own problems, placed in
        ///     no file.
        public init(name: String, model: ManagedObjectModel, findings: [ModelFinding]? = nil) {
            self.name = name
            self.model = model
            // A chain too deep to hash in reasonable time is refused (problems()); it has no hashes.
            entityHashes = model.entityInheritingTooDeeply() == nil ? VersionHash.entityHashes(of: model) : [:]
            self.findings = findings ?? model.problems().map { ModelFinding($0, file: name) }
        }

        /// Versions are the same when their names and models are: hashes and findings follow from
        /// the model (a finding's line from where the file put it).
        ///
        /// - Parameters:
        ///   - lhs: A version.
        ///   - rhs: Another version.
        /// - Returns: Whether their names and models are equal.
        public static func == (lhs: Version, rhs: Version) -> Bool { lhs.name == rhs.name && lhs.model == rhs.model }

        /// Hashes what `==` compares: the name and the model.
        ///
        /// - Parameter hasher: The hasher to feed.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(model)
        }

        /// The version's checksum (`NSManagedObjectModel.versionChecksum`, and the one in
        /// `VersionInfo.plist`): how a staged migration's stages name it.
        public var versionChecksum: String { VersionHash.versionChecksum(ofHashes: entityHashes) }

        /// Why no store can be made or migrated at this version (Core Data refuses the model, or
        /// Chrysalis cannot lay it out); `nil` when stores can.
        public var refusal: ModelFinding? { findings.first { $0.problem.stopsStores } }

        /// Throws ``refusal`` as an error that names the version and what it is needed for.
        ///
        /// - Parameter purpose: What the version is needed for, said after "cannot be used"
        ///   (`to make a store`).
        /// - Throws: The `refusal` as a `ModelFileError`, its problem naming the version and
        ///   `purpose`.
        public func requireUsable(for purpose: String) throws {
            guard let refusal else { return }
            var error = refusal.error
            error.problem = "version \"\(name)\" cannot be used \(purpose): " + error.problem
            throw error
        }
    }

    /// The bundle's name, without `.xcdatamodeld`.
    public var name: String
    /// Every version, oldest first: by name (numbers in names compare as numbers), or in the order
    /// the app states (``versionOrder``).
    public var versions: [Version]
    /// The version new stores use and migrations go to.
    public var currentVersionName: String
    /// Whether no file names the current version and ``currentVersionName`` is Chrysalis's guess
    /// (`CurrentVersion`): `migrate` then needs the target named.
    public var currentIsGuessed = false
    /// How ``versions`` are ordered: as the app states it, or by name.
    public var versionOrder: VersionOrder = .byName
    /// What was found in the bundle itself (a current version it does not name), apart from
    /// its versions' own findings.
    public var findings: [ModelFinding] = []

    /// Bundles are the same when their names, versions and current version are: findings say
    /// how the files said it (a bundle written anew names its current version).
    ///
    /// - Parameters:
    ///   - lhs: A bundle.
    ///   - rhs: Another bundle.
    /// - Returns: Whether their names, versions and current version names are equal.
    public static func == (lhs: ModelBundle, rhs: ModelBundle) -> Bool {
        lhs.name == rhs.name && lhs.versions == rhs.versions && lhs.currentVersionName == rhs.currentVersionName
    }

    /// Hashes what `==` compares: the name, the versions and the current version's name.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(versions)
        hasher.combine(currentVersionName)
    }

    /// A bundle of `versions`; they are put in name order.
    ///
    /// - Parameters:
    ///   - name: The bundle's name, without `.xcdatamodeld`.
    ///   - versions: Its versions, in any order.
    ///   - currentVersionName: The name of the version new stores use and migrations go to.
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
    ///
    /// - Parameter name: The version's name.
    /// - Returns: The version, or `nil` when the bundle has none of that name.
    public func version(named name: String) -> Version? { versions.first { $0.name == name } }

    /// Reads the `.xcdatamodeld` at `url`: every version, as Xcode wrote it (XML `contents`, or
    /// Xcode 3's `elements` archive), with its findings, and the current one.
    ///
    /// - Parameter url: The `.xcdatamodeld` folder.
    /// - Returns: The bundle, with the findings of each version and of the bundle itself.
    /// - Throws: A `ModelFileError` when `url` is not a folder, holds no versions, a version cannot
    ///   be read, or `.xccurrentversion` is not a property list.
    public static func read(at url: URL) throws -> ModelBundle {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelFileError(
                file: url.path, problem: "is not a model bundle directory",
                fix: "give the path of an .xcdatamodeld folder")
        }
        let folders = ((try? fileManager.contentsOfDirectory(atPath: url.path)) ?? [])
            .filter { $0.hasSuffix(".xcdatamodel") }
        let versions = try folders.map { folder in
            try readVersion(at: url.appendingPathComponent(folder), name: String(folder.dropLast(".xcdatamodel".count)))
        }
        let name = url.deletingPathExtension().lastPathComponent
        guard !versions.isEmpty else {
            throw ModelFileError(
                file: url.path, problem: "holds no model versions (no *.xcdatamodel folder)",
                fix: "add a version in Xcode, or point at the right .xcdatamodeld")
        }
        let current = try CurrentVersion.resolve(in: url, bundleName: name, versionNames: versions.map(\.name))
        var bundle = ModelBundle(name: name, versions: versions, currentVersionName: current.name)
        bundle.findings = current.finding.map { [$0] } ?? []
        bundle.currentIsGuessed = current.guessed
        // The order the app states, in a file beside the bundle (Xcode owns the bundle's folder).
        let order = VersionOrder.file(beside: url)
        if let data = FileManager.default.contents(atPath: order.path) {
            let text = String(decoding: data, as: UTF8.self)
            let names = try VersionOrder.names(in: text, file: order.path, versions: Set(versions.map(\.name)))
            bundle = bundle.ordered(by: names, source: order.path)
        }
        return bundle
    }

    /// One version folder: its `contents`, or, from Xcode 3, its `elements` archive.
    ///
    /// - Parameters:
    ///   - folder: The `.xcdatamodel` folder.
    ///   - name: The version's name.
    /// - Returns: The version, with what Core Data would say of its model.
    /// - Throws: A `ModelFileError` pointing at the file (and line) that cannot be read as a model.
    public static func readVersion(at folder: URL, name: String) throws -> Version {
        let contents = folder.appendingPathComponent("contents")
        let elements = folder.appendingPathComponent("elements")
        if !FileManager.default.fileExists(atPath: contents.path), FileManager.default.fileExists(atPath: elements.path)
        {
            let model = try XcodeThreeModelReader.read(folder: folder)
            return Version(
                name: name, model: model, findings: model.problems().map { ModelFinding($0, file: elements.path) })
        }
        let file = try ModelXMLReader.readFile(contentsOf: contents)
        return Version(name: name, model: file.model, findings: file.findings)
    }

    /// Writes the bundle as an `.xcdatamodeld` at `url` (created or overwritten version by
    /// version), with a `.xccurrentversion` naming the current version.
    ///
    /// - Parameter url: The `.xcdatamodeld` folder to write.
    /// - Throws: Foundation's error when a folder or file cannot be created or written.
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
