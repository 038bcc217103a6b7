import Foundation
import ObjectModel
import TestSupport
import XCTest

/// Every real model file in the fixtures loads, and survives a write → read round trip.
final class ModelBundleFixtureTests: FixtureTestCase {
    func testEveryContentsFileLoads() throws {
        let files = Fixtures.files { $0.lastPathComponent == "contents" && $0.path.contains(".xcdatamodel/") }
        XCTAssertGreaterThanOrEqual(files.count, 28)
        for (file, read) in zip(files, files.concurrentMap { try ModelXMLReader.read(contentsOf: $0) }) {
            XCTAssertNoThrow(try read.get(), file.path)
        }
    }

    func testEveryBundleLoadsWithItsCurrentVersion() throws {
        let bundles = Fixtures.files { $0.pathExtension == "xcdatamodeld" }
        XCTAssertGreaterThanOrEqual(bundles.count, 7)
        let current = bundles.concurrentMap { url in
            let bundle = try ModelBundle.read(at: url)
            return bundle.version(named: bundle.currentVersionName) != nil
        }
        for (url, found) in zip(bundles, current) {
            XCTAssertTrue(try found.get(), url.path)
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
        // Each bundle written, read back and compared on its own, as many at once as there are
        // processors; what differs is asserted afterwards on the test's thread.
        let differences = Array(urls.indices).concurrentMap { index -> [String] in
            let original = try ModelBundle.read(at: urls[index])
            let copy = directory.appendingPathComponent("\(index)").appendingPathComponent(
                urls[index].lastPathComponent)
            try original.write(to: copy)
            let reread = try ModelBundle.read(at: copy)
            var differences = reread == original ? [] : ["the bundle read back is not the bundle written"]
            for (before, after) in zip(original.versions, reread.versions) {
                if VersionHash.entityHashes(of: after.model) != VersionHash.entityHashes(of: before.model) {
                    differences.append("\(before.name): entity hashes differ")
                }
                if VersionHash.versionChecksum(of: after.model) != VersionHash.versionChecksum(of: before.model) {
                    differences.append("\(before.name): version checksum differs")
                }
            }
            return differences
        }
        for (url, found) in zip(urls, differences) {
            XCTAssertEqual(try found.get(), [], url.path)
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
