import Foundation
import GRDB
import XCTest

/// The real Xcode and Core Data files in `../shared/fixtures/coredata`, beside the project root.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata")

    /// Every file under the fixtures whose path satisfies `predicate`, sorted.
    static func files(where predicate: (URL) -> Bool) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        return (enumerator?.compactMap { $0 as? URL } ?? []).filter(predicate).sorted { $0.path < $1.path }
    }

    /// Store → model version pairs that `VERIFICATION.txt` states (independently checked).
    static func verifiedPairs() throws -> [(store: URL, contents: URL)] {
        let text = try String(contentsOf: root.appendingPathComponent("VERIFICATION.txt"), encoding: .utf8)
        var pairs: [(URL, URL)] = []
        var store: String?
        for line in text.split(separator: "\n") {
            if !line.hasPrefix(" "), line.hasSuffix(".sqlite") { store = String(line) }
            let marker = "xcdatamodel: "
            if let store, let range = line.range(of: marker), line.hasSuffix("/contents") {
                pairs.append((root.appendingPathComponent(store), root.appendingPathComponent(String(line[range.upperBound...]))))
            }
        }
        return pairs
    }

    /// The `Z_METADATA` plist of a real store, read from a temporary copy (with its `-wal`), so
    /// the fixture itself is never opened for writing.
    static func storeMetadata(_ store: URL) throws -> [String: Any] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent(store.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: copy.path + suffix)
        }
        let blob = try DatabaseQueue(path: copy.path).read { db in
            try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA")
        }
        let plist = try PropertyListSerialization.propertyList(from: try XCTUnwrap(blob), format: nil)
        return try XCTUnwrap(plist as? [String: Any])
    }

    /// A fresh temporary directory, removed when the test ends.
    static func temporaryDirectory(for test: XCTestCase) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }
}
