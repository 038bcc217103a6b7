import Foundation
import ObjectModel
import Synchronization
import TestSupport
import XCTest

/// Every real model file in the fixtures loads, and survives a write → read round trip.
final class ModelBundleFixtureTests: XCTestCase {
    func testEveryContentsFileLoads() throws {
        let files = Fixtures.files { $0.lastPathComponent == "contents" && $0.path.contains(".xcdatamodel/") }
        XCTAssertGreaterThanOrEqual(files.count, 28)
        for file in files {
            XCTAssertNoThrow(try ModelXMLReader.read(contentsOf: file), file.path)
        }
    }

    func testEveryBundleLoadsWithItsCurrentVersion() throws {
        let bundles = Fixtures.files { $0.pathExtension == "xcdatamodeld" }
        XCTAssertGreaterThanOrEqual(bundles.count, 7)
        for url in bundles {
            let bundle = try ModelBundle.read(at: url)
            XCTAssertNotNil(bundle.version(named: bundle.currentVersionName), url.path)
        }
        let objcio = try ModelBundle.read(
            at: Fixtures.root.appendingPathComponent(
                "objcio-issue-4-core-data-migration/BookMigration/Model.xcdatamodeld"))
        XCTAssertEqual(objcio.versions.map(\.name), ["Model1", "Model2", "Model3"])
        XCTAssertEqual(objcio.currentVersionName, "Model3")
        let wibosco = try ModelBundle.read(
            at: Fixtures.root.appendingPathComponent(
                "wibosco-CoreDataMigration-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld"
            ))
        XCTAssertEqual(
            wibosco.versions.map(\.name),
            [
                "CoreDataMigration_Example", "CoreDataMigration_Example 2",
                "CoreDataMigration_Example 3", "CoreDataMigration_Example 4",
            ])
    }

    func testWriteThenReadGivesAnEqualBundleWithEqualHashes() throws {
        let directory = try Fixtures.temporaryDirectory(for: self)
        let urls = Fixtures.files(where: { $0.pathExtension == "xcdatamodeld" })
        // Each bundle written and read back on its own, as many at once as there are
        // processors; compared afterwards on the test's thread.
        let read = Mutex([Result<(ModelBundle, ModelBundle), Error>?](repeating: nil, count: urls.count))
        DispatchQueue.concurrentPerform(iterations: urls.count) { index in
            let outcome = Result {
                let original = try ModelBundle.read(at: urls[index])
                let copy = directory.appendingPathComponent("\(index)").appendingPathComponent(
                    urls[index].lastPathComponent)
                try original.write(to: copy)
                return (original, try ModelBundle.read(at: copy))
            }
            read.withLock { $0[index] = outcome }
        }
        for (url, outcome) in zip(urls, read.withLock { $0 }) {
            let (original, reread) = try XCTUnwrap(outcome).get()
            XCTAssertEqual(reread, original, url.path)
            for (before, after) in zip(original.versions, reread.versions) {
                XCTAssertEqual(VersionHash.entityHashes(of: after.model), VersionHash.entityHashes(of: before.model))
                XCTAssertEqual(
                    VersionHash.versionChecksum(of: after.model), VersionHash.versionChecksum(of: before.model))
            }
        }
    }

    func testInheritanceThreeLevelsDeep() throws {
        let bundle = try ModelBundle.read(
            at: Fixtures.root.appendingPathComponent(
                "CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld"))
        let model = try XCTUnwrap(bundle.version(named: "SampleModel3")).model
        let luxury = try XCTUnwrap(model.entity(named: "LuxuryCar"))
        XCTAssertEqual(model.ancestors(of: luxury).map(\.name), ["SportCar", "Car"])
        XCTAssertEqual(model.rootEntity(of: luxury).name, "Car")
        XCTAssertEqual(luxury.renamingIdentifier, "ExpensiveSportCar")
        XCTAssertEqual(
            model.allAttributes(of: luxury).map(\.name),
            ["markedForDeletionAsOf", "model", "numberPlate", "isLimitedEdition"])
        XCTAssertEqual(model.allRelationships(of: luxury).map(\.name), ["createdBy", "owner", "previousOwners"])
        XCTAssertEqual(model.subentities(of: try XCTUnwrap(model.entity(named: "Car"))).map(\.name), ["SportCar"])
        XCTAssertEqual(try XCTUnwrap(model.entity(named: "Person")).uniquenessConstraints, [["firstName", "lastName"]])
    }
}
