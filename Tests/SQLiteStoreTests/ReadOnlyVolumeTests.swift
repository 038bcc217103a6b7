import Foundation
import SQLiteStore
import TestSupport
import XCTest

/// A WAL store whose rows are all in its `-wal`, without a `-shm`, on a read-only volume: SQLite
/// can create no `-shm` there, so the store is read through a private copy — every row, nothing
/// written where it lies. Needs root to mount the volume (CI runs as root); skipped otherwise.
final class ReadOnlyVolumeTests: FixtureTestCase {
    func testAWALStoreWithoutItsShmOnAReadOnlyVolumeIsReadWhole() throws {
        let tiny = try TinyVolume(megabytes: 4, test: self)
        let volume = tiny.root
        let fixture = try XCTUnwrap(
            Fixtures.stores.first { $0.lastPathComponent == "CoreDataMigration_Example_WAL.sqlite" })
        let store = volume.appendingPathComponent(fixture.lastPathComponent).path
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: fixture.path + suffix, toPath: store + suffix)
        }
        try tiny.remountReadOnly()
        let before = try FileManager.default.contentsOfDirectory(atPath: volume.path).sorted()

        // The same store read where SQLite can make its -shm: what the read-only one must show.
        let expected = try PersistentStore.open(at: try copyOfFixture(fixture).path).rowCounts()
        XCTAssertGreaterThan(expected.values.reduce(0, +), 0, "the fixture's rows are all in its -wal")
        let opened = try PersistentStore.open(at: store)
        XCTAssertEqual(try opened.rowCounts(), expected, "the rows only the -wal holds are read")
        try opened.close()
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: volume.path).sorted(), before,
            "nothing created beside the store")
    }
}
