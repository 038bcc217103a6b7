import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// DuckDuckGo's bookmarks (the package its shipped iOS and macOS browsers share): a single
/// self-referencing entity with two ordered to-manys, one of them turned from a to-one into the
/// ordered side of a many-to-many at V4, and the package's own test stores, written by Core Data
/// at V1 … V5. The app upgrades with Core Data's automatic migration, straight to the current
/// version; every store must come out with each folder's favorites and children in the order it
/// had them, read here with plain SQL from the store Core Data wrote.
final class DuckDuckGoBookmarksTests: FixtureTestCase {
    static let folder = Fixtures.root.appendingPathComponent("duckduckgo-BrowserServicesKit")

    /// The stores of the bookmarks model, with the bundle their version is in.
    static func stores() throws -> [(store: URL, bundle: URL)] {
        try Fixtures.verification().compactMap { entry in
            guard entry.store.path.hasPrefix(folder.path), let contents = entry.contents,
                Fixtures.bundle(of: contents).lastPathComponent == "BookmarksModel.xcdatamodeld"
            else { return nil }
            return (entry.store, Fixtures.bundle(of: contents))
        }
    }

    /// Each folder's favorites in order, as the store holds them: in its join table once favorites
    /// are a many-to-many (`Z_<n>FAVORITES` and its position column), else by the favorite's own key
    /// and position (`ZFAVORITEFOLDER`, `Z_FOK_FAVORITEFOLDER`).
    private func favorites(_ path: String) throws -> [Int64: [Int64]] {
        try DatabaseQueue(path: path).read { db in
            let join = try String.fetchOne(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*FAVORITES'")
            let sql =
                join.map { table in
                    let columns =
                        (try? Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")").map { $0["name"] as String })
                        ?? []
                    let folder = columns.first { $0.hasSuffix("FAVORITEFOLDERS") } ?? ""
                    let favorite =
                        columns.first { $0.hasSuffix("FAVORITES") && !$0.hasPrefix("Z_FOK") && $0 != folder } ?? ""
                    let position = columns.first { $0.hasPrefix("Z_FOK_") } ?? "rowid"
                    return
                        "SELECT \(folder), \(favorite) FROM \"\(table)\" ORDER BY \(folder), \(position), \(favorite)"
                } ?? """
                    SELECT ZFAVORITEFOLDER, Z_PK FROM ZBOOKMARKENTITY WHERE ZFAVORITEFOLDER IS NOT NULL \
                    ORDER BY ZFAVORITEFOLDER, Z_FOK_FAVORITEFOLDER, Z_PK
                    """
            var order: [Int64: [Int64]] = [:]
            for row in try Row.fetchAll(db, sql: sql) { order[row[0], default: []].append(row[1]) }
            return order
        }
    }

    /// Each folder's children in order (`ZPARENT`, `Z_FOK_PARENT`).
    private func children(_ path: String) throws -> [Int64: [Int64]] {
        try DatabaseQueue(path: path).read { db in
            var order: [Int64: [Int64]] = [:]
            for row in try Row.fetchAll(
                db,
                sql: "SELECT ZPARENT, Z_PK FROM ZBOOKMARKENTITY WHERE ZPARENT IS NOT NULL ORDER BY 1, Z_FOK_PARENT, 2")
            {
                order[row[0], default: []].append(row[1])
            }
            return order
        }
    }

    func testEveryStoreMigratesToTheCurrentVersionWithItsFavoritesAndChildrenInOrder() throws {
        let stores = try Self.stores()
        XCTAssertFalse(stores.isEmpty)
        for (store, bundleURL) in stores {
            let bundle = try ModelBundle.read(at: bundleURL)
            let path = try Fixtures.copyStore(store, into: try scratchDirectory()).path
            let (favoritesBefore, childrenBefore) = (try favorites(path), try children(path))
            XCTAssertFalse(favoritesBefore.isEmpty, "\(store.lastPathComponent) has favorites")
            let joinBefore = try rootPage(path, "Z_1FAVORITES")
            let plan = try MigrationPlan.make(store: path, bundle: bundle, strategy: .automatic)
            guard !plan.steps.isEmpty else { continue }
            _ = try MigrationRunner.run(plan, store: path, keepBackup: false)
            XCTAssertEqual(try favorites(path), favoritesBefore, "\(store.lastPathComponent): favorites, in order")
            XCTAssertEqual(try children(path), childrenBefore, "\(store.lastPathComponent): children, in order")
            // Core Data's name for the table, and a table that was already it is kept in place.
            XCTAssertNotNil(try rootPage(path, "Z_1FAVORITES"), "\(store.lastPathComponent): Z_1FAVORITES")
            if let joinBefore {
                XCTAssertEqual(
                    try rootPage(path, "Z_1FAVORITES"), joinBefore, "\(store.lastPathComponent): kept in place")
            }
        }
    }

    private func rootPage(_ path: String, _ table: String) throws -> Int64? {
        try DatabaseQueue(path: path).read {
            try Int64.fetchOne($0, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table])
        }
    }
}
