import Crypto
import Foundation
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Stores are written only when asked, and never in a way that loses what was there.
final class StoreSafetyTests: FixtureTestCase {
    private func digest(_ path: String) throws -> Data {
        Data(SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    func testReadOnlyFileRefusesWritesAndStaysIntact() throws {
        let store = try copyOfFixture(try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.path)
        let before = try digest(store.path)
        XCTAssertThrowsError(try PersistentStore.open(at: store.path, mode: .readWrite)) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .readOnly)
            XCTAssertEqual(
                "\(error)",
                "\(store.path): is read-only (mode 444). Fix: make it writable (chmod u+w) or work on a copy")
        }
        XCTAssertNoThrow(try PersistentStore.open(at: store.path).metadata())
        XCTAssertEqual(try digest(store.path), before)
    }

    func testReadOnlyOpeningRefusesWrites() throws {
        let store = try copyOfFixture(try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }))
        let before = try digest(store.path)
        let opened = try PersistentStore.open(at: store.path)
        XCTAssertThrowsError(try opened.writeMetadata(try opened.metadata())) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .readOnly)
        }
        XCTAssertEqual(try digest(store.path), before)
    }

    func testCreateNeverOverwrites() throws {
        let store = try copyOfFixture(try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }))
        let before = try digest(store.path)
        XCTAssertThrowsError(try PersistentStore.create(at: store.path, model: ManagedObjectModel(entities: []))) {
            error in
            XCTAssertTrue("\(error)".contains("already exists; Chrysalis never overwrites a store"), "\(error)")
        }
        XCTAssertEqual(try digest(store.path), before)
    }
}

/// Core Data's derived-attribute triggers call SQL functions plain SQLite lacks; Chrysalis
/// registers them, so writes to such stores work (and the triggers do their job).
final class DerivedAttributeTriggerTests: FixtureTestCase {
    func testWritesFiringDerivedAttributeTriggersSucceed() throws {
        let copy = try copyOfFixture(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "SampleModel2_V1.sqlite" }))
        let store = try PersistentStore.open(at: copy.path, mode: .readWrite)
        let model = try XCTUnwrap(try store.cachedModel())
        let layout = try store.layout(for: model)
        let book = try store.readObjects(layout) { reader -> ObjectID in
            var first: ObjectID?
            try reader.forEachObject(of: "Book", includingSubentities: false) { if first == nil { first = $0.id } }
            return try XCTUnwrap(first)
        }
        let before = try store.readObjects(layout) { try $0.object(book)?.values["pagesCount"] }
        try store.writeObjects(layout) { writer in
            let page = try writer.insert("Page", ["number": .integer(999), "isBookmarked": .bool(false)])
            try writer.relate(page, "book", to: [book])
        }
        let after = try store.readObjects(layout) { try $0.object(book)?.values["pagesCount"] }
        guard case .integer(let old)? = before, case .integer(let new)? = after else {
            return XCTFail("pagesCount \(String(describing: before)) → \(String(describing: after))")
        }
        XCTAssertEqual(new, old + 1, "the store's own trigger counted the new page")
    }
}
