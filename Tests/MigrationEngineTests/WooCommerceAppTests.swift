import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// A second shipped app's whole history (WooCommerce iOS: every version of its model and its
/// mapping model for 9 → 10), migrated the way the app does it: one step per consecutive
/// version, the app's mapping model where it matches by hashes, an inferred mapping elsewhere.
final class WooCommerceAppTests: FixtureTestCase {
    static let folder = Fixtures.root.appendingPathComponent("woocommerce-ios/Storage/Storage/Model")
    private static let bundle = Result {
        try ModelBundle.read(at: folder.appendingPathComponent("WooCommerce.xcdatamodeld"))
    }
    /// Every mapping model of the app the fixtures hold, however many.
    private static let mappings = Result {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".xcmappingmodel") }
            .sorted()
            .map { try XCMappingReader.read(at: folder.appendingPathComponent($0)) }
    }

    /// Every version reads, with hashes of its own, and each mapping model of the app names two
    /// versions of the bundle and resolves against them: every entity and property it maps exists.
    func testEveryVersionReadsAndEachMappingModelResolvesAgainstItsVersions() throws {
        let bundle = try Self.bundle.get()
        let folders = try FileManager.default.contentsOfDirectory(
            atPath: Self.folder.appendingPathComponent("WooCommerce.xcdatamodeld").path
        )
        .filter { $0.hasSuffix(".xcdatamodel") }
        XCTAssertEqual(bundle.versions.count, folders.count)
        XCTAssertTrue(bundle.versions.allSatisfy { !$0.entityHashes.isEmpty })
        let mappings = try Self.mappings.get()
        XCTAssertFalse(mappings.isEmpty)
        for mapping in mappings {
            let source = try XCTUnwrap(bundle.version(named: mapping.sourceVersion), mapping.name)
            let destination = try XCTUnwrap(bundle.version(named: mapping.destinationVersion), mapping.name)
            XCTAssertNoThrow(try mapping.resolved(source: source.model, destination: destination.model), mapping.name)
        }
    }

    /// A store at every version, each migrated step by step to the current version, every
    /// inferred step checked row by row and the mapping step validated, as `chrysalis
    /// check-history --stepwise` does: each step checked once where it starts, and the history
    /// walked whole in chained walks. A version whose way passes a step that needs one of the
    /// app's mapping models the fixtures lack fails there, naming the step; every version after
    /// the last such step migrates.
    func testEveryVersionMigratesStepwiseToTheCurrentVersion() throws {
        let bundle = try Self.bundle.get(), mappings = try Self.mappings.get()
        let names = bundle.versions.map(\.name)
        let check = HistoryCheck(bundle: bundle, mappings: mappings, strategy: .iterative, rows: 4)
        let outcomes = check.run(in: try scratchDirectory())
        XCTAssertEqual(outcomes.map(\.version), names)
        let failures = outcomes.filter { !$0.ok }
        for failure in failures {
            let error = failure.error ?? ""
            XCTAssertTrue(
                error.contains("needs a mapping model") || error.contains("Core Data refuses such a store too"),
                "\(failure.version): \(error)")
        }
        let lastFailure = outcomes.lastIndex { !$0.ok } ?? -1
        XCTAssertLessThan(lastFailure, outcomes.count - 1)
        XCTAssertTrue(outcomes[(lastFailure + 1)...].allSatisfy(\.ok))
        // The versions before the app's own mapping model get through it (and fail later, if at all).
        for mapping in mappings {
            for outcome in outcomes.prefix(
                through: bundle.versions.firstIndex { $0.name == mapping.sourceVersion } ?? 0) where !outcome.ok
            {
                XCTAssertFalse(
                    outcome.error?.contains("\(mapping.sourceVersion) → \(mapping.destinationVersion)") == true,
                    "\(outcome.version): \(outcome.error ?? "")")
            }
        }
        print(
            "WooCommerce stepwise: \(outcomes.count - failures.count) of \(outcomes.count) versions migrate; failing steps: "
                + Set(failures.compactMap(\.failingStep)).sorted().joined(separator: "; "))
        XCTAssertTrue(failures.allSatisfy { $0.failingStep != nil }, "every failure names its step")
    }

    /// What a plan drops is said with its rows in the first step, which plans on the store
    /// itself; a later step's drops, whose rows only the steps before make, say why they have
    /// no count rather than only lacking one (Model 9 to the current version, through the app's
    /// mapping model: step 2's `entity OrderStats removed`).
    func testALaterStepsDropSaysWhyItHasNoCount() throws {
        let bundle = try Self.bundle.get(), mappings = try Self.mappings.get()
        let mapping = try XCTUnwrap(mappings.first, "the premise: the app's mapping model")
        let source = try XCTUnwrap(bundle.version(named: mapping.sourceVersion))
        let path = try scratchDirectory().appendingPathComponent("WooCommerce.sqlite").path
        let store = try PersistentStore.create(at: path, model: source.model)
        try DataGenerator(model: source.model, seed: 3).fill(store, rows: 3)
        try store.close()
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings)
        let later = plan.steps.dropFirst().flatMap(\.findings).filter { $0.hasPrefix("data dropped: ") }
        XCTAssertFalse(later.isEmpty, "the premise: a later step drops data")
        for finding in later {
            XCTAssertTrue(
                finding.contains("rows not counted: the store holds them only once the steps before have run"), finding)
        }
        let first = try XCTUnwrap(plan.steps.first).findings.filter { $0.hasPrefix("data dropped: ") }
        XCTAssertFalse(first.contains { $0.contains("rows not counted") }, "the first step counts: \(first)")
    }
}
