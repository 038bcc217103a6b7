import Foundation

/// The real Xcode and Core Data files in `../shared/fixtures/coredata`, beside the project root,
/// and scratch space to copy them into (fixtures are never opened in place).
public enum Fixtures {
    /// The fixtures folder.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata")

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
        /// Whether the checker found a `Z_MODELCACHE` that reproduces the store's hashes.
        public var modelCacheReproduces: Bool

        /// Every version name the store may be matched to: Core Data takes versions with equal hashes for one another.
        public var acceptableVersions: Set<String> {
            Set(
                (contents.map { [$0.deletingLastPathComponent().deletingPathExtension().lastPathComponent] } ?? [])
                    + alsoIdentical.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
        }
    }

    /// Every store `VERIFICATION.txt` lists, with its verdicts: the expectations tests derive
    /// their counts from, since fixtures are added.
    public static func verification() throws -> [VerifiedStore] {
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
