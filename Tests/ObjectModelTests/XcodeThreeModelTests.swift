import Foundation
import ObjectModel
import TestSupport
import XCTest

/// Xcode 3's `elements` archives, read into the model momc compiles: every one in the fixtures
/// reads whole, and its entities hash as the same entities do in XML that Xcode 4 and later wrote.
///
/// Entities "with the same properties" are compared: same parents, and the same stored
/// properties by name, kind and optionality. Their hashes must be equal; any other pair is a real
/// edit between the two files and must hash differently (so no comparison is vacuous).
final class XcodeThreeModelTests: FixtureTestCase {
    /// Every Xcode 3 version folder in the fixtures: `elements` and no `contents`.
    static let folders: [URL] = Fixtures.files { url in
        let folder = url.deletingLastPathComponent()
        return url.lastPathComponent == "elements" && folder.pathExtension == "xcdatamodel"
            && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("contents").path)
    }.map { $0.deletingLastPathComponent() }

    static let wordPress = Fixtures.root.appendingPathComponent(
        "wordpress-ios/WordPress/Classes/WordPress.xcdatamodeld")

    func testEveryElementsFileReadsEveryEntityAndProperty() throws {
        XCTAssertFalse(Self.folders.isEmpty)
        var parents = 0, relationships = 0
        for folder in Self.folders {
            let model = try XcodeThreeModelReader.read(folder: folder)
            // Counted independently: every object of each class in the archive.
            let archived = try XCTUnwrap(
                Self.classCounts(try Data(contentsOf: folder.appendingPathComponent("elements"))), folder.path)
            XCTAssertEqual(model.entities.count, archived["XDPMEntity"] ?? 0, folder.path)
            XCTAssertEqual(
                model.entities.map(\.attributes.count).reduce(0, +), archived["XDPMAttribute"] ?? 0, folder.path)
            XCTAssertEqual(
                model.entities.map(\.relationships.count).reduce(0, +), archived["XDPMRelationship"] ?? 0, folder.path)
            // Real models Xcode compiled: Core Data has nothing to say of them.
            XCTAssertEqual(model.problems().filter(\.stopsStores), [], folder.path)
            parents += model.entities.filter { $0.parentName != nil }.count
            relationships += model.entities.map(\.relationships.count).reduce(0, +)
        }
        XCTAssertGreaterThan(parents, 0)
        XCTAssertGreaterThan(relationships, 0)
    }

    /// WordPress 13 is 12 converted by Xcode 4 (and edited): its unchanged entities hash the same.
    /// Names alone decide "unchanged" here, so a misread optional flag cannot hide.
    func testWordPress12HashesAsItsXcode4Conversion() throws {
        let twelve = try XcodeThreeModelReader.read(
            folder: Self.wordPress.appendingPathComponent("WordPress 12.xcdatamodel"))
        let thirteen = try ModelXMLReader.read(
            contentsOf: Self.wordPress.appendingPathComponent("WordPress 13.xcdatamodel/contents"))
        let result = Self.compare(twelve, thirteen, optionality: false, "WordPress 12/13")
        XCTAssertFalse(result.isEmpty)
        // The to-manys (maxCount 0) and optional to-ones with minCount 1 are among them.
        let relationships = result.compactMap { twelve.entity(named: $0) }.flatMap(\.relationships)
        XCTAssertTrue(relationships.contains { $0.isToMany && $0.maxCount == 0 })
        XCTAssertTrue(relationships.contains { !$0.isToMany && $0.isOptional && $0.minCount == 1 })
        print("WordPress 12/13: \(result.count) entities hash alike: \(result.joined(separator: ", "))")
    }

    /// Every bundle that mixes the formats: each `elements` version against each XML version.
    func testEveryElementsVersionHashesAsTheXMLVersionsOfItsBundle() throws {
        var compared = 0
        let bundles = Dictionary(grouping: Self.folders) { $0.deletingLastPathComponent() }
        for (bundle, folders) in bundles where bundle.pathExtension == "xcdatamodeld" {
            let xml = try FileManager.default.contentsOfDirectory(at: bundle, includingPropertiesForKeys: nil)
                .map { $0.appendingPathComponent("contents") }.filter {
                    FileManager.default.fileExists(atPath: $0.path)
                }
            let xmlModels = try xml.map { ($0, Hashed(try ModelXMLReader.read(contentsOf: $0))) }
            for folder in folders {
                let model = Hashed(try XcodeThreeModelReader.read(folder: folder))
                for (file, other) in xmlModels {
                    compared +=
                        Self.compare(model, other, optionality: true, "\(folder.lastPathComponent) / \(file.path)")
                        .count
                }
            }
        }
        XCTAssertGreaterThan(compared, 0)
        print("elements against XML of the same bundle: \(compared) entity pairs hash alike")
    }

    /// Each mapping model holds Xcode's archive of its two models: read by this reader, it hashes
    /// as the model file it names (XML or `elements`), in the same repository.
    func testMappingModelCopiesHashAsTheModelsTheyName() throws {
        var compared = 0, pairs = 0, unedited = 0
        var named: [URL: Hashed] = [:]
        for copy in Self.mappingModelCopies {
            guard let folder = Self.modelFolder(named: copy.path, beside: copy.mapping) else { continue }
            let model = Hashed(try XcodeThreeModelReader.read(copy.data, file: "\(copy.mapping.path) (\(copy.side))"))
            let other = try named[folder] ?? Hashed(try Self.read(folder))
            named[folder] = other
            let alike = Self.compare(model, other, optionality: true, "\(copy.mapping.path) \(copy.side)")
            compared += alike.count
            pairs += 1
            // A copy of the very model in the file: what is not hashed agrees too (not the version
            // identifier: Recipes' `elements` say "1.1", "2.0", their copies "").
            if Set(alike) == Set(model.model.entities.map(\.name)), alike.count == other.model.entities.count {
                XCTAssertEqual(model.model.configurations, other.model.configurations, copy.mapping.path)
                XCTAssertEqual(model.model.fetchRequestTemplates, other.model.fetchRequestTemplates, copy.mapping.path)
                XCTAssertEqual(
                    model.model.entities.map(\.compoundIndexes), other.model.entities.map(\.compoundIndexes),
                    copy.mapping.path)
                unedited += 1
            }
        }
        XCTAssertGreaterThan(pairs, 0)
        XCTAssertGreaterThan(compared, 0)
        XCTAssertGreaterThan(unedited, 0)
        print(
            "mapping models' copies: \(pairs) models (\(unedited) unedited since), \(compared) entity pairs hash alike")
    }

    /// WordPress-11-12's copies against the `elements` of 11 and 12; 12 was edited after the
    /// mapping model was saved (ReaderPost gained two attributes), which the comparison must see.
    func testWordPressMappingModel11To12AgreesWithElements() throws {
        let mapping = Fixtures.root
            .appendingPathComponent(
                "wordpress-ios/WordPress/Classes/Utility/Migrations/WordPress-11-12.xcmappingmodel/xcmapping.xml")
        let copies = Self.mappingModelCopies.filter { $0.mapping == mapping }
        XCTAssertEqual(Set(copies.map(\.side)), ["source", "destination"])
        for copy in copies {
            let version = copy.side == "source" ? "WordPress 11" : "WordPress 12"
            let model = try XcodeThreeModelReader.read(copy.data, file: "\(copy.side)modeldata")
            let elements = try XcodeThreeModelReader.read(
                folder: Self.wordPress.appendingPathComponent(version + ".xcdatamodel"))
            XCTAssertEqual(Set(model.entities.map(\.name)), Set(elements.entities.map(\.name)), version)
            XCTAssertFalse(Self.compare(model, elements, optionality: false, version).isEmpty)
        }
    }

    func testRoundTripThroughXMLKeepsHashes() throws {
        for folder in Self.folders {
            let model = try XcodeThreeModelReader.read(folder: folder)
            let xml = ModelXMLWriter.xml(for: model)
            let back = try ModelXMLReader.read(Data(xml.utf8), file: folder.path + " (rewritten)")
            XCTAssertEqual(VersionHash.entityHashes(of: back), VersionHash.entityHashes(of: model), folder.path)
            // All of it comes back, not only what is hashed.
            XCTAssertEqual(back, model, folder.path)
        }
    }

    // MARK: - What cannot be read

    func testWhatIsNotAnXcode3ModelIsRefusedWithTheFileAndAFix() throws {
        let elements = Self.folders[0].appendingPathComponent("elements")
        let bytes = try Data(contentsOf: elements)
        let mom = try XCTUnwrap(Fixtures.files { $0.pathExtension == "mom" }.first)
        let inputs: [(String, Data)] = [
            ("garbage", Data("not a model at all".utf8)), ("empty", Data()),
            ("truncated", bytes.prefix(bytes.count / 2)), ("plist", Data("<plist><dict/></plist>".utf8)),
            ("compiled model", try Data(contentsOf: mom)),
        ]
        for (name, data) in inputs {
            XCTAssertThrowsError(try XcodeThreeModelReader.read(data, file: "X.xcdatamodel/elements"), name) { error in
                let error = error as? ModelFileError
                XCTAssertEqual(error?.file, "X.xcdatamodel/elements", name)
                XCTAssertTrue(
                    error?.problem.contains("not an Xcode 3 model") == true, "\(name): \(String(describing: error))")
                XCTAssertNotNil(error?.fix, name)
            }
        }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chrysalis-\(UUID().uuidString).xcdatamodel")
        XCTAssertThrowsError(try XcodeThreeModelReader.read(folder: missing)) { error in
            XCTAssertEqual((error as? ModelFileError)?.file, missing.appendingPathComponent("elements").path)
        }
    }

    func testAnUnreadableSettingNamesItsEntityAndProperty() throws {
        var archive = HandMadeArchive()
        let title = archive.attribute(type: 9999)
        let entity = archive.entity("Book", properties: [("title", title)])
        let data = archive.model([entity])
        XCTAssertThrowsError(try XcodeThreeModelReader.read(data, file: "Book.xcdatamodel/elements")) { error in
            let error = error as? ModelFileError
            XCTAssertEqual(error?.element, "property \"title\" in entity \"Book\"")
            XCTAssertEqual(error?.problem, "has attribute type 9999, which Core Data does not have")
            XCTAssertNotNil(error?.fix)
        }
        // A kind of property no Xcode 3 archive in the fixtures has.
        var unknown = HandMadeArchive()
        let widget = unknown.property("XDPMWidget", [])
        let shelf = unknown.entity("Shelf", properties: [("widget", widget)])
        let shelfData = unknown.model([shelf])
        XCTAssertThrowsError(try XcodeThreeModelReader.read(shelfData, file: "Shelf.xcdatamodel/elements")) { error in
            let error = error as? ModelFileError
            XCTAssertEqual(error?.element, "property \"widget\" in entity \"Shelf\"")
            XCTAssertEqual(error?.problem, "is of class XDPMWidget, not a kind of property Chrysalis knows")
        }
    }

    /// Validation is `problems()`'s: a relationship to an entity the model lacks still reads.
    func testARelationshipToAMissingEntityReadsAndIsReportedByProblems() throws {
        var archive = HandMadeArchive()
        let ghost = archive.entity("Ghost", properties: [])
        let haunt = archive.relationship(to: ghost)
        let book = archive.entity("Book", properties: [("haunt", haunt)])
        let data = archive.model([book])
        let model = try XcodeThreeModelReader.read(data, file: "Book.xcdatamodel/elements")
        XCTAssertEqual(model.entity(named: "Book")?.relationships.first?.destinationEntityName, "Ghost")
        XCTAssertTrue(
            model.problems().contains { $0.entity == "Book" && $0.property == "haunt" }, "\(model.problems())")
    }

    /// A userInfo that contains itself, and one property shared by thousands of keys: the first
    /// reads (described to a bounded depth), the second is refused by the archive's reference budget.
    func testHostileSharingIsBoundedOrRefused() throws {
        var loop = HandMadeArchive()
        let info = loop.add(.null)
        let node = loop.dictionaryNode([("self", info)])
        loop.objects[Int(info)] = node
        let entity = loop.entity("Loop", properties: [], userInfo: info)
        let model = try XcodeThreeModelReader.read(loop.model([entity]), file: "Loop")
        XCTAssertEqual(model.entities.first?.userInfo["self"]?.hasPrefix("{self = {self ="), true)

        var fan = HandMadeArchive()
        let shared = fan.attribute(type: 700), key = fan.add(.string("p"))
        let properties = fan.dictionaryNode(
            keys: Array(repeating: key, count: 20_000), values: Array(repeating: shared, count: 20_000))
        let owned = fan.add(properties)
        let fanned = fan.entity("Fan", owned: owned)
        let data = fan.model([fanned])
        let started = Date()
        XCTAssertThrowsError(try XcodeThreeModelReader.read(data, file: "Fan")) { error in
            XCTAssertTrue("\(error)".contains("over and over"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "a hang guard, not a timing assertion")
    }

    /// Mutants of the real archives (cycles, fan-out, wrong types, torn plists): read or refused
    /// with a ModelFileError, never a crash or a hang. `CHRYSALIS_FUZZ_INPUTS` runs more.
    func testMutatedArchivesAreReadOrRefused() throws {
        let seeds = FuzzSeeds.contents(of: Self.folders.map { $0.appendingPathComponent("elements") })
        let trees = seeds.map(BinaryPlist.decode)
        let tokens = ["$null", "XDPMEntity", "_default"]
        let report = Fuzz.run(
            "XcodeThreeModelReader", seeds: seeds, seed: 0x5844_504D_4D4F_444C, tokens: tokens,
            count: Fuzz.inputCount(default: 100),
            mutate: { mutator, a, b in
                guard let tree = trees[a] else { return mutator.mutate(seeds[a], other: seeds[b]) }
                return mutator.mutateArchive(tree, other: trees[b], bytes: seeds[a], otherBytes: seeds[b])
            },
            body: { input in
                let model = try XcodeThreeModelReader.read(Data(input), file: "Fuzz.xcdatamodel/elements")
                // What a bundle does next: validate, and hash what validates.
                if model.problems().isEmpty { _ = VersionHash.entityHashes(of: model) }
            }, isExpected: { $0 is ModelFileError })
        XCTAssertTrue(report.failures.isEmpty, report.failures.joined(separator: "\n"))
        XCTAssertGreaterThan(report.rejected, 0, "the mutants must exercise the error paths")
    }
}

// MARK: - Comparing, counting, finding

extension XcodeThreeModelTests {
    /// Asserts that entities of both models with the same properties hash alike and the others
    /// differently; returns the names of those that hash alike.
    static func compare(
        _ model: ManagedObjectModel, _ other: ManagedObjectModel, optionality: Bool, _ label: String,
        file: StaticString = #filePath, line: UInt = #line
    ) -> [String] {
        compare(Hashed(model), Hashed(other), optionality: optionality, label, file: file, line: line)
    }

    static func compare(
        _ model: Hashed, _ other: Hashed, optionality: Bool, _ label: String,
        file: StaticString = #filePath, line: UInt = #line
    ) -> [String] {
        var alike: [String] = []
        for entity in model.model.entities {
            guard let counterpart = other.model.entity(named: entity.name) else { continue }
            let hash = model.hashes[entity.name], otherHash = other.hashes[entity.name]
            if shape(of: entity, in: model.model, optionality: optionality)
                == shape(of: counterpart, in: other.model, optionality: optionality)
            {
                XCTAssertEqual(hash, otherHash, "\(label): \(entity.name)", file: file, line: line)
                alike.append(entity.name)
            } else {
                XCTAssertNotEqual(hash, otherHash, "\(label): \(entity.name) was edited", file: file, line: line)
            }
        }
        return alike
    }

    /// A model with its entity hashes, worked out once.
    struct Hashed {
        let model: ManagedObjectModel
        let hashes: [String: Data]
        init(_ model: ManagedObjectModel) {
            self.model = model
            hashes = VersionHash.entityHashes(of: model)
        }
    }

    /// The entity and its ancestors, each with its stored properties' names, kinds and (when
    /// asked) optionality: what an edit between two versions changes.
    static func shape(of entity: EntityDescription, in model: ManagedObjectModel, optionality: Bool) -> [[String]] {
        ([entity] + model.ancestors(of: entity)).map { level in
            let properties =
                level.attributes.filter { !$0.isTransient }.map { ("attribute", $0.property) }
                + level.relationships.filter { !$0.isTransient }.map { ("relationship", $0.property) }
            return [level.name]
                + properties.map { "\($0.0) \($0.1.name)" + (optionality && $0.1.isOptional ? " optional" : "") }
                .sorted()
        }
    }

    /// How many objects of each class an archive holds, counted on the plist itself.
    static func classCounts(_ data: Data) -> [String: Int]? {
        guard case .dict(let keys, let values)? = BinaryPlist.decode(Array(data)),
            let slot = keys.firstIndex(where: { if case .string("$objects") = $0 { true } else { false } }),
            case .array(let objects) = values[slot]
        else { return nil }
        var counts: [String: Int] = [:]
        for case .dict(let fieldKeys, let fieldValues) in objects {
            guard let slot = fieldKeys.firstIndex(where: { if case .string("$class") = $0 { true } else { false } }),
                case .uid(let index) = fieldValues[slot], Int(index) < objects.count,
                case .dict(let classKeys, let classValues) = objects[Int(index)],
                let nameSlot = classKeys.firstIndex(where: {
                    if case .string("$classname") = $0 { true } else { false }
                }),
                case .string(let name) = classValues[nameSlot]
            else { continue }
            counts[name, default: 0] += 1
        }
        return counts
    }

    /// Every `sourcemodeldata`/`destinationmodeldata` in the fixtures' mapping models, with the
    /// model path the mapping model names beside it.
    static let mappingModelCopies: [(mapping: URL, side: String, path: String, data: Data)] = {
        var copies: [(URL, String, String, Data)] = []
        for mapping in Fixtures.files(where: { $0.lastPathComponent == "xcmapping.xml" }) {
            var attributes: [String: String] = [:]
            guard let data = try? Data(contentsOf: mapping), let tree = try? XMLTree.parse(data, file: mapping.path)
            else {
                XCTFail("\(mapping.path) cannot be read")
                continue
            }
            var pending = [tree]
            while let node = pending.popLast() {
                if node.name == "attribute", let name = node.attributes["name"],
                    name.hasSuffix("modeldata") || name.hasSuffix("modelpath")
                {
                    attributes[name] = node.text
                }
                pending += node.children
            }
            for side in ["source", "destination"] {
                guard let path = attributes[side + "modelpath"], let text = attributes[side + "modeldata"],
                    let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
                else { continue }
                copies.append((mapping, side, path, data))
            }
        }
        return copies
    }()

    /// The fixture folder a mapping model means by `path` (Xcode's group path, so matched by its
    /// last two components), in the mapping model's own repository.
    static func modelFolder(named path: String, beside mapping: URL) -> URL? {
        let suffix = path.split(separator: "/").suffix(2).joined(separator: "/")
        return modelFolders.first { $0.path.hasSuffix("/" + suffix) && repository(of: $0) == repository(of: mapping) }
    }

    static let modelFolders = Fixtures.files { $0.pathExtension == "xcdatamodel" }

    /// `corpus/owner+repo`, or the fixture's own top folder.
    static func repository(of url: URL) -> String {
        let parts = url.path.dropFirst(Fixtures.root.path.count + 1).split(separator: "/")
        return parts.prefix(parts.first == "corpus" ? 2 : 1).joined(separator: "/")
    }

    static func read(_ folder: URL) throws -> ManagedObjectModel {
        let contents = folder.appendingPathComponent("contents")
        return FileManager.default.fileExists(atPath: contents.path)
            ? try ModelXMLReader.read(contentsOf: contents) : try XcodeThreeModelReader.read(folder: folder)
    }
}

/// An Xcode 3 archive built by hand, for shapes no fixture has.
struct HandMadeArchive {
    var objects: [PlistNode] = [.string("$null")]
    private var classes: [String: UInt64] = [:]
    private var names: [UInt64: String] = [:]

    mutating func add(_ node: PlistNode) -> UInt64 {
        objects.append(node)
        return UInt64(objects.count - 1)
    }

    mutating func instanceNode(_ className: String, _ fields: [(String, PlistNode)], superclasses: [String] = [])
        -> PlistNode
    {
        let reference: UInt64
        if let known = classes[className] {
            reference = known
        } else {
            reference = add(
                .dict(
                    [.string("$classname"), .string("$classes")],
                    [.string(className), .array(([className] + superclasses + ["NSObject"]).map { .string($0) })]))
            classes[className] = reference
        }
        return .dict([.string("$class")] + fields.map { .string($0.0) }, [.uid(reference)] + fields.map(\.1))
    }

    mutating func dictionaryNode(_ pairs: [(String, UInt64)]) -> PlistNode {
        dictionaryNode(keys: pairs.map { add(.string($0.0)) }, values: pairs.map(\.1))
    }

    mutating func dictionaryNode(keys: [UInt64], values: [UInt64]) -> PlistNode {
        instanceNode(
            "NSMutableDictionary",
            [("NS.keys", .array(keys.map { .uid($0) })), ("NS.objects", .array(values.map { .uid($0) }))],
            superclasses: ["NSDictionary"])
    }

    /// One stereotype holding `settings`, each an `XDUMLPropertyImp` whose `_default` is the value.
    mutating func stereotypes(_ settings: [(String, UInt64)]) -> UInt64 {
        let properties = settings.map { ($0.0, add(instanceNode("XDUMLPropertyImp", [("_default", .uid($0.1))]))) }
        let storage = add(dictionaryNode(properties))
        let stereotype = add(instanceNode("XDUMLStereotypeImp", [("XDBucketForOwnedAttributesstorage", .uid(storage))]))
        return add(dictionaryNode([("XD_PStereotype", stereotype)]))
    }

    mutating func property(_ className: String, _ settings: [(String, UInt64)]) -> UInt64 {
        let storage = stereotypes(settings)
        return add(instanceNode(className, [("XDBucketForStereotypesstorage", .uid(storage))]))
    }

    mutating func attribute(type: Int) -> UInt64 {
        let settings = [("XD_PAttK_attributeType", add(.int(Int64(type)))), ("XD_PPSK_isOptional", add(.bool(true)))]
        return property("XDPMAttribute", settings)
    }

    mutating func relationship(to destination: UInt64) -> UInt64 {
        let settings = [
            ("XD_PRK_destination", destination), ("XD_PRK_maxCount", add(.int(1))),
            ("XD_PPSK_isOptional", add(.bool(true))),
        ]
        return property("XDPMRelationship", settings)
    }

    mutating func entity(_ name: String, properties: [(String, UInt64)], userInfo: UInt64? = nil) -> UInt64 {
        let node = dictionaryNode(properties)
        return entity(name, owned: add(node), userInfo: userInfo)
    }

    mutating func entity(_ name: String, owned: UInt64, userInfo: UInt64? = nil) -> UInt64 {
        let settings = stereotypes(userInfo.map { [("XD_PSK_userInfo", $0)] } ?? [])
        let entity = add(
            instanceNode(
                "XDPMEntity",
                [
                    ("_name", .uid(add(.string(name)))), ("XDBucketForStereotypesstorage", .uid(settings)),
                    ("XDBucketForOwnedAttributesstorage", .uid(owned)),
                ]))
        names[entity] = name
        return entity
    }

    /// The whole archive: an `XDPMModel` whose root package holds `entities`.
    mutating func model(_ entities: [UInt64]) -> Data {
        let classes = add(dictionaryNode(entities.map { (names[$0] ?? "", $0) }))
        let package = add(instanceNode("XDModelPackage", [("XDBucketForClassesstorage", .uid(classes))]))
        let root = add(instanceNode("XDPMModel", [("_xd_rootPackage", .uid(package))]))
        let top = PlistNode.dict([.string("root")], [.uid(root)])
        return Data(
            BinaryPlist.encode(
                .dict(
                    [.string("$archiver"), .string("$top"), .string("$objects"), .string("$version")],
                    [.string("NSKeyedArchiver"), top, .array(objects), .int(100000)])))
    }
}
