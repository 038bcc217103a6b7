import Foundation
import TestSupport
import XCTest

/// `chrysalis mapping` on a compiled mapping model (`.cdm`): the same report as its
/// `.xcmappingmodel`, versions named by entity hashes when a bundle is given, and a damaged
/// file refused in one line.
final class CompiledMappingCommandTests: FixtureTestCase {
    static let sample = Fixtures.root.appendingPathComponent("CoreDataPlus/Tests/Resources/SampleModel")
    static let compiled = sample.appendingPathComponent("Fixtures/V2toV3.cdm").path

    private func json(_ arguments: [String]) throws -> [String: Any] {
        let result = try ChrysalisRunner.run(["mapping"] + arguments + ["--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    func testCompiledMappingPrintsItsEntityMappingsInOrder() throws {
        let text = try ChrysalisRunner.run(["mapping", Self.compiled])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(
            text.stdout.hasPrefix(
                "V2toV3: versions known by entity hashes only (give --model to name them), 5 entity mappings in execution order"
            ), text.stdout
        )
        XCTAssertTrue(
            text.stdout.contains(
                #"previousOwners        ⇢ FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToPerson", $source.owner)"#
            ),
            text.stdout)
        XCTAssertTrue(
            text.stdout.contains("createdBy             ⇢ (left unset)"),
            "the compiler left it unset: nothing is inferred")

        let mapping = try json([Self.compiled])
        let entities = try XCTUnwrap(mapping["entityMappings"] as? [[String: Any]])
        XCTAssertEqual(
            entities.compactMap { $0["name"] as? String },
            ["CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar", "Maker"])
        XCTAssertEqual(entities.compactMap { $0["kind"] as? String }, ["custom", "custom", "copy", "custom", "add"])
        XCTAssertEqual(entities[0]["policy"] as? String, "REPLACE_AT_RUNTIME.V2to3MakerPolicy")
        XCTAssertEqual(mapping["source"] as? String, "", "no version names in a .cdm")
        XCTAssertEqual(
            (mapping["sourceEntityHashes"] as? [String: String])?.keys.sorted(),
            ["Car", "LuxuryCar", "Person", "SportCar"])
        let person = try XCTUnwrap(entities[2]["attributes"] as? [[String: Any]])
        XCTAssertEqual(
            person.compactMap { $0["expression"] as? String },
            ["$source.firstName", "$source.lastName", "$source.updatedAt"])
    }

    func testModelNamesTheVersionsByHashes() throws {
        for model in ["SampleModel.xcdatamodeld", "Fixtures/SampleModel.momd"] {
            let mapping = try json([Self.compiled, "--model", Self.sample.appendingPathComponent(model).path])
            XCTAssertEqual(mapping["source"] as? String, "SampleModel2", model)
            XCTAssertEqual(mapping["destination"] as? String, "SampleModel3", model)
            let entities = try XCTUnwrap(mapping["entityMappings"] as? [[String: Any]])
            XCTAssertEqual(entities.count, 5, model)
        }
        let text = try ChrysalisRunner.run([
            "mapping", Self.compiled, "--model", Self.sample.appendingPathComponent("SampleModel.xcdatamodeld").path,
        ])
        XCTAssertTrue(text.stdout.hasPrefix("V2toV3: SampleModel2 → SampleModel3, 5 entity mappings"), text.stdout)
    }

    func testAModelWithoutTheHashedVersionsIsRefused() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A bundle holding only the first version: neither side's hashes fit.
        let bundle = directory.appendingPathComponent("Only.xcdatamodeld/SampleModel.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.sample.appendingPathComponent("SampleModel.xcdatamodeld/SampleModel.xcdatamodel/contents"),
            to: bundle.appendingPathComponent("contents"))
        let result = try ChrysalisRunner.run([
            "mapping", Self.compiled, "--model", bundle.deletingLastPathComponent().path,
        ])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(
            result.stderr.hasPrefix(
                "error: \(Self.compiled): was compiled for models whose entity hashes fit no version"), result.stderr)
        XCTAssertTrue(result.stderr.contains("Fix: "), result.stderr)
    }

    func testDamagedCompiledMappingFailsInOneLine() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.compiled))
        let truncated = directory.appendingPathComponent("Truncated.cdm")
        try bytes.prefix(bytes.count / 2).write(to: truncated)
        let result = try ChrysalisRunner.run(["mapping", truncated.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(
            result.stderr.hasPrefix(
                "error: \(truncated.path): is not a readable compiled mapping model: not a property list. Fix: "),
            result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    }
}
