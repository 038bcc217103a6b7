import Foundation
import TestSupport
import XCTest

/// A shipped app's compiled mapping models are found as Core Data finds them: by the entity
/// hashes a `.cdm` stores, anywhere in an app bundle, and one that fits no step of this plan is
/// listed as unused, never refused.
final class MappingSelectionTests: FixtureTestCase {
    private let sample = Fixtures.root.appendingPathComponent("CoreDataPlus/Tests/Resources/SampleModel")
    private var bundle: String { sample.appendingPathComponent("SampleModel.xcdatamodeld").path }

    /// A store and an app bundle holding the compiled `V2toV3.cdm` in a fresh folder.
    private func setUp(store name: String) throws -> (store: URL, app: URL) {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let resources = directory.appendingPathComponent("App.app/Contents/Resources")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: sample.appendingPathComponent("Fixtures/V2toV3.cdm"), to: resources.appendingPathComponent("V2toV3.cdm")
        )
        let store = try Fixtures.copyStore(sample.appendingPathComponent("Fixtures/\(name)"), into: directory)
        return (store, directory.appendingPathComponent("App.app"))
    }

    /// The `.cdm` names no version: its hashes put it on the step SampleModel2 → SampleModel3. Its
    /// entity mappings name the app's own policy (V2to3MakerPolicy), which this build does not
    /// register, so `plan` refuses before anything runs, naming the policy and the step.
    func testAnAppBundlesCompiledMappingIsFoundByItsHashes() throws {
        let (store, app) = try setUp(store: "SampleModel_V2.sqlite")
        let before = try Data(contentsOf: store)
        let result = try ChrysalisRunner.run([
            "plan", store.path, "--model", bundle, "--mappings", app.path, "--to", "SampleModel3",
        ])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(
            result.stderr.contains(
                "V2toV3: CarToCar names REPLACE_AT_RUNTIME.V2to3MakerPolicy (step SampleModel2 → SampleModel3)"),
            result.stderr)
        // Where the store stands comes before the fix, as a migration error words its state.
        XCTAssertTrue(result.stderr.contains("the store was not changed. Fix: build a command line"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: store), before)
    }

    func testAMappingBeyondTheTargetIsNotedNotRefused() throws {
        let (store, app) = try setUp(store: "SampleModel_V1.sqlite")
        let cdm = app.appendingPathComponent("Contents/Resources/V2toV3.cdm").path
        let result = try ChrysalisRunner.run([
            "plan", store.path, "--model", bundle, "--mappings", cdm, "--to", "SampleModel2",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("1. SampleModel → SampleModel2  [lightweight]"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains("V2toV3 maps SampleModel2 → SampleModel3, beyond the target SampleModel2: not used"),
            result.stdout)
    }

    func testAMappingOfAnotherBundleIsRefusedWhenNamedAndListedFromAFolder() throws {
        let (store, app) = try setUp(store: "SampleModel_V1.sqlite")
        let other = Fixtures.root.appendingPathComponent("wire-ios-data-model/Resources/zmessaging.xcdatamodeld").path
        let wire = try Fixtures.copyStore(
            Fixtures.root.appendingPathComponent("wire-ios-data-model/Tests/Resources/store2-90-0.wiredatabase"),
            into: store.deletingLastPathComponent())
        let named = try ChrysalisRunner.run([
            "plan", wire.path, "--model", other, "--mappings",
            app.appendingPathComponent("Contents/Resources/V2toV3.cdm").path,
        ])
        XCTAssertEqual(named.status, 1)
        XCTAssertTrue(named.stderr.contains("mapping V2toV3 fits no version of this model bundle"), named.stderr)
        let found = try ChrysalisRunner.run(["plan", wire.path, "--model", other, "--mappings", app.path])
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertTrue(
            found.stdout.contains("V2toV3 fits no version of zmessaging (its entity hashes match none)"), found.stdout)
    }
}
