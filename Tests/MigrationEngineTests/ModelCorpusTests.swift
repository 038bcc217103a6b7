import Foundation
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

@testable import MigrationEngine

/// Every model the fixtures hold — three apps' histories and the corpus of public projects,
/// whatever it holds the day it runs — read as Core Data reads it: every bundle reads, a store is
/// made at every version Core Data loads, and every pair of consecutive versions is planned and
/// its inferred steps migrated and checked row by row, or refused with Core Data's own reason.
/// A bundle dropped into the fixtures is tested here without a code change.
final class ModelCorpusTests: FixtureTestCase {
    /// Every model in the fixtures: each `.xcdatamodeld`, and each `.xcdatamodel` outside one.
    static let models: [URL] = Fixtures.files { url in
        url.pathExtension == "xcdatamodeld"
            || (url.pathExtension == "xcdatamodel" && url.deletingLastPathComponent().pathExtension != "xcdatamodeld")
    }

    /// The bundle at `url`, a lone version read as a bundle of one.
    static func read(_ url: URL) throws -> ModelBundle {
        guard let read = bundles[url] else { return try readFile(url) }
        return try read.get()
    }

    /// Every model of ``models``, read once for the four tests (as many at once as there are
    /// processors): each reads every bundle, and the corpus holds hundreds.
    private static let bundles: [URL: Result<ModelBundle, Error>] = {
        let models = ModelCorpusTests.models
        return Dictionary(uniqueKeysWithValues: zip(models, models.concurrentMap(readFile)))
    }()

    private static func readFile(_ url: URL) throws -> ModelBundle {
        guard url.pathExtension == "xcdatamodel" else { return try ModelBundle.read(at: url) }
        let name = url.deletingPathExtension().lastPathComponent
        return ModelBundle(
            name: name, versions: [try ModelBundle.readVersion(at: url, name: name)], currentVersionName: name)
    }

    /// The mapping models of the repository `url` is in (its first folder under the fixtures, or
    /// `corpus/<owner+repo>`); one that does not read fails the test. A step they fit is planned
    /// through them, as the app does.
    /// Read once per repository: reading one decodes the two models Xcode keeps inside it, and a
    /// repository may hold many bundles.
    static func mappings(near url: URL) -> [MappingModel] {
        let repository = repository(of: url)
        return readMappings.value(repository) {
            let enumerator = FileManager.default.enumerator(at: repository, includingPropertiesForKeys: nil)
            return (enumerator?.compactMap { $0 as? URL } ?? []).filter { $0.pathExtension == "xcmappingmodel" }
                .sorted { $0.path < $1.path }.compactMap { file in
                    do { return try XCMappingReader.read(at: file) } catch {
                        // Never dropped silently: a pair planned without it would test another plan.
                        XCTFail("\(file.path): \(error)")
                        return nil
                    }
                }
        }
    }

    private static let readMappings = Memo<URL, [MappingModel]>()

    /// The repository a fixture file is in: its first folder under the fixtures, or
    /// `corpus/<owner+repo>`.
    static func repository(of url: URL) -> URL {
        let parts = url.path.dropFirst(Fixtures.root.path.count + 1).split(separator: "/")
        let depth = parts.first == "corpus" ? 2 : 1
        return Fixtures.root.appendingPathComponent(parts.prefix(depth).joined(separator: "/"))
    }

    /// Every Xcode mapping model in the fixtures reads, and one that fits two versions of a bundle
    /// of its repository, by the hashes of the models it keeps, resolves against them: every
    /// entity, property and value expression it names. One that fits none was made before its
    /// models changed (Core Data would not use it either) and is only counted.
    func testEveryMappingModelReadsAndResolvesAgainstTheVersionsItFits() throws {
        let files = Fixtures.files { $0.pathExtension == "xcmappingmodel" }
        XCTAssertFalse(files.isEmpty)
        // Each file on its own: as many at once as there are processors.
        let verdicts = files.concurrentMap(Self.verdict(on:))
        var resolved = 0, unfit: [String] = [], appCode: [String] = []
        for (file, verdict) in zip(files, verdicts) {
            let name = String(file.path.dropFirst(Fixtures.root.path.count + 1))
            switch try verdict.get() {
            case .resolved: resolved += 1
            case .fitsNoVersion: unfit.append(name)
            case .callsTheAppsCode: appCode.append(name)
            case .failed(let error): XCTFail("\(name): \(error)")
            }
        }
        print(
            "Mapping models: \(files.count) read, \(resolved) resolved against the versions they fit, "
                + "\(appCode.count) calling the app's own code: \(appCode.joined(separator: "; ")); "
                + "\(unfit.count) fit no version of their repository's bundles: \(unfit.joined(separator: "; "))")
    }

