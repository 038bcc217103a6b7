import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// A custom policy's pairs are kept as an identity while each destination takes its source's key,
/// in order, and are written out as rows the moment one does not. Whichever way a policy breaks
/// the pattern, every relationship recreated from those pairs must still find the right objects.
final class RowByRowAssociationTests: XCTestCase {
    private let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Benchmarks/Models")

    /// Creates Core Data's default destination for each book it keeps; `extraFirst` inserts one
    /// more, unassociated book before the first, so every later key is one off its source's;
    /// `unpaired` books are copied (title only) without being associated; `unlinked` books have
    /// their category cleared by hand once associated, which stage 2 overwrites, as Core Data's does.
    private struct BookPolicy: EntityMigrationPolicy {
        let keeps: @Sendable (Int64) -> Bool
        let extraFirst: Bool
        let unpaired: Set<Int64>
        let unlinked: Set<Int64>

        func createDestinationInstances(
            forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            guard keeps(source.primaryKey) else { return }
            if extraFirst, source.primaryKey == 1 { try manager.insertDestination("Book", ["title": .string("extra")]) }
            if unpaired.contains(source.primaryKey) {
                try manager.insertDestination(
                    "Book", ["title": try manager.sourceObject(source).values["title"] ?? .null])
                return
            }
            try manager.createDefaultDestinationInstance(forSource: source, in: mapping)
            if unlinked.contains(source.primaryKey) {
                for destination in try manager.destinationInstances(
                    forEntityMappingNamed: mapping.name, sourceInstances: [source])
                {
                    try manager.relateDestination(destination, "category", to: [])
                }
            }
        }
    }

    func testEveryBookKeptKeepsItsKey() throws {
        try assertRelationshipsFollowTheirBooks(keeps: { _ in true })
    }

    func testASkippedBookInTheMiddleWritesThePairsOut() throws {
        try assertRelationshipsFollowTheirBooks(keeps: { $0 != 5 })
    }

    func testASkippedLastBookIsNotPaired() throws {
        try assertRelationshipsFollowTheirBooks(keeps: { $0 != 120 })
    }

    func testAnExtraBookShiftsEveryKeyAfterIt() throws {
        try assertRelationshipsFollowTheirBooks(keeps: { _ in true }, extraFirst: true)
    }

    /// Book 7 keeps its key but is not paired: the pairs after it are not consecutive, so they
    /// must not be taken for an identity that would pair book 7 too.
    func testAnUnpairedBookKeepsItsKeyButNotItsRelationships() throws {
        try assertRelationshipsFollowTheirBooks(keeps: { _ in true }, unpaired: [7])
    }

    /// The books' categories go into their inserts while the policy behaves (see `FoldedToOnes`);
    /// a category written by hand ends that, and stage 2 sets every category as before.
    func testACategoryClearedByHandIsSetAgainByStageTwo() throws {
        try assertRelationshipsFollowTheirBooks(keeps: { _ in true }, unlinked: [9, 60])
    }

    /// Migrates Library 1 → 2 with `BookPolicy` on the books, then compares each destination book
    /// (title, category, pages in order, tags) with its source book, for the books kept.
    private func assertRelationshipsFollowTheirBooks(
        keeps: @escaping @Sendable (Int64) -> Bool, extraFirst: Bool = false, unpaired: Set<Int64> = [],
        unlinked: Set<Int64> = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let bundle = try ModelBundle.read(at: models.appendingPathComponent("Library.xcdatamodeld"))
        let path = try scratchDirectory().appendingPathComponent("Library.sqlite").path
        let store = try PersistentStore.create(at: path, model: try version(bundle, "Library 1").model)
        try DataGenerator(model: try version(bundle, "Library 1").model, seed: 11).fill(store, rows: 120)
        try store.close()
        let highest = try rows(path, "SELECT max(Z_PK), count(*) FROM ZBOOK")[0]
        XCTAssertEqual(highest[0], 120.databaseValue, "the generator numbers books 1…120", file: file, line: line)
        let source = try books(path)

        var mapping = try MappingYAMLReader.read(at: models.appendingPathComponent("Mappings/Library1To2.mapping.yaml"))
        let bookMapping = try XCTUnwrap(mapping.entityMappings.firstIndex { $0.name == "BookToBook" })
        mapping.entityMappings[bookMapping].policyName = "BookPolicy"
        var policies = PolicyRegistry()
        policies.register("BookPolicy") {
            BookPolicy(keeps: keeps, extraFirst: extraFirst, unpaired: unpaired, unlinked: unlinked)
        }
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Library 1"), to: try version(bundle, "Library 2"),
            mappings: [mapping], options: MigrationOptions(policies: policies, chunkSize: 17))

        var expected = source.filter { keeps($0.key) }.map {
            unpaired.contains($0.key) ? [$0.value[0], "", "", ""] : $0.value
        }
        if extraFirst { expected.append(["extra", "", "", ""]) }
        let migrated = try books(path).map(\.value)
        XCTAssertEqual(migrated.count, expected.count, file: file, line: line)
        XCTAssertEqual(
            migrated.sorted { $0.lexicographicallyPrecedes($1) }, expected.sorted { $0.lexicographicallyPrecedes($1) },
            file: file, line: line)
        XCTAssertGreaterThan(
            expected.filter { !$0[2].isEmpty }.count, 60, "most books have pages", file: file, line: line)
        // Pages of books that were not kept lose their book; none points at a missing one.
        let orphans = try rows(
            path, "SELECT count(*) FROM ZPAGE WHERE ZBOOK IS NOT NULL AND ZBOOK NOT IN (SELECT Z_PK FROM ZBOOK)")[0][0]
        XCTAssertEqual(orphans, 0.databaseValue, file: file, line: line)
    }

    /// Each book by key: title, category name, page texts in the relationship's order, tag names.
    private func books(_ path: String) throws -> [(key: Int64, value: [String])] {
        try rows(
            path,
            """
            SELECT b.Z_PK, b.ZTITLE, c.ZNAME,
                   (SELECT group_concat(ZTEXT, '|') FROM (SELECT ZTEXT FROM ZPAGE p WHERE p.ZBOOK = b.Z_PK ORDER BY p.Z_FOK_BOOK, p.Z_PK)),
                   (SELECT group_concat(ZNAME, '|') FROM (SELECT t.ZNAME FROM Z_1TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_4TAGS WHERE j.Z_1BOOKS = b.Z_PK ORDER BY t.ZNAME))
            FROM ZBOOK b LEFT JOIN ZCATEGORY c ON c.Z_PK = b.ZCATEGORY ORDER BY b.Z_PK
            """
        ).map { row in
            (Int64.fromDatabaseValue(row[0]) ?? 0, row.dropFirst().map { String.fromDatabaseValue($0) ?? "" })
        }
    }
}
