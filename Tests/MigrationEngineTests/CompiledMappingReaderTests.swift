import Foundation
import MigrationEngine
import ObjectModel
import TestSupport
import XCTest

/// The compiled mapping model `V2toV3.cdm` against the `.xcmappingmodel` it was compiled from,
/// its versions found by entity hashes, and damaged `.cdm` files refused with a `MappingError`.
final class CompiledMappingReaderTests: FixtureTestCase {
    static let sample = Fixtures.root.appendingPathComponent("CoreDataPlus/Tests/Resources/SampleModel")
    static let compiled = sample.appendingPathComponent("Fixtures/V2toV3.cdm")
    static let source = sample.appendingPathComponent("MappingModels/V2toV3.xcmappingmodel")
    static let bundle = sample.appendingPathComponent("SampleModel.xcdatamodeld")

    /// The value expressions Xcode's mapping compiler wrote where the editor's file has none
    /// ("Auto Generate Value Expression"): the `.cdm` is what Core Data runs, so it carries them.
    /// Every other property mapping is identical in both files.
    static let compilerDefaults: [String: String] = {
        let owner =
            #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToPerson", $source.owner)"#
        var defaults: [String: String] = [
            "PersonToPerson.firstName": "$source.firstName", "PersonToPerson.lastName": "$source.lastName",
            "PersonToPerson.updatedAt": "$source.updatedAt",
            // Not the EntityMappingNamed form that Chrysalis infers: the compiler names the source relationship.
            "PersonToPerson.cars":
                #"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "cars", $source.cars)"#,
        ]
        for car in ["CarToCar", "LuxuryCarToLuxuryCar", "SportCarToSportCar"] {
            for attribute in ["markedForDeletionAsOf", "model", "numberPlate"] {
                defaults["\(car).\(attribute)"] = "$source.\(attribute)"
            }
            defaults["\(car).owner"] = owner
        }
        defaults["LuxuryCarToLuxuryCar.isLimitedEdition"] = "$source.isLimitedEdition"
        // Left nil by the compiler too: createdBy (V2 has no source relationship), Maker's (an add has no $source).
        return defaults
    }()

    func testMatchesTheXcodeMappingModelItWasCompiledFrom() throws {
        let cdm = try CompiledMappingReader.read(at: Self.compiled)
        let xcode = try XCMappingReader.read(at: Self.source)
        XCTAssertEqual(cdm.name, "V2toV3")
        XCTAssertEqual(cdm.file, Self.compiled.path)
        XCTAssertEqual(
            cdm.entityMappings.map(\.name),
            ["CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar", "Maker"])
        XCTAssertEqual(cdm.entityMappings.map(\.name), xcode.entityMappings.map(\.name), "execution order")
        var defaultsSeen = 0
        for (compiled, edited) in zip(cdm.entityMappings, xcode.entityMappings) {
            XCTAssertEqual(compiled.kind, edited.kind, compiled.name)
            XCTAssertEqual(compiled.sourceEntity, edited.sourceEntity, compiled.name)
            XCTAssertEqual(compiled.destinationEntity, edited.destinationEntity, compiled.name)
            XCTAssertEqual(compiled.policyName, edited.policyName, compiled.name)
            XCTAssertEqual(compiled.userInfo, edited.userInfo, compiled.name)
            XCTAssertEqual(
                compiled.filter, edited.filter, "TRUEPREDICATE in the source fetch is no filter: \(compiled.name)")
            for (side, pairs) in [
                ("attributes", (compiled.attributeMappings, edited.attributeMappings)),
                ("relationships", (compiled.relationshipMappings, edited.relationshipMappings)),
            ] {
                XCTAssertEqual(pairs.0.map(\.name), pairs.1.map(\.name), "\(compiled.name) \(side)")
                for (property, original) in zip(pairs.0, pairs.1) {
                    let key = "\(compiled.name).\(property.name)"
                    XCTAssertEqual(property.userInfo, original.userInfo, key)
                    if original.expression == nil, let filled = Self.compilerDefaults[key] {
                        XCTAssertEqual(property.expression, try ExpressionParser.expression(filled), key)
                        defaultsSeen += 1
                    } else {
                        XCTAssertEqual(property.expression, original.expression, key)
                    }
                }
            }
        }
        XCTAssertEqual(defaultsSeen, Self.compilerDefaults.count, "every compiler default is where it was expected")
        XCTAssertEqual(
            cdm.entityMappings.map(\.kind), [.custom, .custom, .copy, .custom, .add], "NSMappingType as stored")
    }

