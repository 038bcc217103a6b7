import Foundation
import SQLiteStore
import TestSupport
import XCTest

/// A WAL store whose rows are all in its `-wal`, without a `-shm`, on a read-only volume: SQLite
/// can create no `-shm` there, so the store is read through a private copy — every row, nothing
/// written where it lies. Needs root to mount the volume (CI runs as root); skipped otherwise.
final class ReadOnlyVolumeTests: XCTestCase {
    private func run(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/" + arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    func testAWALStoreWithoutItsShmOnAReadOnlyVolumeIsReadWhole() throws {
        let volume = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-ro-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: volume, withIntermediateDirectories: true)
        guard try run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", volume.path]) == 0 else {
            try? FileManager.default.removeItem(at: volume)
            throw XCTSkip("cannot mount a tmpfs here (needs root): \(volume.path)")
        }
        addTeardownBlock { [self] in
            _ = try? run(["umount", volume.path])
            try? FileManager.default.removeItem(at: volume)
        }
        let fixture = try XCTUnwrap(
            Fixtures.stores.first { $0.lastPathComponent == "CoreDataMigration_Example_WAL.sqlite" })
        let store = volume.appendingPathComponent(fixture.lastPathComponent).path
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: fixture.path + suffix, toPath: store + suffix)
        }
        XCTAssertEqual(try run(["mount", "-o", "remount,ro", volume.path]), 0)
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
