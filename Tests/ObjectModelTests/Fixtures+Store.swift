import Foundation
import GRDB
import TestSupport
import XCTest

extension Fixtures {
    /// The `Z_METADATA` plist of a real store, read with plain SQL from a temporary copy (with
    /// its `-wal`), independently of the SQLiteStore module.
    static func storeMetadata(_ store: URL) throws -> [String: Any] {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try copyStore(store, into: directory)
        let blob = try DatabaseQueue(path: copy.path).read { db in
            try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA")
        }
        let plist = try PropertyListSerialization.propertyList(from: try XCTUnwrap(blob), format: nil)
        return try XCTUnwrap(plist as? [String: Any])
    }

    /// A fresh temporary directory, removed when the test ends.
    static func temporaryDirectory(for test: XCTestCase) throws -> URL {
        let directory = try makeTemporaryDirectory()
        test.addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }
}
