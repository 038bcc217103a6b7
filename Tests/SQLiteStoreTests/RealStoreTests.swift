import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Every real store in the fixtures opens, reports its metadata, and is recognised.
final class RealStoreTests: FixtureTestCase {
    func testEveryStoreOpensAndItsCachedModelReproducesItsHashes() throws {
        let stores = Fixtures.stores, verified = try Fixtures.verification()
        XCTAssertEqual(stores.map(\.path), verified.map(\.store.path), "every store the fixtures hold has its verdicts")
        for entry in verified where !entry.isListed {
            XCTAssertNotNil(
                entry.contents,
                "\(entry.store.path): VERIFICATION.txt does not list it and no version in its folder has its hashes")
        }
        let expectedCaches = verified.filter(\.modelCacheReproduces).count
        var cached = 0
        for store in stores {
            let copy = try copyOfFixture(store)
            let opened = try PersistentStore.open(at: copy.path)
            let metadata = try opened.metadata()
            XCTAssertFalse(metadata.versionHashes.isEmpty, store.path)
            XCTAssertEqual(metadata.uuid.count, 36, store.path)
            XCTAssertNotNil(metadata.frameworkVersion, store.path)
            guard let model = try opened.cachedModel() else {
                XCTAssertFalse(
                    verified.first { $0.store.path == store.path }?.modelCacheReproduces ?? true,
                    "\(store.path) has a Z_MODELCACHE")
                continue
            }
            cached += 1
            XCTAssertEqual(VersionHash.entityHashes(of: model), metadata.versionHashes, store.path)
            if let digest = metadata.versionHashesDigest {
                XCTAssertEqual(VersionHash.versionHashesDigest(of: model), digest, store.path)
            }
            if let checksum = metadata.versionChecksum {
                XCTAssertEqual(VersionHash.versionChecksum(of: model), checksum, store.path)
            }
        }
        XCTAssertEqual(cached, expectedCaches, "every store whose Z_MODELCACHE the checker read")
    }

    /// Versions with equal hashes are one model to Core Data (VERIFICATION.txt lists them as
    /// `also identical:`): any of them matches, and the one shown is the one whose identifier the
    /// store recorded, when one of them has it.
    func testEveryVerifiedStoreMatchesItsBundleVersion() throws {
        var bundles: [URL: ModelBundle] = [:]
        for entry in try Fixtures.verification() {
            guard let contents = entry.contents else { continue }
            let url = Fixtures.bundle(of: contents)
            let bundle = try bundles[url] ?? ModelBundle.read(at: url)
            bundles[url] = bundle
            let metadata = try PersistentStore.open(at: try copyOfFixture(entry.store).path).metadata()
            let version = try XCTUnwrap(bundle.version(for: metadata), entry.store.path)
            XCTAssertTrue(
                entry.acceptableVersions.contains(version.name),
                "\(entry.store.path): \(version.name) not in \(entry.acceptableVersions)")
            let recorded = Set(metadata.versionIdentifiers.filter { !$0.isEmpty })
            let candidates = entry.acceptableVersions.compactMap { bundle.version(named: $0) }
            if candidates.contains(where: { !recorded.isDisjoint(with: $0.model.versionIdentifiers) }) {
                XCTAssertFalse(
                    recorded.isDisjoint(with: version.model.versionIdentifiers),
                    "\(entry.store.path): shows \(version.name), not the version it recorded (\(recorded))")
            }
        }
        XCTAssertFalse(bundles.isEmpty)
    }

    func testWALStoreIsReadThroughItsWAL() throws {
        let store = try XCTUnwrap(
            Fixtures.stores.first { $0.lastPathComponent == "CoreDataMigration_Example_WAL.sqlite" })
        let copy = try copyOfFixture(store)
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy.path + "-wal"))
        let opened = try PersistentStore.open(at: copy.path)
        let counts = try opened.rowCounts()
        XCTAssertEqual(counts.values.reduce(0, +), 168, "84 posts and 84 colors live only in the -wal")
    }

    /// A kill during a checkpoint leaves a header that already counts the pages the WAL is still
    /// copying in (page 1 is written first); SQLite replays the `-wal` on open, so the store is whole
    /// and must not be refused as truncated (the crash harness's in-place kill found this).
    func testAStoreWhoseCheckpointWasInterruptedIsReadThroughItsWAL() throws {
        let store = try XCTUnwrap(
            Fixtures.stores.first { $0.lastPathComponent == "CoreDataMigration_Example_WAL.sqlite" })
        let copy = try copyOfFixture(store)
        let handle = try FileHandle(forUpdating: copy)
        let header = [UInt8](try XCTUnwrap(try handle.read(upToCount: 100)))
        let pageSize = Int(header[16]) << 8 | Int(header[17])
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: copy.path)[.size] as? NSNumber)
            .intValue
        let declared = UInt32(size / pageSize + 12)
        let counter = Array(header[24..<28])
        let bigEndian = withUnsafeBytes(of: declared.bigEndian) { Array($0) }
        try handle.seek(toOffset: 28)
        try handle.write(contentsOf: bigEndian)
        try handle.seek(toOffset: 92)
        try handle.write(contentsOf: counter)
        try handle.close()

        let file = try StoreFileCheck.check(copy.path)
        XCTAssertEqual(file.declaredPageCount, Int(declared), "the header now counts pages the file does not have yet")
        XCTAssertEqual(try PersistentStore.open(at: copy.path).rowCounts().values.reduce(0, +), 168)

        try FileManager.default.removeItem(atPath: copy.path + "-wal")
        XCTAssertThrowsError(try StoreFileCheck.check(copy.path)) { error in
            XCTAssertTrue("\(error)".contains("is truncated: the header declares"), "\(error)")
        }
    }

    func testMetadataKeepsEveryKeyThroughAWrite() throws {
        let store = try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "SampleModel2_V1.sqlite" })
        let copy = try copyOfFixture(store)
        let original = try PersistentStore.open(at: copy.path).metadata()
        var changed = original
        changed.values["com.example.lastSync"] = .date(Date(timeIntervalSinceReferenceDate: 12345))
        let writable = try PersistentStore.open(at: copy.path, mode: .readWrite)
        try writable.writeMetadata(changed)
        let reread = try PersistentStore.open(at: copy.path).metadata()
        XCTAssertEqual(reread, changed)
        XCTAssertEqual(Set(reread.values.keys), Set(original.values.keys).union(["com.example.lastSync"]))
        XCTAssertEqual(reread.uuid, original.uuid)
    }
}
