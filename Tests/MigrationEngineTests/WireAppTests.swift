import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import Synchronization
import TestSupport
import XCTest

/// A shipped app's whole history (Wire iOS: 90 model versions, no mapping models) and two of its
/// stores written by Core Data on iOS. The app upgrades every store as Core Data's automatic
/// migration does, straight to the current version; Chrysalis must do the same for a store at any
/// version, keeping every row, link and value Core Data keeps.
///
/// What survives is worked out here independently of the engine, by Core Data's documented rule:
/// entities and properties pair when their renaming identifiers (an unset one being the name)
/// are equal, and an attribute never pairs with a relationship. A paired attribute keeps its
/// values (numbers compared as numbers: Boolean → Integer 32 keeps 1), a new one holds its
/// model default, a paired relationship keeps its links.
final class WireAppTests: FixtureTestCase {
    static let bundleURL = Fixtures.root.appendingPathComponent("wire-ios-data-model/Resources/zmessaging.xcdatamodeld")
    static let storesURL = Fixtures.root.appendingPathComponent("wire-ios-data-model/Tests/Resources")
    private static let bundle = Result { try ModelBundle.read(at: bundleURL) }

    private func wire() throws -> ModelBundle { try Self.bundle.get() }

    func testTheRealStoresCarryTheHashesTheirVersionsCompute() throws {
        let bundle = try wire()
        for (file, name) in [
            ("store2-3.wiredatabase", "zmessaging2.3"), ("store2-90-0.wiredatabase", "zmessaging2.90.0"),
        ] {
            let store = try PersistentStore.open(at: try copyOfStore(file).path)
            XCTAssertEqual(
                try store.metadata().versionHashes, VersionHash.entityHashes(of: try version(bundle, name).model), file)
        }
    }

