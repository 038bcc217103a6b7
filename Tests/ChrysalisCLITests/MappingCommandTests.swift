import Foundation
import Synchronization
import TestSupport
import XCTest

/// `chrysalis mapping` on every real Xcode mapping model and on the demos' YAML files.
final class MappingCommandTests: FixtureTestCase {
    private func json(_ arguments: [String]) throws -> [String: Any] {
        let result = try ChrysalisRunner.run(["mapping"] + arguments + ["--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    func testEveryXcodeMappingModelLoads() throws {
        // Every mapping model the fixtures hold, however many: each folder Xcode writes holds one xcmapping.xml.
        let files = Fixtures.files { $0.pathExtension == "xcmappingmodel" }
        XCTAssertEqual(files.count, Fixtures.files { $0.lastPathComponent == "xcmapping.xml" }.count)
        XCTAssertFalse(files.isEmpty)
        // Each file's own process, as many at once as there are processors; checked in order.
        let runs = Mutex([Result<ChrysalisRunner.Result, Error>?](repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let run = Result { try ChrysalisRunner.run(["mapping", files[index].path, "--json"]) }
            runs.withLock { $0[index] = run }
        }
        for (file, run) in zip(files, runs.withLock { $0 }) {
            let result = try XCTUnwrap(run).get()
            XCTAssertEqual(result.status, 0, result.stderr)
            let mapping = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
            let entities = try XCTUnwrap(mapping["entityMappings"] as? [[String: Any]], file.path)
            XCTAssertFalse(entities.isEmpty, file.path)
            XCTAssertEqual(entities.compactMap { $0["order"] as? Int }, Array(1...entities.count), file.path)
            XCTAssertNotNil(mapping["source"] as? String)
        }
    }

    /// Core Data finds a mapping model by the hashes of the models Xcode keeps inside it: VLC's
    /// 2.5 → 2.6 names a destination renamed since (`MediaLibrary-2.5.2`) and fits 2.6; a mapping
    /// made before its destination model changed (Fearless's `SubstrateV2Mapping`) fits nothing.
    func testXcodeMappingModelsAreFoundByTheirModelsHashes() throws {
        let vlc = try XCTUnwrap(
            Fixtures.files { $0.lastPathComponent == "MappingModel_2_5_to_2_6.xcmappingmodel" }.first)
        let bundle = vlc.deletingLastPathComponent().appendingPathComponent("MediaLibrary.xcdatamodeld")
        let result = try ChrysalisRunner.run(["mapping", vlc.path, "--model", bundle.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.hasPrefix("MappingModel_2_5_to_2_6: MediaLibrary-2.5 → MediaLibrary-2.6"), result.stdout)
        XCTAssertTrue(result.stderr.contains("names MediaLibrary-2.5 → MediaLibrary-2.5.2"), result.stderr)
        let stale = try XCTUnwrap(Fixtures.files { $0.lastPathComponent == "SubstrateV2Mapping.xcmappingmodel" }.first)
        let substrate = try XCTUnwrap(
            Fixtures.files { $0.lastPathComponent == "SubstrateDataModel.xcdatamodeld" && $0.path.contains("fearless") }
                .first)
        let refused = try ChrysalisRunner.run(["mapping", stale.path, "--model", substrate.path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("fit no version of the bundle"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("Refresh Data Models"), refused.stderr)
    }

    func testLiveMappingsInMappingNumberOrder() throws {
        let file = Fixtures.root.appendingPathComponent(
            "objcio-issue-4-core-data-migration/BookMigration/Model2_to_Model3.xcmappingmodel")
        let entities = try XCTUnwrap(try json([file.path])["entityMappings"] as? [[String: Any]])
        XCTAssertEqual(
            entities.compactMap { $0["name"] as? String }, ["File", "BookToBook", "AuthorToAuthor"],
            "the orphaned User mapping is left out")
        XCTAssertEqual(entities[1]["policy"] as? String, "MHWBookToBookPolicy")
        XCTAssertEqual(entities[1]["userInfo"] as? [String: String], ["modelVersion": "3"])
        XCTAssertEqual(entities.compactMap { $0["kind"] as? String }, ["add", "custom", "copy"])
    }

    func testArchivedExpressionsAreDecoded() throws {
        let file = Fixtures.root.appendingPathComponent(
            "CoreDataPlus/Tests/Resources/SampleModel/MappingModels/V2toV3.xcmappingmodel")
        let text = try ChrysalisRunner.run(["mapping", file.path])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(
            text.stdout.contains(
                #"previousOwners        ⇢ FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToPerson", $source.owner)"#
            ),
            text.stdout)
        let wibosco = Fixtures.files { $0.lastPathComponent == "Migration1to2.xcmappingmodel" }[0]
        let mapping = try json([wibosco.path])
        let attributes = (mapping["entityMappings"] as? [[String: Any]])?.first?["attributes"] as? [[String: Any]]
        XCTAssertEqual(
            attributes?.first { $0["name"] as? String == "hexColor" }?["expression"] as? String, "$source.color")
    }

    func testYAMLResolvedAgainstItsBundle() throws {
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Sources/Demo/Resources")
        let mapping = try json([
            resources.appendingPathComponent("Mappings/Groceries3To4.mapping.yaml").path,
            "--model", resources.appendingPathComponent("Groceries.xcdatamodeld").path,
        ])
        let entities = try XCTUnwrap(mapping["entityMappings"] as? [[String: Any]])
        XCTAssertEqual(entities.compactMap { $0["name"] as? String }, ["ItemToItem", "AmountToUnit"])
        XCTAssertEqual(entities.compactMap { $0["kind"] as? String }, ["copy", "transform"])
        let item = try XCTUnwrap(entities[0]["attributes"] as? [[String: Any]])
        XCTAssertEqual(
            item.compactMap { $0["expression"] as? String }, ["$source.name", "$source.quantity"],
            "inferred from the models")
    }

    func testBadMappingFileFailsWithItsLine() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Broken.mapping.yaml")
        try Data(
            """
            source: Model 3
            destination: Model 4
            entityMappings:
              - source: Amount
                destination: Unit
                attributes:
                  name: $source.xyz *
            """.utf8
        ).write(to: file)
        let result = try ChrysalisRunner.run(["mapping", file.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(
            result.stderr.hasPrefix(
                "error: \(file.path):7: AmountToUnit.name: column 14 of \"$source.xyz *\": expected a value"),
            result.stderr)
    }
}
