import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import Testing

/// Each of Core Data's migration strategies, on two shipped apps' histories with their own
/// mapping models: what Core Data's automatic migration does and refuses, and what an app's
/// iterative migrator does (WordPress's and WooCommerce's `CoreDataIterativeMigrator`). The
/// expectations are derived from the fixtures: every mapping model the apps ship is tried.
/// Swift Testing runs its walks at once, beside the other suites: each plans on one core.
@Suite(.fixtures) struct StrategyTests {
    /// This suite's stores, removed when it ends.
    private let scratch: ScratchFolders

    init() throws { scratch = try ScratchFolders() }

    private struct App {
        let bundle: ModelBundle
        let mappings: [MappingModel]
    }

    private static let wordPress = Result {
        let folder = Fixtures.root.appendingPathComponent("wordpress-ios/WordPress/Classes")
        let mappings = folder.appendingPathComponent("Utility/Migrations")
        return App(
            bundle: try ModelBundle.read(at: folder.appendingPathComponent("WordPress.xcdatamodeld")),
            mappings: try FileManager.default.contentsOfDirectory(atPath: mappings.path).filter {
                $0.hasSuffix(".xcmappingmodel")
            }.sorted()
                .map { try XCMappingReader.read(at: mappings.appendingPathComponent($0)) })
    }

