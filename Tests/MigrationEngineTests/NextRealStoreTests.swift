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
final class NextRealStoreTests: FixtureTestCase {
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
        let steps = try Self.steps(), directory = try scratchDirectory()
        // Each migration on copies of its own, as many at once as there are processors; compared
        // afterwards on the test's thread.
        let outcomes = Array(steps.enumerated()).concurrentMap { index, step in
            try step.migrated(in: directory.appendingPathComponent("\(index)"))
        }
        var compared: [String] = [], verdicts: [String] = []
        for (step, outcome) in zip(steps, outcomes) {
            switch try outcome.get() {
            case .refused(let verdict):
                verdicts.append("\(step.label): \(verdict)")
            case .migrated(let ours, let real, let before):
                compare(ours, real, step.label, before: before)
                compared.append(step.label)
            }
        }
        XCTAssertFalse(compared.isEmpty)
        print(
            "Next real store: \(compared.count) migrations compared with the store Core Data wrote, "
                + "\(verdicts.count) refused as Core Data refuses them:\n" + verdicts.joined(separator: "\n"))
    }

    /// One real store, to be migrated to the version of the folder's next one.
    struct Step: Sendable {
        var bundle: ModelBundle
        var mappings: [MappingModel]
        var store: URL, next: URL
        var target: String
        var label: String { "\(store.lastPathComponent) → \(target) (\(next.lastPathComponent))" }

        enum Outcome: Sendable {
            case refused(String)
            case migrated(ours: SchemaSnapshot, real: SchemaSnapshot, before: SchemaSnapshot)
        }

        /// The store, copied into `directory` and migrated as Core Data's automatic migration
        /// does, with its schema before and the next real store's.
        func migrated(in directory: URL) throws -> Outcome {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = try Fixtures.copyStore(store, into: directory).path
            do {
                let plan = try MigrationPlan.make(
                    store: path, bundle: bundle, mappings: mappings, to: target, strategy: .automatic)
                _ = try MigrationRunner.run(plan, store: path)
            } catch let error as MigrationError where ModelCorpusTests.isCoreDatasVerdict(error) {
                return .refused("\(error)")
            }
            let copies = directory.appendingPathComponent("copies")
            try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
            let real = try SchemaSnapshot.read(try Fixtures.copyStore(next, into: copies).path)
            let originals = directory.appendingPathComponent("originals")
            try FileManager.default.createDirectory(at: originals, withIntermediateDirectories: true)
            let before = try SchemaSnapshot.read(try Fixtures.copyStore(store, into: originals).path)
            return .migrated(ours: try SchemaSnapshot.read(path), real: real, before: before)
        }
    }

    /// Each real store but a folder's last, with the version of the one after it.
    static func steps() throws -> [Step] {
        try histories().flatMap { history -> [Step] in
            // A folder's stores share the bundle of those a version matches.
            guard let bundleURL = history.compactMap(\.bundle).first else { return [] }
            let bundle = try ModelBundle.read(at: bundleURL)
            let mappings = Self.mappings(near: bundleURL)
            return zip(history, history.dropFirst()).compactMap { store, next in
                guard let target = next.version, store.version != target else { return nil }
                return Step(bundle: bundle, mappings: mappings, store: store.url, next: next.url, target: target)
            }
        }
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