    /// Every real store the app's tests hold (however many the fixtures have) migrates with no
    /// options, in one inferred step, every row and link kept: `store2-65-0`, whose model no
    /// version of the bundle has, and `store1-24`, older than the bundle's oldest version, from
    /// the model each archived in its Z_MODELCACHE, as Core Data migrates them.
    func testTheRealStoresMigrateStraightToTheCurrentVersion() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.storesURL.path).filter {
            $0.hasSuffix(".wiredatabase")
        }.sorted()
        XCTAssertFalse(files.isEmpty)
        let paths = try files.map { try copyOfStore($0).path }
        var fromOwnModel: [String] = []
        for (file, migrated) in zip(files, try Self.migrated(paths)) {
            let plan = try check(try migrated.get(), label: file)
            if plan?.steps.first?.reason.contains("Z_MODELCACHE") == true { fromOwnModel.append(file) }
        }
        let unmatched = try Fixtures.verification().filter {
            $0.store.path.hasPrefix(Self.storesURL.path) && $0.contents == nil
        }
        XCTAssertEqual(
            fromOwnModel, unmatched.map(\.store.lastPathComponent).sorted(),
            "the stores no version matches migrate from their own model")
    }

    /// A store at every version of the history, with a few rows per entity and many-to-many
    /// links, migrates straight to the current version.
    func testAStoreAtEveryVersionMigratesStraightToTheCurrentVersion() throws {
        let bundle = try wire()
        XCTAssertEqual(bundle.versions.count, 90)
        let sources = bundle.versions.filter { $0.name != bundle.currentVersionName }
        let directory = try scratchDirectory()
        let paths = sources.map { directory.appendingPathComponent("\($0.name).wiredatabase").path }
        let made = Self.concurrently(Array(zip(sources, paths))) { source, path in
            let store = try PersistentStore.create(at: path, model: source.model)
            // 14 per root: two of each of Message's seven concrete entities.
            try DataGenerator(model: source.model, seed: 7).fill(store, rows: 14)
            try store.close()
        }
        for result in made { try result.get() }
        for (source, migrated) in zip(sources, try Self.migrated(paths)) {
            try check(try migrated.get(), label: source.name)
        }
    }

    // MARK: - The check

    /// A store migrated as `migrate` with no options would: its plan, and what it held before
    /// and after (nil where the plan has no step).
    private struct Migrated: Sendable {
        var plan: MigrationPlan
        var before: ObjectSnapshot?, after: ObjectSnapshot?
        var hashes: [String: Data] = [:]
    }

    /// `body` for each of `items`, as many at once as there are processors (each store is its
    /// own); its outcomes in order, checked afterwards on the test's thread.
    private static func concurrently<Item: Sendable, Value: Sendable>(
        _ items: [Item], _ body: @Sendable (Item) throws -> Value
    ) -> [Result<Value, Error>] {
        let outcomes = Mutex([Result<Value, Error>?](repeating: nil, count: items.count))
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            let outcome = Result { try body(items[index]) }
            outcomes.withLock { $0[index] = outcome }
        }
        return outcomes.withLock { $0.compactMap { $0 } }
    }

    /// Each store at `paths` migrated as `migrate` with no options would, concurrently.
    private static func migrated(_ paths: [String]) throws -> [Result<Migrated, Error>] {
        let bundle = try Self.bundle.get()
        return concurrently(paths) { path in
            let plan = try MigrationPlan.make(store: path, bundle: bundle)
            guard let sourceVersion = plan.steps.first?.source else { return Migrated(plan: plan) }
            let before = try ObjectSnapshot.read(path, model: sourceVersion.model)
            _ = try MigrationRunner.run(plan, store: path, keepBackup: false)
            return Migrated(
                plan: plan, before: before, after: try ObjectSnapshot.read(path, model: bundle.current.model),
                hashes: try PersistentStore.open(at: path).metadata().versionHashes)
        }
    }

    /// Compares a migrated store with what it held before, by Core Data's pairing.
    @discardableResult
    private func check(_ migrated: Migrated, label: String, file: StaticString = #filePath, line: UInt = #line)
        throws -> MigrationPlan?
    {
        let bundle = try wire(), plan = migrated.plan
        guard !plan.steps.isEmpty || plan.storeVersion == bundle.currentVersionName else {
            XCTFail("\(label): no step from \(plan.storeVersion)", file: file, line: line)
            return nil
        }
        guard let sourceVersion = plan.steps.first?.source, let before = migrated.before, let after = migrated.after
        else { return plan }
        XCTAssertEqual(plan.steps.count, 1, "\(label): one inferred step", file: file, line: line)
        XCTAssertEqual(plan.steps.first?.kind.name, "lightweight", label, file: file, line: line)
        let current = bundle.current.model
        XCTAssertEqual(migrated.hashes, VersionHash.entityHashes(of: current), label, file: file, line: line)
        let pairing = Pairing(old: sourceVersion.model, new: current)
        for entity in current.entities where !entity.isAbstract {
            let place = "\(label): \(entity.name)"
            guard let origin = pairing.entities[entity.name] else {
                XCTAssertEqual(
                    after.objects[entity.name]?.count ?? 0, 0, "\(place) is new and empty", file: file, line: line)
                continue
            }
            let old = before.objects[origin] ?? [:], new = after.objects[entity.name] ?? [:]
            XCTAssertEqual(Set(new.keys), Set(old.keys), "\(place): the same rows, by key", file: file, line: line)
            let properties = pairing.properties(of: entity.name, from: origin)
            for attribute in current.allAttributes(of: entity) where !attribute.isTransient && !attribute.isDerived {
                let expected: (StoredObject) -> String
                if let from = properties[attribute.name] {
                    expected = { ObjectSnapshot.comparable($0.values[from] ?? .null) }
                } else {
                    let fill = ObjectSnapshot.comparable(ObjectWriter.defaultValue(of: attribute) ?? .null)
                    expected = { _ in fill }
                }
                let differing = old.filter { key, object in
                    new[key].map { ObjectSnapshot.comparable($0.values[attribute.name] ?? .null) } != expected(object)
                }
                XCTAssertTrue(
                    differing.isEmpty,
                    "\(place).\(attribute.name): \(differing.count) rows differ from \(properties[attribute.name] ?? "the default")",
                    file: file, line: line)
            }
            for relationship in current.allRelationships(of: entity) where !relationship.isTransient {
                let from = properties[relationship.name]
                // Positions count only where both versions keep them.
                let ordered =
                    relationship.isOrdered
                    && from.flatMap { name in
                        sourceVersion.model.entity(named: origin).flatMap {
                            sourceVersion.model.relationship(named: name, in: $0)
                        }
                    }?
                    .isOrdered == true
                let links = { (contents: ObjectSnapshot, entity: String, name: String) in
                    (contents.links[entity]?[name] ?? [:]).mapValues { ordered ? $0 : $0.sorted() }
                }
                let now = links(after, entity.name, relationship.name)
                // A new relationship whose inverse existed shows the inverse's links from this side;
                // a to-one keeps the first of several (Wire 2.31 turned `User.memberships` into the
                // to-one `membership`: a user two members pointed at now points at the first).
                let then =
                    from.map { links(before, origin, $0) }
                    ?? pairing.inverseLinks(of: relationship, in: before).filter { old[$0.key] != nil }
                    .mapValues { relationship.isToMany ? $0.sorted() : [$0.min()!] }
                XCTAssertEqual(
                    now, then,
                    "\(place).\(relationship.name): the same links\(from == nil ? " (new: its inverse's)" : "")",
                    file: file, line: line)
            }
        }
        return plan
    }

    private func copyOfStore(_ name: String) throws -> URL {
        try Fixtures.copyStore(Self.storesURL.appendingPathComponent(name), into: try scratchDirectory())
    }
}

/// Core Data's pairing of two versions, as its documentation states it: renaming identifiers,
/// an unset one being the name; never an attribute with a relationship.
private struct Pairing {
    let old: ManagedObjectModel, new: ManagedObjectModel
    /// Destination entity → source entity.
    let entities: [String: String]

    init(old: ManagedObjectModel, new: ManagedObjectModel) {
        self.old = old
        self.new = new
        let byIdentifier = Dictionary(
            old.entities.map { ($0.renamingIdentifier ?? $0.name, $0.name) }, uniquingKeysWith: { first, _ in first })
        entities = Dictionary(
            uniqueKeysWithValues: new.entities.compactMap { entity in
                byIdentifier[entity.renamingIdentifier ?? entity.name].map { (entity.name, $0) }
            })
    }

    /// The links a new relationship has from the start: its inverse's, seen from this side, when
    /// the inverse pairs with a source relationship (keys are kept, so they read across).
    func inverseLinks(of relationship: RelationshipDescription, in before: ObjectSnapshot) -> [Int64: [Int64]] {
        guard let inverseName = relationship.inverseName,
            let target = new.entity(named: relationship.destinationEntityName)
        else { return [:] }
        var result: [Int64: [Int64]] = [:]
        for entity in [target.name]
            + new.entities.filter({ new.ancestors(of: $0).contains { $0.name == target.name } }).map(\.name)
        {
            guard let origin = entities[entity], let from = properties(of: entity, from: origin)[inverseName] else {
                continue
            }
            for (owner, targets) in before.links[origin]?[from] ?? [:] {
                for key in targets { result[key, default: []].append(owner) }
            }
        }
        return result
    }

    /// Destination property → source property, for one pair of entities.
    func properties(of entity: String, from origin: String) -> [String: String] {
        guard let destination = new.entity(named: entity), let source = old.entity(named: origin) else { return [:] }
        func stored(_ model: ManagedObjectModel, _ entity: EntityDescription) -> [(
            property: PropertyDescription, isAttribute: Bool
        )] {
            model.allAttributes(of: entity).filter { !$0.isTransient }.map { ($0.property, true) }
                + model.allRelationships(of: entity).filter { !$0.isTransient }.map { ($0.property, false) }
        }
        let sources = Dictionary(
            stored(old, source).map { ($0.property.renamingIdentifier ?? $0.property.name, $0) },
            uniquingKeysWith: { first, _ in first })
        var result: [String: String] = [:]
        for (property, isAttribute) in stored(new, destination) {
            if let match = sources[property.renamingIdentifier ?? property.name], match.isAttribute == isAttribute {
                result[property.name] = match.property.name
            }
        }
        return result
    }
}