    /// What became of one mapping model.
    enum MappingVerdict: Sendable {
        case resolved, fitsNoVersion, callsTheAppsCode
        case failed(String)
    }

    /// The mapping model `file` read, and resolved against the first two versions of a bundle of
    /// its repository it fits.
    static func verdict(on file: URL) -> MappingVerdict {
        let mapping: MappingModel
        do { mapping = try XCMappingReader.read(at: file) } catch { return .failed("\(error)") }
        let repository = repository(of: file)
        let near = models.filter { $0.path.hasPrefix(repository.path + "/") }.compactMap { try? read($0) }
        let fits = near.compactMap { bundle in mapping.resolvingVersions(in: bundle).map { (bundle, $0) } }
        guard let (bundle, found) = fits.first,
            let source = bundle.version(named: found.sourceVersion),
            let destination = bundle.version(named: found.destinationVersion)
        else { return .fitsNoVersion }
        do {
            _ = try found.resolved(source: source.model, destination: destination.model)
            return .resolved
        } catch {
            // A value expression that calls the app's own Objective-C is the app's code, which
            // a policy registered for its entity mapping stands in for.
            guard "\(error)".contains("a class method of the app's, which Chrysalis cannot run") else {
                return .failed("\(found.sourceVersion) → \(found.destinationVersion): \(error)")
            }
            return .callsTheAppsCode
        }
    }

    /// Every model reads, and every version Core Data loads makes a store carrying its hashes:
    /// here, each version no consecutive pair starts from (a bundle's last, a lone version); the
    /// pair test makes the others' stores, through ``HistoryCheck``, which refuses a store
    /// without its version's hashes. A store is made once per version, not twice.
    func testEveryModelReadsAndEveryVersionCoreDataLoadsMakesAStore() throws {
        XCTAssertFalse(Self.models.isEmpty)
        var usable: [(url: URL, version: ModelBundle.Version)] = [], refused: [String] = [], paired = 0
        for url in Self.models {
            let bundle: ModelBundle
            do { bundle = try Self.read(url) } catch {
                XCTFail("\(url.path): \(error)")
                continue
            }
            XCTAssertNotNil(bundle.version(named: bundle.currentVersionName), url.path)
            for (index, version) in bundle.versions.enumerated() {
                if let refusal = version.refusal {
                    refused.append("\(version.name): \(refusal)")
                } else if index + 1 < bundle.versions.count, bundle.versions[index + 1].refusal == nil {
                    paired += 1
                } else {
                    usable.append((url, version))
                }
            }
        }
        let directory = try scratchDirectory()
        let versions = usable
        let outcomes = Outcomes(count: versions.count)
        // Each version's store is its own: as many at once as there are processors.
        DispatchQueue.concurrentPerform(iterations: versions.count) { index in
            let version = versions[index].version
            let path = directory.appendingPathComponent("store-\(index).sqlite").path
            defer { StoreFiles.remove(path) }
            do {
                let store = try PersistentStore.create(at: path, model: version.model)
                try DataGenerator(model: version.model, seed: 5).fill(store, rows: 3)
                try store.close()
                let hashes = try PersistentStore.open(at: path).metadata().versionHashes
                outcomes.set(
                    index,
                    hashes == version.entityHashes
                        ? nil : MigrationError(.verification, "the store does not carry its version's hashes"))
            } catch {
                outcomes.set(index, error)
            }
        }
        for (version, error) in zip(versions, outcomes.errors) {
            if let error { XCTFail("\(version.url.path) \(version.version.name): \(error)") }
        }
        print(
            "Model corpus: \(Self.models.count) models, \(versions.count + paired + refused.count) versions, "
                + "\(versions.count) stores made here and \(paired) by the pair test; "
                + "no store at: \(refused.joined(separator: "; "))")
    }

