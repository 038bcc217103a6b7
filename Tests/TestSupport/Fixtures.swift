import Foundation
import GRDB
import ObjectModel

/// The real Xcode and Core Data files in `../shared/fixtures/coredata`, beside the project root,
/// and scratch space to copy them into (fixtures are never opened in place).
public enum Fixtures {
    /// The fixtures folder: `CHRYSALIS_FIXTURES`, when set, else `../shared/fixtures/coredata`.
    public static let root =
        ProcessInfo.processInfo.environment["CHRYSALIS_FIXTURES"].map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata")

    /// Whether the fixtures are there: their index, `VERIFICATION.txt`, is a file.
    public static var present: Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(
            atPath: root.appendingPathComponent("VERIFICATION.txt").path, isDirectory: &isFolder)
            && !isFolder.boolValue
    }

    /// What a test that needs the fixtures says where they are missing: one sentence, the fix in it.
    public static var missing: String {
        """
        the Core Data fixtures are not at \(root.path): these tests read real files written by Xcode and \
        Core Data from ../shared/fixtures/coredata, beside the project root (README, "Prerequisites"); \
        put them there, or set CHRYSALIS_FIXTURES to where they are
        """
    }

    /// Skips the test (or, in CI, fails it) unless the fixtures are there.
    public static func require() throws { try EndToEnd.require(present, missing) }

    /// Every file under the fixtures whose path satisfies `predicate`, sorted.
    public static func files(where predicate: (URL) -> Bool) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        return (enumerator?.compactMap { $0 as? URL } ?? []).filter(predicate).sorted { $0.path < $1.path }
    }

    /// Every real store, whatever its name (`.sqlite`, `.wiredatabase`, none): each file that
    /// starts with SQLite's header, without its `-wal`/`-shm`/`-journal` sidecars.
    public static var stores: [URL] {
        files { url in
            !["-wal", "-shm", "-journal"].contains { url.lastPathComponent.hasSuffix($0) } && isSQLite(url)
        }
    }

    /// Whether the file at `url` starts with SQLite's 16-byte header.
    static func isSQLite(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\u{0}".utf8)
    }

    /// One store as `VERIFICATION.txt` (written by an independent checker) states it.
    public struct VerifiedStore {
        /// The store file.
        public var store: URL
        /// The `contents` of the `.xcdatamodel` whose hashes equal the store's, when one does.
        public var contents: URL?
        /// Other versions' names with the very same hashes (`also identical:`).
        public var alsoIdentical: [String]
        /// Whether the checker found a `Z_MODELCACHE` that reproduces the store's hashes; for a
        /// store it does not list, whether the store has one (which the tests then check).
        public var modelCacheReproduces: Bool
        /// Whether `VERIFICATION.txt` lists the store; a store added to the fixtures after the
        /// checker ran is identified by the hashes of the bundles in its own folder.
        public var isListed = true

        /// Every version name the store may be matched to: Core Data takes versions with equal hashes for one another.
        public var acceptableVersions: Set<String> {
            Set(
                (contents.map { [$0.deletingLastPathComponent().deletingPathExtension().lastPathComponent] } ?? [])
                    + alsoIdentical.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
        }
    }

    /// Every real store with its verdicts: `VERIFICATION.txt`'s where it lists the store, and for
    /// a store added to the fixtures since, the version of a bundle in the store's own folder
    /// (`duckduckgo-BrowserServicesKit/`, …) whose hashes the store carries. The expectations
    /// tests derive their counts from, since fixtures are added.
    public static func verification() throws -> [VerifiedStore] {
        let listed = try listedStores()
        let known = Set(listed.map(\.store.path))
        let added = try stores.filter { !known.contains($0.path) }.map(identified)
        return (listed + added).sorted { $0.store.path < $1.store.path }
    }

    /// A store `VERIFICATION.txt` does not list, identified by its hashes among the versions of
    /// the bundles in its own fixture folder (Core Data's source-model look-up: the first that
    /// matches).
    static func identified(_ store: URL) throws -> VerifiedStore {
        let folder = store.path.dropFirst(root.path.count + 1).split(separator: "/").first.map(String.init) ?? ""
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try copyStore(store, into: directory)
        let (hashes, hasCache) = try DatabaseQueue(path: copy.path).read { db -> ([String: Data], Bool) in
            let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") ?? Data()
            let metadata = try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any]
            let cache =
                try db.tableExists("Z_MODELCACHE")
                && (try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_MODELCACHE") ?? 0) > 0
            return (metadata?["NSStoreModelVersionHashes"] as? [String: Data] ?? [:], cache)
        }
        var entry = VerifiedStore(store: store, contents: nil, alsoIdentical: [], modelCacheReproduces: hasCache)
        entry.isListed = false
        for bundle in files(where: {
            $0.pathExtension == "xcdatamodeld" && $0.path.hasPrefix("\(root.path)/\(folder)/")
        }) {
            let matching = try ModelBundle.read(at: bundle).versions(matchingHashes: hashes)
            guard let first = matching.first else { continue }
            entry.contents = bundle.appendingPathComponent("\(first.name).xcdatamodel/contents")
            entry.alsoIdentical = matching.dropFirst().map { "\($0.name).xcdatamodel" }
            break
        }
        return entry
    }

    /// Every store `VERIFICATION.txt` lists, with the independent checker's verdicts.
    static func listedStores() throws -> [VerifiedStore] {
        let text = try String(contentsOf: root.appendingPathComponent("VERIFICATION.txt"), encoding: .utf8)
        var stores: [VerifiedStore] = []
        for line in text.split(separator: "\n").map(String.init) {
            // A store's line is an unindented path; its verdicts follow, indented.
            if !line.hasPrefix(" ") {
                let url = root.appendingPathComponent(line)
                if !line.contains(": "), !line.contains(" ["), FileManager.default.fileExists(atPath: url.path) {
                    stores.append(
                        VerifiedStore(store: url, contents: nil, alsoIdentical: [], modelCacheReproduces: false))
                }
                continue
            }
            guard !stores.isEmpty else { continue }
            let verdict = line.trimmingCharacters(in: .whitespaces)
            if verdict.hasPrefix("xcdatamodel: "), verdict.hasSuffix("/contents") {
                stores[stores.count - 1].contents = root.appendingPathComponent(
                    String(verdict.dropFirst("xcdatamodel: ".count)))
            } else if verdict.hasPrefix("also identical: ") {
                stores[stores.count - 1].alsoIdentical = verdict.dropFirst("also identical: ".count)
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            } else if verdict.hasPrefix("Z_MODELCACHE: "), verdict.hasSuffix(" reproduced") {
                stores[stores.count - 1].modelCacheReproduces = true
            }
        }
        return stores
    }

    /// Store → model version pairs that `VERIFICATION.txt` states (independently checked).
    public static func verifiedPairs() throws -> [(store: URL, contents: URL)] {
        try verification().compactMap { entry in entry.contents.map { (entry.store, $0) } }
    }

    /// The `.xcdatamodeld` that holds a version's `contents` file.
    public static func bundle(of contents: URL) -> URL {
        contents.deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Copies `store` with its `-wal`/`-shm` sidecars into `directory`; returns the copy.
    public static func copyStore(_ store: URL, into directory: URL) throws -> URL {
        let copy = directory.appendingPathComponent(store.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: copy.path + suffix)
            // The fixtures are read-only; a working copy should not be.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.path + suffix)
        }
        return copy
    }

    /// A new empty directory under the system's temporary directory.
    public static func makeTemporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
