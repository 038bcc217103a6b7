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

    /// Store → model version pairs that `VERIFICATION.txt` states (independently checked).
    public static func verifiedPairs() throws -> [(store: URL, contents: URL)] {
        let text = try String(contentsOf: root.appendingPathComponent("VERIFICATION.txt"), encoding: .utf8)
        var pairs: [(URL, URL)] = []
        var store: String?
        for line in text.split(separator: "\n") {
            // A store's line is any unindented line; its verdicts follow, indented.
            if !line.hasPrefix(" ") { store = String(line) }
            let marker = "xcdatamodel: "
            if let store, let range = line.range(of: marker), line.hasSuffix("/contents") {
                pairs.append((root.appendingPathComponent(store), root.appendingPathComponent(String(line[range.upperBound...]))))
            }
        }
        return pairs
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