    /// One step of a bundle's history: a store at `source` migrated to `destination`.
    struct Pair: Sendable {
        var url: URL
        var bundle: ModelBundle
        var mappings: [MappingModel]
        var source: ModelBundle.Version
        var destination: ModelBundle.Version
        var name: String { "\(url.path.dropFirst(Fixtures.root.path.count + 1)) \(source.name) → \(destination.name)" }
    }

    /// What Core Data says of a store it will not migrate, or of a step that needs the app's own
    /// code: outcomes a history may rightly have. Anything else is Chrysalis's failure.
    static func isCoreDatasVerdict(_ error: Error) -> Bool {
        guard let error = error as? MigrationError,
            [.wrongModel, .missingPolicy, .validation, .unmetRequirement].contains(error.kind)
        else { return false }
        return error.message.contains("needs a mapping model")
            || error.message.contains("Core Data refuses such a store too")
            || error.message.contains("custom migration policies are not registered")
            || error.message.contains("which is not registered")
            // Mapping models of one step that map an entity's objects twice over (billmoss's
            // Model4ToModel5-1, -2 and -3 each map every Member): Core Data would make each twice.
            || error.message.contains("they would migrate every instance twice")
    }

    /// Every pair of consecutive versions Core Data loads, of every model in the fixtures (those
    /// whose path contains `CHRYSALIS_CORPUS_ONLY`, when it is set).
    static func pairs() -> [Pair] {
        let only = ProcessInfo.processInfo.environment["CHRYSALIS_CORPUS_ONLY"]
        return models.filter { only.map($0.path.contains) ?? true }.flatMap { url -> [Pair] in
            guard let bundle = try? read(url), bundle.versions.count > 1 else { return [] }
            let mappings = Self.mappings(near: url)
            return zip(bundle.versions, bundle.versions.dropFirst()).compactMap { source, destination in
                source.refusal == nil && destination.refusal == nil
                    ? Pair(url: url, bundle: bundle, mappings: mappings, source: source, destination: destination) : nil
            }
        }
    }

    func testEveryConsecutivePairMigratesOrIsRefusedWithCoreDatasReason() throws {
        let directory = try scratchDirectory()
        let pairs = Self.pairs()
        XCTAssertFalse(pairs.isEmpty)
        let outcomes = Outcomes(count: pairs.count)
        // Each pair's store is its own: as many at once as there are processors.
        DispatchQueue.concurrentPerform(iterations: pairs.count) { index in
            let pair = pairs[index]
            let check = HistoryCheck(
                bundle: pair.bundle, mappings: pair.mappings, strategy: .progressive, rows: 4,
                target: pair.destination.name)
            let path = directory.appendingPathComponent("pair-\(index).sqlite").path
            defer { StoreFiles.remove(path) }
            do {
                _ = try check.check(pair.source, at: path)
                outcomes.set(index, nil)
            } catch {
                outcomes.set(index, error)
            }
        }
        var migrated = 0, verdicts: [String] = [], generated: [String] = []
        for (pair, error) in zip(pairs, outcomes.errors) {
            guard let error else { migrated += 1; continue }
            if Self.isCoreDatasVerdict(error) {
                verdicts.append("\(pair.name): \(error)")
            } else if (error as? MigrationError)?.kind == .generatedData {
                // The generator could not make a store its model allows: said apart, never a step's failure.
                generated.append("\(pair.name): \(error)")
            } else {
                XCTFail("\(pair.name): \(error)")
            }
        }
        print(
            "Model corpus: \(pairs.count) consecutive pairs, \(migrated) migrated and checked, \(verdicts.count) refused as Core Data refuses them "
                + "or needing the app's own code, \(generated.count) with generated data their model forbids:\n"
                + (verdicts + generated).joined(separator: "\n"))
    }
}

extension ModelCorpusTests {
    /// A store at any version of a bundle, and the bundle's current version: Core Data's automatic
    /// migration takes it there whichever came first, so versions are a set here, never a list.
    struct Upgrade: Sendable {
        var url: URL
        var bundle: ModelBundle
        var mappings: [MappingModel]
        var source: ModelBundle.Version
        var name: String {
            "\(url.path.dropFirst(Fixtures.root.path.count + 1)) \(source.name) → \(bundle.currentVersionName)"
        }
    }

