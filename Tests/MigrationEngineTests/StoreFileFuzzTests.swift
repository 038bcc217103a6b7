import Demo
import Foundation
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

@testable import MigrationEngine

/// Hostile store files: every real store of the fixtures and every demo's starting store,
/// mutated (``Mutator/mutateStore(_:other:into:)``: the metadata plist, `Z_PRIMARYKEY`,
/// `Z_MODELCACHE`, values of the wrong storage class, the SQLite header, pages, sidecars) and
/// run through what `chrysalis inspect`, `chrysalis plan` and `chrysalis migrate --dry-run` do.
/// Each must end in a result or in the code's own error with a message a person can read; none
/// may crash or hang, inspect and plan must leave the store's bytes as they were, and every
/// inferred step of a dry run must keep every row, value and link (``InferredStepRecorder``).
///
/// `CHRYSALIS_FUZZ_INPUTS=100000 swift test --filter StoreFileFuzzTests` is the full run.
final class StoreFileFuzzTests: FixtureTestCase {
    /// A store to mutate with what the commands need beside it.
    struct Subject {
        var seed: StoreSeed
        /// The model bundle the store belongs to; nil when no bundle in the fixtures has its version
        /// (inspect then reads its own model from `Z_MODELCACHE`, and plan and migrate are skipped).
        var bundle: ModelBundle?
        var mappings: [MappingModel] = []
        var policies = PolicyRegistry()
    }

    static let subjects: [Subject] = {
        do { return try fixtureSubjects() + demoSubjects() } catch {
            XCTFail("could not read the seeds: \(error)")
            return []
        }
    }()

    static func fixtureSubjects() throws -> [Subject] {
        let scratch = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let pairs = try Fixtures.verifiedPairs()
        var bundles: [URL: ModelBundle] = [:]
        return try Fixtures.stores.map { store in
            let bundleURL = pairs.first { $0.store.path == store.path }.map { Fixtures.bundle(of: $0.contents) }
            var bundle: ModelBundle?
            if let bundleURL {
                bundle = try bundles[bundleURL] ?? ModelBundle.read(at: bundleURL)
                bundles[bundleURL] = bundle
            }
            return Subject(seed: try StoreSeed(copying: store, scratch: scratch), bundle: bundle)
        }
    }

    /// Each demo's starting store, made as `chrysalis demo` makes it, with its mapping models and policies.
    static func demoSubjects() throws -> [Subject] {
        let scratch = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        return try DemoCatalog.all.map { demo in
            let bundle = try demo.bundle()
            let version = try XCTUnwrap(bundle.versions.first { $0.name == demo.startVersion })
            let path = scratch.appendingPathComponent("\(demo.storeName).sqlite")
            try demo.makeStore(path.path, version)
            return Subject(
                seed: try StoreSeed(copying: path, scratch: scratch), bundle: bundle, mappings: try demo.mappings(),
                policies: DemoResources.policies)
        }
    }

    /// The three commands on `store`; the errors they threw, in order.
    static func commands(on store: URL, _ subject: Subject) throws -> [Error] {
        var errors: [Error] = []
        let before = try Data(contentsOf: store)
        do { _ = try StoreInspection.inspect(store.path, bundle: subject.bundle) } catch { errors.append(error) }
        guard let bundle = subject.bundle else { return errors }
        do { _ = try MigrationPlan.make(store: store.path, bundle: bundle, mappings: subject.mappings) } catch {
            errors.append(error)
        }
        guard try Data(contentsOf: store) == before else { return errors + [Changed()] }
        do { try dryRun(store, subject, bundle: bundle) } catch { errors.append(error) }
        return errors
    }

    /// What `chrysalis migrate --dry-run` does (MigrateCommand, DryRunCopy): a private copy with
    /// its `-wal` and `-journal`, its unfinished transaction rolled back, planned and migrated.
    static func dryRun(_ store: URL, _ subject: Subject, bundle: ModelBundle) throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent(store.lastPathComponent).path
        for suffix in ["", "-wal", "-journal"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: copy + suffix)
        }
        try PersistentStore.recoverInterruptedTransaction(at: copy)
        let plan = try MigrationPlan.make(store: copy, bundle: bundle, mappings: subject.mappings)
        try plan.requirePolicies(subject.policies)
        // What was written, not only how the command ended: every inferred step's rows, values
        // and links are compared with the store before it (mapping steps validate themselves).
        var options = MigrationOptions(policies: subject.policies)
        if let first = plan.steps.first {
            let recorder = InferredStepRecorder(before: try ObjectSnapshot.read(copy, model: first.source.model))
            options.afterStep = { try recorder.check($0) }
        }
        _ = try MigrationRunner.run(plan, store: copy, options: options, keepBackup: false)
    }

    /// Inspect or plan wrote to the store they only read.
    struct Changed: Error, CustomStringConvertible {
        var description: String { "inspect or plan changed the store's bytes" }
    }

    static func isExpected(_ error: Error) -> Bool {
        // A step that lost a value is the engine's failure, whatever the input.
        if "\(error)".contains("did not keep what Core Data keeps") { return false }
        return error is StoreError || error is ModelFileError || error is MigrationError
    }

    func testStoreFilesSurviveMutants() throws {
        let subjects = Self.subjects
        XCTAssertGreaterThanOrEqual(subjects.count, 24, "every real store and every demo store is a seed")
        let report = try Fuzz.runStores(
            "StoreFile", seeds: subjects.map(\.seed), seed: 0x5354_4F52_4546_494C,
            count: Fuzz.inputCount(default: 60),
            body: { store, index in
                try Self.commands(on: store, subjects[index])
            }, isExpected: Self.isExpected)
        XCTAssertTrue(report.failures.isEmpty, report.failures.joined(separator: "\n"))
        XCTAssertGreaterThan(report.accepted, 0)
    }
}