    private static let wooCommerce = Result {
        let folder = Fixtures.root.appendingPathComponent("woocommerce-ios/Storage/Storage/Model")
        return App(
            bundle: try ModelBundle.read(at: folder.appendingPathComponent("WooCommerce.xcdatamodeld")),
            mappings: try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasSuffix(".xcmappingmodel")
            }.sorted()
                .map { try XCMappingReader.read(at: folder.appendingPathComponent($0)) })
    }

    /// A store at `version` with `rows` generated rows per root entity: planning reads its hashes,
    /// and the rows a first step's requirements check.
    private func store(at version: ModelBundle.Version, rows: Int = 0) throws -> String {
        let path = try scratch.make().appendingPathComponent("App.sqlite").path
        let store = try PersistentStore.create(at: path, model: version.model)
        if rows > 0 { try DataGenerator(model: version.model).fill(store, rows: rows) }
        try store.close()
        return path
    }

    private func version(_ bundle: ModelBundle, _ name: String) throws -> ModelBundle.Version {
        try #require(bundle.version(named: name), "no version \(name)")
    }

    private func described(_ plan: MigrationPlan) -> [String] {
        plan.steps.map { "\($0.source.name) → \($0.destination.name) [\($0.kind.name)]" }
    }

    /// Core Data's automatic migration takes a mapping model made for exactly the store's model
    /// and the target, found by hashes: for each of the apps' mapping models, a store at its
    /// source migrates to its destination in that one step, as each app's own tests expect.
    @Test func automaticRunsTheMappingModelMadeForExactlyThePair() throws {
        for app in [try Self.wordPress.get(), try Self.wooCommerce.get()] {
            #expect(!app.mappings.isEmpty)
            for mapping in app.mappings {
                let source = try version(app.bundle, mapping.sourceVersion)
                let plan = try MigrationPlan.make(
                    store: try store(at: source), bundle: app.bundle, mappings: app.mappings,
                    to: mapping.destinationVersion, strategy: .automatic)
                #expect(
                    described(plan) == ["\(mapping.sourceVersion) → \(mapping.destinationVersion) [mapping]"],
                    "\(mapping.name)")
                #expect(
                    plan.steps[0].reason.hasPrefix("automatic: mapping model \(mapping.name) is for exactly this pair"),
                    "\(plan.steps[0].reason)")
            }
        }
    }

    /// Core Data's automatic migration never chains: a store one version before a mapping model's
    /// source, with every mapping model at hand, is inferred straight to the mapping's
    /// destination or refused; the iterative migrator takes a step to the mapping's source, then
    /// the mapping model. WordPress 19 with the 20 → 21 mapping model is the apps' own case.
    @Test func automaticNeverChainsWhereAnIterativeMigratorDoes() throws {
        let app = try Self.wordPress.get()
        var refused: [String] = []
        for mapping in app.mappings {
            let source = try version(app.bundle, mapping.sourceVersion)
            guard let index = app.bundle.versions.firstIndex(of: source), index > 0 else { continue }
            // The version before, with hashes of its own (a store at one sharing them is at the mapping's source already).
            guard let before = app.bundle.versions[..<index].last(where: { $0.entityHashes != source.entityHashes }),
                app.bundle.versions[app.bundle.versions.firstIndex(of: before)! + 1].entityHashes == source.entityHashes
            else { continue }
            let path = try store(at: before, rows: 3)
            do {
                let plan = try MigrationPlan.make(
                    store: path, bundle: app.bundle, mappings: app.mappings, to: mapping.destinationVersion,
                    strategy: .automatic)
                #expect(
                    described(plan) == ["\(before.name) → \(mapping.destinationVersion) [lightweight]"],
                    "\(mapping.name): one inferred step, no chain")
            } catch let error as MigrationError {
                // Refused as Core Data refuses it: no mapping model for the pair and no inference, or rows inference cannot carry.
                #expect(error.message.contains("refuses"), "\(mapping.name): \(error)")
                refused.append(mapping.name)
            }
            for strategy in [MigrationStrategy.iterative, .progressive] {
                let plan = try MigrationPlan.make(
                    store: path, bundle: app.bundle, mappings: app.mappings, to: mapping.destinationVersion,
                    strategy: strategy)
                #expect(
                    plan.steps.last.map { "\($0.kind.name) \($0.destination.name)" }
                        == "mapping \(mapping.destinationVersion)", "\(strategy) \(mapping.name)")
                #expect(plan.steps.count > 1, "\(strategy) \(mapping.name): a step to the mapping's source first")
            }
        }
        #expect(refused.contains("WordPress-20-21"), "WordPress 19 → 21 is refused automatically: \(refused)")
    }

    /// The iterative migrator visits every version with hashes of its own, from the first to the
    /// current one: one step per consecutive pair, the app's mapping model where one is for the
    /// pair. A pair that needs a mapping model the fixtures lack is refused, naming that pair, and
    /// the walk goes on from its end.
    @Test func iterativeTakesOneStepPerConsecutivePair() throws {
        for app in [try Self.wordPress.get(), try Self.wooCommerce.get()] {
            let versions = app.bundle.versions
            let first = try #require(versions.first { !$0.entityHashes.isEmpty && $0.refusal == nil })
            var expected: [String] = [], at = first
            for next in versions[(versions.firstIndex(of: first)! + 1)...] where next.entityHashes != at.entityHashes {
                // A mapping model made from another version with the same hashes runs from that version.
                let mapping = app.mappings.first {
                    $0.destinationVersion == next.name
                        && app.bundle.version(named: $0.sourceVersion)?.entityHashes == at.entityHashes
                }
                expected.append(
                    mapping.map { "\($0.sourceVersion) → \(next.name) [mapping]" } ?? "\(at.name) → \(next.name)")
                at = next
            }
            var walked: [String] = [], start = first
            while start.name != at.name {
                do {
                    let plan = try MigrationPlan.make(
                        store: try store(at: start), bundle: app.bundle, mappings: app.mappings, to: at.name,
                        strategy: .iterative)
                    walked += plan.steps.map {
                        "\($0.source.name) → \($0.destination.name)\($0.kind.name == "mapping" ? " [mapping]" : "")"
                    }
                    break
                } catch let error as MigrationError {
                    let pair = try #require(error.step, "\(error)")
                    walked.append(pair)
                    start = try version(app.bundle, String(try #require(pair.components(separatedBy: " → ").last)))
                }
            }
            #expect(walked == expected, "\(app.bundle.name)")
        }
    }
}
