import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Every real store the fixtures hold, migrated as Core Data's automatic migration does to the
/// version of the app's next real store, is the store Core Data wrote there: the same tables, each
/// with the same columns, and at least its indexes. The stores Core Data wrote are the ground truth;
/// comparing with them, not reading the result through Chrysalis, is what finds a layout Chrysalis
/// forgives itself. The app's releases are in its stores' names (`store2-48-0`, `Bookmarks_V4`),
/// which order each folder's stores; a store dropped into the fixtures is tried without a code change.
final class NextRealStoreTests: XCTestCase {
    /// One real store and the bundle version it is at (nil: no version has its hashes).
    struct RealStore {
        var url: URL
        var bundle: URL?
        var version: String?
    }

    /// The real stores of each bundle, in the order of the app's releases as their names give it.
    static func histories() throws -> [[RealStore]] {
        var byFolder: [String: [RealStore]] = [:]
        for entry in try Fixtures.verification() {
            let folder = entry.store.deletingLastPathComponent().path
            let bundle = entry.contents.map(Fixtures.bundle(of:))
            let version = entry.contents.map {
                $0.deletingLastPathComponent().deletingPathExtension().lastPathComponent
            }
            byFolder[folder, default: []].append(RealStore(url: entry.store, bundle: bundle, version: version))
        }
        return byFolder.values.map { stores in
            stores.sorted {
                $0.url.lastPathComponent.compare($1.url.lastPathComponent, options: .numeric) == .orderedAscending
            }
        }
    }

    /// The mapping models of the repository `url` is in, as `ModelCorpusTests` finds them.
    static func mappings(near url: URL) -> [MappingModel] { ModelCorpusTests.mappings(near: url) }

    func testEveryRealStoreMigratedToTheNextStoresVersionIsThatStore() throws {
        var compared: [String] = [], verdicts: [String] = []
        for history in try Self.histories() {
            // A folder's stores share the bundle of those a version matches.
            guard let bundleURL = history.compactMap(\.bundle).first else { continue }
            let bundle = try ModelBundle.read(at: bundleURL)
            let mappings = Self.mappings(near: bundleURL)
            for (store, next) in zip(history, history.dropFirst()) {
                guard let target = next.version, store.version != target else { continue }
                let label = "\(store.url.lastPathComponent) → \(target) (\(next.url.lastPathComponent))"
                let path = try Fixtures.copyStore(store.url, into: try scratchDirectory()).path
                do {
                    let plan = try MigrationPlan.make(
                        store: path, bundle: bundle, mappings: mappings, to: target, strategy: .automatic)
                    _ = try MigrationRunner.run(plan, store: path)
                } catch let error as MigrationError where ModelCorpusTests.isCoreDatasVerdict(error) {
                    verdicts.append("\(label): \(error)")
                    continue
                }
                let real = try SchemaSnapshot.read(try Fixtures.copyStore(next.url, into: try scratchDirectory()).path)
                let before = try SchemaSnapshot.read(
                    try Fixtures.copyStore(store.url, into: try scratchDirectory()).path)
                compare(try SchemaSnapshot.read(path), real, label, before: before)
                compared.append(label)
            }
        }
        XCTAssertFalse(compared.isEmpty)
        print(
            "Next real store: \(compared.count) migrations compared with the store Core Data wrote, "
                + "\(verdicts.count) refused as Core Data refuses them:\n" + verdicts.joined(separator: "\n"))
    }

    /// Ours has Core Data's tables and each one's columns, and every index Core Data's store has,
    /// by name and columns, but those a store keeps from its own history: an index left under a
    /// join table's older name (`Z_14ADDEDUSERS_Z_22ADDEDUSERS_INDEX` on `Z_16ADDEDUSERS`), a name
    /// of an era before framework 847 (`ZUSER_ZNORMALIZEDNAME_INDEX`), or a copy of one ours has
    /// under a subentity's name: each of those covers columns an index of ours covers.
    private func compare(_ ours: SchemaSnapshot, _ real: SchemaSnapshot, _ label: String, before: SchemaSnapshot) {
        let ignored: Set<String> = ["Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"]
        let theirTables = Set(real.tables.keys).subtracting(ignored)
        XCTAssertEqual(Set(ours.tables.keys).subtracting(ignored).sorted(), theirTables.sorted(), "\(label): tables")
        for table in theirTables.sorted() where ours.tables[table] != nil {
            XCTAssertEqual(ours.tables[table], real.tables[table], "\(label): columns of \(table)")
        }
        // A join table's key is compared as a set: one Core Data renamed in place keeps its columns
        // in the order it was made with.
        let ourIndexes = Set(ours.indexes.map { "\($0.name) \($0.setShape)" })
        let missing = real.indexes.filter { index in
            !ignored.contains(index.table) && !ourIndexes.contains("\(index.name) \(index.setShape)")
                && !index.isLeftover(of: real, beside: ours)
        }
        XCTAssertEqual(missing.map(\.description).sorted(), [], "\(label): Core Data's indexes missing")
        // An index the store had and Core Data's next store still has, under its name, was kept:
        // Core Data never drops one from a table it keeps. A Core Data before framework 847 that
        // made a new store (a mapping model's step, Moody's) named its indexes as that era did,
        // and Chrysalis, making one, names them as today's does: the columns are what count there.
        let ourShapes = Set(ours.indexes.map(\.setShape))
        let kept = real.indexes.filter { index in
            before.indexes.contains { $0.name == index.name && $0.setShape == index.setShape }
                && !ourIndexes.contains("\(index.name) \(index.setShape)")
                && !(real.framework < 847 && ourShapes.contains(index.setShape))
        }
        XCTAssertEqual(kept.map(\.description).sorted(), [], "\(label): indexes Core Data kept, dropped")
    }
}

extension SchemaSnapshot.Index {
    /// What the index covers, its columns as a set: a join table Core Data renamed in place keeps
    /// its key in the order it was made with.
    var setShape: String { "\(isUnique ? "UNIQUE " : "")\(table)(\(columns.sorted().joined(separator: ",")))" }

    /// Whether Core Data left this index in `store` from the store's own history, covering what an
    /// index of `ours` covers: named for a join table's older name (`Z_14ADDEDUSERS_…` on
    /// `Z_16ADDEDUSERS`), in the era before framework 847 (`ZUSER_ZNORMALIZEDNAME_INDEX`, and any
    /// name in a store of that era), or for a subentity (`Z_TextMessage_destructionDate` beside
    /// `Z_Message_destructionDate`, the migrations of frameworks 865 and 866).
    func isLeftover(of store: SchemaSnapshot, beside ours: SchemaSnapshot) -> Bool {
        let twins = ours.indexes.filter { $0.setShape == setShape }
        guard !twins.isEmpty else { return false }
        // That era also made a uniqueness constraint a table constraint (SQLite's autoindex).
        if store.framework < 847 { return true }
        guard !name.hasPrefix("sqlite_autoindex_") else { return false }
        // A join table's own index is named for the column it leads with.
        if table.hasPrefix("Z_"), table.dropFirst(2).first?.isNumber == true {
            let leading = columns.first.map { String($0.prefix { $0 != " " }) } ?? ""
            return name != "\(table)_\(leading)_INDEX"
        }
        if name.hasPrefix(table + "_Z") { return true }
        let attribute = { (name: String) in name.split(separator: "_").last.map(String.init) ?? name }
        return name.hasPrefix("Z_")
            && twins.contains { $0.name.hasPrefix("Z_") && attribute($0.name) == attribute(name) }
    }
}
