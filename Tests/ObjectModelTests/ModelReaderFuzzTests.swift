import Foundation
import ObjectModel
import TestSupport
import XCTest

/// Hostile model files: every mutant of a real `.xcdatamodel/contents` or compiled `.mom` must
/// be read or refused with a ``ModelFileError`` that says something, never crash or hang.
///
/// `CHRYSALIS_FUZZ_INPUTS=100000 swift test --filter ModelReaderFuzzTests` is the full run; the
/// default is small enough for every `swift test`.
final class ModelReaderFuzzTests: FixtureTestCase {
    static let xmlTokens = [
        "<", ">", "</", "/>", "\"", "'", "&", "&amp;", "&#0;", "&#x10FFFF;", "&undefined;", "<![CDATA[", "]]>", "<!--",
        "-->",
        "<?xml version=\"1.0\"?>", "<entity name=\"E\">", "</entity>", "<entity name=\"E\" parentEntity=\"E\"/>",
        "<attribute name=\"a\" attributeType=\"Integer 64\"/>", "<attribute name=\"a\"/>",
        "<relationship name=\"r\" destinationEntity=\"E\" inverseName=\"r\" inverseEntity=\"E\" toMany=\"YES\"/>",
        " minCount=\"99999999999999999999\"", " maxCount=\"-1\"", " attributeType=\"Bogus\"", " parentEntity=\"Book\"",
        " derived=\"YES\"", "<model>", "<elements>", "<a>", "<userInfo><entry key=\"k\" value=\"v\"/></userInfo>",
        "<fetchedProperty name=\"f\"/>", "<fetchIndex name=\"i\"><fetchIndexElement property=\"nope\"/></fetchIndex>",
        "<uniquenessConstraints><uniquenessConstraint><constraint value=\"x\"/></uniquenessConstraint></uniquenessConstraints>",
        "<configuration name=\"C\"><memberEntity name=\"Nope\"/></configuration>", " xmlns:x=\"urn:x\" x:a=\"1\"",
        "<!DOCTYPE model SYSTEM \"file:///etc/passwd\">",
    ]

    /// Entity expansion ("billion laughs"): ten levels of ten, about 10^10 characters if expanded.
    static let entityBomb: String = {
        var lines = ["<!ENTITY l0 \"lol\">"]
        for level in 1...9 {
            lines.append("<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">")
        }
        return "<!DOCTYPE model [" + lines.joined() + "]>\n"
    }()

    func testModelXMLReaderSurvivesMutants() throws {
        let seeds = FuzzSeeds.contents(
            of: FuzzSeeds.files { $0.lastPathComponent == "contents" && $0.path.contains(".xcdatamodel/") })
        XCTAssertGreaterThan(seeds.count, 20, "the fixtures' model versions are the seeds")
        let report = Fuzz.run(
            "ModelXMLReader", seeds: seeds, seed: 0x4D4F_4445_4C58_4D4C, tokens: Self.xmlTokens,
            count: Fuzz.inputCount(default: 300),
            mutate: { mutator, a, b in
                if mutator.chance(0.03) { mutator.log.append("entityBomb"); return Self.withEntityBomb(seeds[a]) }
                return mutator.mutate(seeds[a], other: seeds[b])
            },
            body: { input in
                let model = try ModelXMLReader.read(Data(input), file: "Fuzz.xcdatamodel/contents")
                // What `chrysalis model` does next with a model it accepted.
                _ = VersionHash.entityHashes(of: model)
                _ = VersionHash.versionChecksum(of: model)
            }, isExpected: { $0 is ModelFileError })
        XCTAssertTrue(report.failures.isEmpty, report.failures.joined(separator: "\n"))
        XCTAssertGreaterThan(report.rejected, 0, "the mutants must exercise the error paths")
    }

    func testCompiledModelReaderSurvivesMutants() throws {
        let moms = FuzzSeeds.contents(of: FuzzSeeds.files { $0.pathExtension == "mom" })
        let embedded = FuzzSeeds.contents(of: FuzzSeeds.files { $0.lastPathComponent == "xcmapping.xml" })
            .flatMap { FuzzSeeds.binaryAttributes(named: ["sourcemodeldata", "destinationmodeldata"], in: $0) }
        let seeds = FuzzSeeds.unique(moms + embedded)
        let trees = seeds.map(BinaryPlist.decode)
        XCTAssertGreaterThan(moms.count, 3)
        XCTAssertGreaterThan(embedded.count, 3)
        let report = Fuzz.run(
            "ArchivedModelReader", seeds: seeds, seed: 0x4D4F_4D41_5243_4856, tokens: ["$null", "NSEntities"],
            count: Fuzz.inputCount(default: 60),
            mutate: { mutator, a, b in
                guard let tree = trees[a] else { return mutator.mutate(seeds[a], other: seeds[b]) }
                return mutator.mutateArchive(tree, other: trees[b], bytes: seeds[a], otherBytes: seeds[b])
            },
            body: { input in
                let model = try ArchivedModelReader.read(Data(input), source: "Fuzz.mom")
                _ = VersionHash.entityHashes(of: model)
            }, isExpected: { $0 is ModelFileError })
        XCTAssertTrue(report.failures.isEmpty, report.failures.joined(separator: "\n"))
        XCTAssertGreaterThan(report.accepted, 0, "the seeds are models")
        XCTAssertGreaterThan(report.rejected, 0, "the mutants must exercise the error paths")
    }

    /// Found by the fuzzer: a byte 0xFF inside an attribute name made Foundation's XMLParser
    /// trap in its start-element callback. Invalid UTF-8 is now refused before parsing, with
    /// its line and column.
    func testInvalidUTF8IsAnErrorWithItsPlaceNotACrash() {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model>\n    <entity na".utf8)
        bytes += [0xFF] + Array("e=\"A\"/>\n</model>\n".utf8)
        XCTAssertThrowsError(try ModelXMLReader.read(Data(bytes), file: "Bad.xcdatamodel/contents")) { error in
            let error = error as? ModelFileError
            XCTAssertEqual(error?.line, 3)
            XCTAssertEqual(
                error?.problem.hasPrefix("malformed XML at column 15: not UTF-8 text"), true,
                "\(String(describing: error))")
        }
        for invalid: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            let data = Data(Array("<model><entity name=\"".utf8) + invalid + Array("\"/></model>".utf8))
            XCTAssertThrowsError(try ModelXMLReader.read(data, file: "Bad.xcdatamodel/contents"), "\(invalid)")
        }
        let accented = Data("<model><entity name=\"Caf\u{E9}\u{1F98B}\"/></model>".utf8)
        XCTAssertEqual(
            try ModelXMLReader.read(accented, file: "Good.xcdatamodel/contents").entities.map(\.name),
            ["Caf\u{E9}\u{1F98B}"])
    }

    /// `input` with a DOCTYPE declaring the entity bomb and a reference to it in the first name.
    static func withEntityBomb(_ input: [UInt8]) -> [UInt8] {
        var text = String(decoding: input, as: UTF8.self)
        if let root = text.range(of: "<model") { text.insert(contentsOf: entityBomb, at: root.lowerBound) }
        if let name = text.range(of: "name=\"") { text.insert(contentsOf: "&l9;", at: name.upperBound) }
        return Array(text.utf8)
    }
}