    func testVersionsAreFoundByEntityHashes() throws {
        let cdm = try CompiledMappingReader.read(at: Self.compiled)
        XCTAssertEqual(cdm.sourceVersion, MappingModel.unresolvedVersion)
        XCTAssertEqual(cdm.destinationVersion, MappingModel.unresolvedVersion)
        XCTAssertEqual(cdm.sourceEntityHashes?.keys.sorted(), ["Car", "LuxuryCar", "Person", "SportCar"])
        XCTAssertEqual(cdm.destinationEntityHashes?.keys.sorted(), ["Car", "LuxuryCar", "Maker", "Person", "SportCar"])
        XCTAssertTrue(
            (cdm.sourceEntityHashes!.values.map(\.count) + cdm.destinationEntityHashes!.values.map(\.count)).allSatisfy
            { $0 == 32 })

        let bundle = try ModelBundle.read(at: Self.bundle)
        XCTAssertEqual(bundle.versions.map(\.name).sorted(), ["SampleModel", "SampleModel2", "SampleModel3"])
        let named = try XCTUnwrap(cdm.resolvingVersions(in: bundle))
        XCTAssertEqual([named.sourceVersion, named.destinationVersion], ["SampleModel2", "SampleModel3"])
        let xcode = try XCMappingReader.read(at: Self.source)
        XCTAssertEqual(
            [named.sourceVersion, named.destinationVersion], [xcode.sourceVersion, xcode.destinationVersion])

        let compiledBundle = try XCTUnwrap(
            try CompiledModelBundle.read(at: Self.sample.appendingPathComponent("Fixtures/SampleModel.momd"))
                .modelBundle)
        XCTAssertEqual(
            cdm.resolvingVersions(in: compiledBundle).map { [$0.sourceVersion, $0.destinationVersion] },
            ["SampleModel2", "SampleModel3"])

        let withoutV3 = ModelBundle(
            name: "SampleModel", versions: bundle.versions.filter { $0.name != "SampleModel3" },
            currentVersionName: "SampleModel2")
        XCTAssertNil(cdm.resolvingVersions(in: withoutV3), "no version has the destination hashes")
        XCTAssertEqual(xcode.resolvingVersions(in: bundle), xcode, "a mapping that names its versions keeps them")
        XCTAssertNil(xcode.resolvingVersions(in: withoutV3))
    }

    func testResolvedItMatchesTheResolvedXcodeMappingBarOneRelationship() throws {
        let bundle = try ModelBundle.read(at: Self.bundle)
        let cdm = try XCTUnwrap(try CompiledMappingReader.read(at: Self.compiled).resolvingVersions(in: bundle))
        let xcode = try XCMappingReader.read(at: Self.source)
        let (source, destination) = (
            try XCTUnwrap(bundle.version(named: "SampleModel2")).model,
            try XCTUnwrap(bundle.version(named: "SampleModel3")).model
        )
        let compiled = try cdm.resolved(source: source, destination: destination)
        let edited = try xcode.resolved(source: source, destination: destination)
        var differing: [String] = []
        for (lhs, rhs) in zip(compiled.entityMappings, edited.entityMappings) {
            XCTAssertEqual(lhs.propertyMappings.map(\.name), rhs.propertyMappings.map(\.name), lhs.name)
            for (a, b) in zip(lhs.propertyMappings, rhs.propertyMappings) where a.expression != b.expression {
                differing.append("\(lhs.name).\(a.name)")
            }
        }
        // Person.cars: Chrysalis infers the CarToCar mapping; Xcode's compiler names the source
        // relationship instead. Both give each person's migrated cars.
        XCTAssertEqual(differing, ["PersonToPerson.cars"])
    }

    // MARK: Hostile input

    private func assertRefused(
        _ data: Data, _ label: String, mentions: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) {
        let url = URL(fileURLWithPath: "/tmp/hostile/\(label).cdm")
        XCTAssertThrowsError(try CompiledMappingReader.read(data, file: url), label, file: file, line: line) { error in
            guard let error = error as? MappingError else {
                return XCTFail("\(label): \(type(of: error)): \(error)", file: file, line: line)
            }
            XCTAssertEqual(error.file, url.path, label, file: file, line: line)
            XCTAssertNotNil(error.fix, "\(label): \(error)", file: file, line: line)
            if let mentions {
                XCTAssertTrue(error.description.contains(mentions), "\(label): \(error)", file: file, line: line)
            }
        }
    }

