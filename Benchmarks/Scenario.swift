import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore

/// One benchmark: a source store, the Chrysalis migration of it, and hand-written SQL that
/// produces the same destination — the physical limit Chrysalis is measured against.
struct Scenario: Sendable {
    let name: String
    let summary: String
    /// Issue 32's goal for the scenario at 1M rows per root entity: what `--check` holds it to.
    let goal: Goal
    /// Creates the source store at the path with the given rows per root entity.
    let prepare: @Sendable (String, Int) throws -> Void
    /// Migrates the store at the path with Chrysalis.
    let chrysalis: @Sendable (String) throws -> Void
    /// Does the same work on the store at the path with hand-written SQL.
    let baseline: @Sendable (String) throws -> Void

    /// The scenarios that time Chrysalis against SQL, in order.
    static let all: [Scenario] = [
        addAttribute, addAttributeManyToMany, renameAndRequire, compiledTransform, customPolicy, relationships,
        wholeChain, policyLookups,
        rebuildOrdered, rebuildToMany, rebuildManyToMany, rebuildType,
    ]

    /// How fast a scenario must be: within a ratio of its hand-written SQL, or (where the SQL
    /// itself takes milliseconds and the ratio says only how small they are) within a time.
    enum Goal: Sendable, CustomStringConvertible {
        case ratio(Double), seconds(Double)

        /// Whether a run with these medians meets the goal.
        func isMet(chrysalis: Double, ratio: Double) -> Bool {
            switch self {
            case .ratio(let most): ratio <= most
            case .seconds(let most): chrysalis <= most
            }
        }

        var description: String {
            switch self {
            case .ratio(let most): String(format: "≤ %.2f×", most)
            case .seconds(let most):
                most >= 1 ? String(format: "≤ %.0f s", most) : String(format: "≤ %.0f ms", most * 1000)
            }
        }
    }

    /// A store of `version` of `bundle` filled by the fixture generator with `rows` per root entity.
    static func makeStore(at path: String, bundle: URL, version: String, rows: Int) throws {
        let bundle = try ModelBundle.read(at: bundle)
        guard let model = bundle.version(named: version)?.model else {
            throw BenchError("\(bundle.name) has no version \(version)")
        }
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: rows)
        try store.close()
    }

    /// Migrates the store at `path` to `version` the way `chrysalis migrate --no-backup` does.
    static func migrate(_ path: String, bundle: URL, to version: String, mappings: [MappingModel] = []) throws {
        let bundle = try ModelBundle.read(at: bundle)
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings, to: version)
        _ = try MigrationRunner.run(
            plan, store: path,
            options: MigrationOptions(policies: DemoResources.policies, configureManager: BookStoreSynopsis.install),
            keepBackup: false)
    }

    /// The model of one version of a bundle.
    static func model(_ bundle: URL, _ version: String) throws -> ManagedObjectModel {
        guard let model = try ModelBundle.read(at: bundle).version(named: version)?.model else {
            throw BenchError("no version \(version) in \(bundle.path)")
        }
        return model
    }
}

/// The benchmark's own model bundles and mapping files (BookStore comes from the demo).
enum BenchResources {
    static var shelf: URL { models.appendingPathComponent("Shelf.xcdatamodeld") }
    static var library: URL { models.appendingPathComponent("Library.xcdatamodeld") }
    static var rebuild: URL { models.appendingPathComponent("Rebuild.xcdatamodeld") }
    static var bookStore: URL { DemoResources.bookStoreBundle }

    static func mapping(_ name: String) throws -> MappingModel {
        try MappingYAMLReader.read(at: models.appendingPathComponent("Mappings/\(name).mapping.yaml"))
    }

    static func demoMapping(_ name: String) throws -> MappingModel { try DemoResources.mapping(name) }

    private static var models: URL { Bundle.module.resourceURL!.appendingPathComponent("Models") }
}

/// A benchmark that cannot run or whose two destinations differ.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