    /// Every version Core Data loads of every model in the fixtures, but the current one, with
    /// the bundle (those whose path contains `CHRYSALIS_CORPUS_ONLY`, when it is set).
    static func upgrades() -> [Upgrade] {
        let only = ProcessInfo.processInfo.environment["CHRYSALIS_CORPUS_ONLY"]
        return models.filter { only.map($0.path.contains) ?? true }.flatMap { url -> [Upgrade] in
            guard let bundle = try? read(url), let current = bundle.version(named: bundle.currentVersionName),
                current.refusal == nil
            else { return [] }
            let mappings = Self.mappings(near: url)
            return bundle.versions.filter { $0.name != current.name && $0.refusal == nil }.map {
                Upgrade(url: url, bundle: bundle, mappings: mappings, source: $0)
            }
        }
    }

    /// Every store of the corpus at a version other than the current one plans to the current
    /// version, as Core Data's automatic migration would take it, or is refused naming each change
    /// that needs a mapping model: never for the order of versions, never for anything else.
    func testEveryVersionPlansToTheCurrentOneOrNamesWhatNeedsAMappingModel() throws {
        let directory = try scratchDirectory()
        let upgrades = Self.upgrades()
        XCTAssertFalse(upgrades.isEmpty)
        let outcomes = Outcomes(count: upgrades.count)
        let targets = Outcomes(count: upgrades.count)
        DispatchQueue.concurrentPerform(iterations: upgrades.count) { index in
            let upgrade = upgrades[index]
            let path = directory.appendingPathComponent("upgrade-\(index).sqlite").path
            defer { StoreFiles.remove(path) }
            do {
                try PersistentStore.create(at: path, model: upgrade.source.model).close()
                let plan = try MigrationPlan.make(
                    store: path, bundle: upgrade.bundle, mappings: upgrade.mappings, strategy: .automatic)
                targets.set(
                    index,
                    plan.targetVersion == upgrade.bundle.currentVersionName
                        || upgrade.bundle.version(named: plan.targetVersion)?.entityHashes
                            == upgrade.bundle.version(named: upgrade.bundle.currentVersionName)?.entityHashes
                        ? nil : MigrationError(.verification, "planned to \(plan.targetVersion)"))
            } catch {
                outcomes.set(index, error)
            }
        }
        var planned = 0, refused: [String] = []
        for (index, upgrade) in upgrades.enumerated() {
            if let wrong = targets.errors[index] { XCTFail("\(upgrade.name): \(wrong)") }
            guard let error = outcomes.errors[index] else {
                planned += 1
                continue
            }
            // Core Data's verdict, naming each change that cannot be inferred and the fix: a
            // mapping model for the pair.
            if let error = error as? MigrationError, error.kind == .wrongModel,
                error.fix?.hasPrefix("write a mapping model for ") == true,
                let changes = error.message.components(separatedBy: "one cannot be inferred (").dropFirst().first?
                    .components(separatedBy: "); Core Data says").first, !changes.isEmpty
            {
                refused.append("\(upgrade.name): \(changes)")
            } else {
                XCTFail("\(upgrade.name): \(error)")
            }
        }
        print(
            "Model corpus: \(upgrades.count) versions other than the current one, \(planned) planned to it, "
                + "\(refused.count) needing a mapping model:\n" + refused.joined(separator: "\n"))
    }
}

/// Values worked out once per key, from any thread.
private final class Memo<Key: Hashable, Value>: @unchecked Sendable {
    private var values: [Key: Value] = [:]
    private let lock = NSLock()
    func value(_ key: Key, _ make: () -> Value) -> Value {
        if let found = lock.withLock({ values[key] }) { return found }
        let made = make()
        lock.withLock { values[key] = made }
        return made
    }
}

/// Errors of concurrent checks, by index.
private final class Outcomes: @unchecked Sendable {
    private var slots: [Error?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ error: Error?) { lock.withLock { slots[index] = error } }
    var errors: [Error?] { lock.withLock { slots } }
}