    func testTruncatedRandomAndForeignFilesAreRefused() throws {
        let bytes = try Data(contentsOf: Self.compiled)
        for length in [0, 1, 8, 40, bytes.count / 2, bytes.count - 33, bytes.count - 1] {
            assertRefused(bytes.prefix(length), "truncated-\(length)")
        }
        var rng = SplitMix64(seed: 0xCD3)
        for index in 0..<20 {
            let random = Data(
                (0..<Int.random(in: 1..<4096, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            assertRefused(random, "random-\(index)")
        }
        var bplist = Data("bplist00".utf8)
        bplist.append(Data((0..<200).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        assertRefused(bplist, "random-bplist")
        let plain = try PropertyListSerialization.data(
            fromPropertyList: ["NSEntityMappings": [1, 2]], format: .binary, options: 0)
        assertRefused(plain, "not-an-archive", mentions: "not a keyed archive")
        let model = try Data(
            contentsOf: Self.sample.appendingPathComponent("Fixtures/SampleModel.momd/SampleModel2.mom"))
        assertRefused(model, "a-model", mentions: "holds a NSManagedObjectModel, not an NSMappingModel")

        XCTAssertThrowsError(try CompiledMappingReader.read(at: URL(fileURLWithPath: "/nonexistent/V9.cdm"))) { error in
            XCTAssertEqual((error as? MappingError)?.problem, "does not exist")
        }
        XCTAssertThrowsError(try CompiledMappingReader.read(at: Self.sample)) { error in
            XCTAssertEqual((error as? MappingError)?.problem, "is a folder, not a compiled mapping model")
        }
    }

    /// The fixture with `$objects` edited; the indices are those of `V2toV3.cdm` (3 is CarToCar,
    /// 1 the NSMappingModel, 6 CarToCar's source hash, 18 the `TRUEPREDICATE` string).
    private func mutated(_ edit: (inout [PlistNode]) -> Void) throws -> Data {
        let tree = try XCTUnwrap(BinaryPlist.decode(Array(try Data(contentsOf: Self.compiled))))
        guard case .dict(let keys, var values) = tree,
            let slot = keys.firstIndex(where: { if case .string("$objects") = $0 { true } else { false } }),
            case .array(var objects) = values[slot]
        else {
            XCTFail("V2toV3.cdm is not a keyed archive with $objects")
            throw CocoaError(.fileReadCorruptFile)
        }
        edit(&objects)
        values[slot] = .array(objects)
        return Data(BinaryPlist.encode(.dict(keys, values)))
    }

    private func set(_ key: String, _ value: PlistNode, in object: inout PlistNode) {
        guard case .dict(var keys, var values) = object else { return }
        if let index = keys.firstIndex(where: { if case .string(key) = $0 { true } else { false } }) {
            values[index] = value
        } else {
            keys.append(.string(key))
            values.append(value)
        }
        object = .dict(keys, values)
    }

    func testMutatedArchivesAreRefused() throws {
        XCTAssertEqual(
            try CompiledMappingReader.read(try mutated { _ in }, file: Self.compiled),
            try CompiledMappingReader.read(at: Self.compiled),
            "the test's plist writer round-trips the fixture")
        let cases: [(String, String, (inout [PlistNode]) -> Void)] = [
            ("mapping-type", "unknown NSMappingType 99", { self.set("NSMappingType", .int(99), in: &$0[3]) }),
            ("short-hash", "is 4 bytes, not 32", { $0[6] = .data([1, 2, 3, 4]) }),
            (
                "no-hash", "has no NSSourceEntityVersionHash",
                { self.set("NSSourceEntityVersionHash", .uid(0), in: &$0[3]) }
            ),
            (
                "add-without-destination", "of kind add but has no destination entity",
                {
                    self.set("NSMappingType", .int(2), in: &$0[3])
                    self.set("NSDestinationEntityName", .uid(0), in: &$0[3])
                }
            ),
            ("bad-filter", "CarToCar filter", { $0[18] = .string("price >>> (") }),
            (
                "wrong-fetch-entity", "fetches Car instances but maps LuxuryCar",
                {
                    self.set("NSSourceEntityName", .uid(85), in: &$0[3])
                    self.set("NSDestinationEntityName", .uid(85), in: &$0[3])
                }
            ),
            ("uid-past-end", "points past", { self.set("NSEntityMappings", .uid(100_000), in: &$0[1]) }),
            (
                "entity-list-is-itself", "not an NSEntityMapping",
                { $0[2] = .dict([.string("NS.objects")], [.array([.uid(2)])]) }
            ),
            ("root-not-mapping", "not an NSMappingModel", { self.set("$class", .uid(82), in: &$0[1]) }),
            ("expression-cycle", "value expression cannot be read", { self.set("NSOperand", .uid(35), in: &$0[35]) }),
            (
                "property-not-a-mapping", "not an NSPropertyMapping",
                { $0[32] = .dict([.string("NS.objects")], [.array([.uid(3)])]) }
            ),
            (
                "fan-out", "referred to over and over",
                { $0[2] = .dict([.string("NS.objects")], [.array(Array(repeating: .uid(3), count: 20_000))]) }
            ),
        ]
        for (label, mention, edit) in cases {
            assertRefused(try mutated(edit), label, mentions: mention)
        }
    }

    /// Random structural damage (bogus and cyclic UIDs, fan-out, huge integers, deep nesting):
    /// every mutant is read or refused with a `MappingError`, never a crash or a hang.
    func testFuzzedArchivesGiveMappingErrors() throws {
        let seed = Array(try Data(contentsOf: Self.compiled))
        let tree = try XCTUnwrap(BinaryPlist.decode(seed))
        let report = Fuzz.run(
            "cdm", seeds: [seed], seed: 0xC0DE_CD3, tokens: ["NSMappingType", "$source.", "FUNCTION("],
            count: Fuzz.inputCount(default: 300),
            mutate: { mutator, _, _ in mutator.mutateArchive(tree, other: tree, bytes: seed, otherBytes: seed) },
            body: { _ = try CompiledMappingReader.read(Data($0), file: Self.compiled) },
            isExpected: { $0 is MappingError })
        XCTAssertEqual(report.failures, [])
    }
}
