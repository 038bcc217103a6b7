import Foundation
import TestSupport
import XCTest

/// `chrysalis model`, run as a process on real Xcode files.
final class ModelCommandTests: FixtureTestCase {
    private let sampleModel = ChrysalisRunner.fixtures.appendingPathComponent(
        "CoreDataPlus/Tests/Resources/SampleModel")

    func testJSONHashesEqualTheCompiledBundlesVersionInfo() throws {
        let result = try ChrysalisRunner.run([
            "model", sampleModel.appendingPathComponent("SampleModel.xcdatamodeld").path, "--json",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let versions = try XCTUnwrap(json["versions"] as? [[String: Any]])
        XCTAssertEqual(versions.compactMap { $0["name"] as? String }, ["SampleModel", "SampleModel2", "SampleModel3"])

        let infoData = try Data(
            contentsOf: sampleModel.appendingPathComponent("Fixtures/SampleModel.momd/VersionInfo.plist"))
        let info = try XCTUnwrap(
            try PropertyListSerialization.propertyList(from: infoData, format: nil) as? [String: Any])
        XCTAssertEqual(json["current"] as? String, info["NSManagedObjectModel_CurrentVersionName"] as? String)
        let expected = try XCTUnwrap(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        for version in versions {
            let name = try XCTUnwrap(version["name"] as? String)
            let entities = try XCTUnwrap(version["entities"] as? [[String: Any]])
            var hashes: [String: String] = [:]
            for entity in entities { hashes[entity["name"] as! String] = entity["hash"] as? String }
            XCTAssertEqual(hashes, expected[name]?.mapValues { $0.base64EncodedString() }, name)
            XCTAssertTrue(entities.allSatisfy { $0.keys.contains("parent") && $0["attributes"] is [Any] })
            XCTAssertNotNil(version["digest"] as? String)
            XCTAssertEqual((version["checksum"] as? String)?.count, 44)
        }
        let luxury = try XCTUnwrap(
            (versions[2]["entities"] as? [[String: Any]])?.first { $0["name"] as? String == "LuxuryCar" })
        XCTAssertEqual(luxury["parent"] as? String, "SportCar")
    }

    func testTextListsVersionsWithTheCurrentOneMarked() throws {
        let bundle = ChrysalisRunner.fixtures.appendingPathComponent(
            "objcio-issue-4-core-data-migration/BookMigration/Model.xcdatamodeld")
        let result = try ChrysalisRunner.run(["model", bundle.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("  Model1\n  Model2\n* Model3  (current)\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Book  QAj4tkrjwHQVGdiK0wEeqC4C3pQrvIhRCwPbCZIk7fU="), result.stdout)
        XCTAssertTrue(result.stdout.contains("→ User"), result.stdout)
    }

    func testCompiledBundleDecodesItsMomFiles() throws {
        let compiled = try ChrysalisRunner.run([
            "model", sampleModel.appendingPathComponent("Fixtures/SampleModel.momd").path, "--json",
        ])
        let source = try ChrysalisRunner.run([
            "model", sampleModel.appendingPathComponent("SampleModel.xcdatamodeld").path, "--json",
        ])
        XCTAssertEqual(compiled.status, 0, compiled.stderr)
        func hashes(_ output: String) throws -> [String: String] {
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
            var result: [String: String] = [:]
            for version in json["versions"] as? [[String: Any]] ?? [] {
                for entity in version["entities"] as? [[String: Any]] ?? [] {
                    result["\(version["name"]!)/\(entity["name"]!)"] = entity["hash"] as? String
                }
            }
            return result
        }
        let fromMom = try hashes(compiled.stdout)
        XCTAssertEqual(fromMom.count, 13)
        XCTAssertEqual(fromMom, try hashes(source.stdout))
        XCTAssertTrue(compiled.stdout.contains("\"isLimitedEdition\""), "the .mom's properties are listed")
    }

    func testBadModelFailsWithFileLineAndElement() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("Shop.xcdatamodeld/Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Order">
                    <attribute name="total" attributeType="Money"/>
                </entity>
            </model>
            """.utf8
        ).write(to: version.appendingPathComponent("contents"))
        let result = try ChrysalisRunner.run(["model", directory.appendingPathComponent("Shop.xcdatamodeld").path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(
            result.stderr.contains(
                "Shop.xcdatamodel/contents:4: <attribute name=\"total\"> in entity \"Order\": unknown attributeType \"Money\""
            ),
            result.stderr)
    }

    func testHelpTeaches() throws {
        let result = try ChrysalisRunner.run(["model", "--help"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.contains("NSStoreModelVersionHashes"), result.stdout)
        XCTAssertTrue(result.stdout.contains("--json"), result.stdout)
    }
}
