import Foundation
import ObjectModel
import TestSupport
import XCTest

/// Keyed archives built to hurt: references that loop or fan out, which the fuzzer's archive
/// mutations (``Mutator/mutateArchive(_:other:)``) produce at random and these tests pin down.
final class ArchiveHostileInputTests: XCTestCase {
    /// `FUNCTION($manager, "f:", E, E)` where E is the expression itself: a cycle through
    /// `NSArguments`, and with two references a DAG that doubles at every level.
    static func selfReferencingExpression(references: Int) -> Data {
        let objects: [PlistNode] = [
            .string("$null"),
            .dict(
                [.string("NSExpressionType"), .string("NSSelectorName"), .string("NSOperand"), .string("NSArguments")],
                [.int(4), .uid(2), .uid(3), .uid(4)]),
            .string("f:"),
            .dict([.string("NSExpressionType"), .string("NSVariable")], [.int(2), .uid(5)]),
            .dict([.string("NS.objects")], [.array(Array(repeating: .uid(1), count: references))]),
            .string("manager"),
        ]
        return Data(
            BinaryPlist.encode(
                .dict(
                    [.string("$archiver"), .string("$top"), .string("$objects"), .string("$version")],
                    [.string("NSKeyedArchiver"), .dict([.string("root")], [.uid(1)]), .array(objects), .int(100000)])))
    }

    /// `E(k) = FUNCTION($manager, "f:", E(k-1), E(k-1))`, `E(0) = $manager`: no cycle, 60
    /// objects, but unfolded it is 2^60 expressions: a few bytes that would never finish.
    static func doublingExpression(levels: Int) -> Data {
        var objects: [PlistNode] = [
            .string("$null"), .string("f:"), .string("manager"),
            .dict([.string("NSExpressionType"), .string("NSVariable")], [.int(2), .uid(2)]),
        ]
        for _ in 0..<levels {
            let previous = UInt64(objects.count - 1)
            objects.append(.dict([.string("NS.objects")], [.array([.uid(previous), .uid(previous)])]))
            objects.append(
                .dict(
                    [
                        .string("NSExpressionType"), .string("NSSelectorName"), .string("NSOperand"),
                        .string("NSArguments"),
                    ],
                    [.int(4), .uid(1), .uid(3), .uid(UInt64(objects.count - 1))]))
        }
        return archive(objects, root: UInt64(objects.count - 1))
    }

    static func archive(_ objects: [PlistNode], root: UInt64) -> Data {
        Data(
            BinaryPlist.encode(
                .dict(
                    [.string("$archiver"), .string("$top"), .string("$objects"), .string("$version")],
                    [.string("NSKeyedArchiver"), .dict([.string("root")], [.uid(root)]), .array(objects), .int(100000)])
            ))
    }

    func testAnExpressionThatContainsItselfIsRefused() throws {
        for references in [1, 2, 64] {
            let archive = try KeyedArchive(data: Self.selfReferencingExpression(references: references))
            XCTAssertThrowsError(try ArchivedExpression.format(try archive.topObject()), "\(references)") { error in
                XCTAssertTrue("\(error)".contains("expression"), "\(error)")
            }
        }
    }

    func testAnExpressionThatUnfoldsExponentiallyIsRefused() throws {
        let small = try KeyedArchive(data: Self.doublingExpression(levels: 2))
        XCTAssertEqual(
            try ArchivedExpression.format(try small.topObject()),
            #"FUNCTION($manager, "f:", FUNCTION($manager, "f:", $manager, $manager), FUNCTION($manager, "f:", $manager, $manager))"#
        )
        let started = Date()
        let archive = try KeyedArchive(data: Self.doublingExpression(levels: 60))
        XCTAssertThrowsError(try ArchivedExpression.format(try archive.topObject())) { error in
            // Whichever limit comes first: the parts of one expression or the archive's references.
            XCTAssert(error is KeyedArchive.Failure, "\(error)")
        }
        // A hang guard, not a timing assertion: unfolding 2^60 expressions would never finish.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }
}

/// Found by reading the code after the fuzzer's `parentEntity` tokens: a 25 KB model whose 300
/// entities each inherit from the previous one took minutes of CPU to validate and hash (every
/// walk over parents was repeated per entity and per level). Deep chains are now refused first.
final class DeepInheritanceTests: XCTestCase {
    static func chain(_ count: Int) -> Data {
        let entities = (0..<count).map { index in
            "<entity name=\"E\(index)\"\(index > 0 ? " parentEntity=\"E\(index - 1)\"" : "")><attribute name=\"a\(index)\" attributeType=\"String\"/></entity>"
        }
        return Data(
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model>\n" + entities.joined(separator: "\n") + "\n</model>\n")
                .utf8)
    }

    func testAChainDeeperThanTheLimitIsRefusedAtTheEntityThatGoesTooFar() {
        let started = Date()
        XCTAssertThrowsError(try ModelXMLReader.read(Self.chain(300), file: "Deep.xcdatamodel/contents")) { error in
            let error = error as? ModelFileError
            XCTAssertEqual(error?.problem, "inherits through more than 32 parent entities")
            XCTAssertEqual(
                error?.element, "<entity name=\"E33\"> in entity \"E33\"", "the first entity with 33 ancestors")
            XCTAssertEqual(error?.line, 36)
        }
        // A hang guard, not a timing assertion: before the limit this took minutes.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testAChainAtTheLimitIsReadAndHashed() throws {
        let model = try ModelXMLReader.read(Self.chain(33), file: "Deep.xcdatamodel/contents")
        XCTAssertEqual(model.ancestors(of: try XCTUnwrap(model.entity(named: "E32"))).count, 32)
        XCTAssertEqual(VersionHash.entityHashes(of: model).count, 33)
    }

    func testCyclesAreStillReportedAsCycles() throws {
        let data = Data(
            "<model><entity name=\"A\" parentEntity=\"B\"/><entity name=\"B\" parentEntity=\"A\"/></model>".utf8)
        let refusal = try XCTUnwrap(
            try ModelXMLReader.readFile(data, file: "Cycle.xcdatamodel/contents").findings.first)
        XCTAssertEqual(refusal.problem.verdict, .refused)
        XCTAssertTrue(refusal.description.contains("parent entities form a cycle"), refusal.description)
    }
}

/// Found by reading the code while the fuzzer's `refs` mutation pointed collections at one
/// object: 2,000 entities sharing one dictionary of 2,000 properties is a 130 KB archive that
/// unfolds into four million property descriptions (and, at 10,000 × 10,000, exhausts memory).
final class SharedContainerTests: XCTestCase {
    static func sharedProperties(entities: Int, properties: Int) -> Data {
        var objects: [PlistNode] = [
            .string("$null"), .dict([.string("$classname")], [.string("NSManagedObjectModel")]),
            .dict(
                [.string("$classname"), .string("$classes")],
                [.string("NSAttributeDescription"), .array([.string("NSAttributeDescription")])]),
        ]
        // 3: the shared properties dictionary; then its keys and attribute objects.
        let shared = objects.count
        objects.append(.null)
        var keys: [PlistNode] = [], values: [PlistNode] = []
        for index in 0..<properties {
            objects.append(.string("p\(index)"))
            keys.append(.uid(UInt64(objects.count - 1)))
            objects.append(.dict([.string("$class"), .string("NSAttributeType")], [.uid(2), .int(700)]))
            values.append(.uid(UInt64(objects.count - 1)))
        }
        objects[shared] = .dict([.string("NS.keys"), .string("NS.objects")], [.array(keys), .array(values)])
        var entityRefs: [PlistNode] = []
        for index in 0..<entities {
            objects.append(.string("E\(index)"))
            objects.append(
                .dict(
                    [.string("NSEntityName"), .string("NSProperties")],
                    [.uid(UInt64(objects.count - 1)), .uid(UInt64(shared))]))
            entityRefs.append(.uid(UInt64(objects.count - 1)))
        }
        objects.append(.dict([.string("NS.objects")], [.array(entityRefs)]))
        objects.append(
            .dict(
                [.string("$class"), .string("NSEntities")],
                [.uid(1), .dict([.string("values")], [.uid(UInt64(objects.count - 1))])]))
        // NSEntities must be a reference: point it at a holder whose `values` is the list.
        let list = objects.count - 2
        objects.append(.dict([.string("values")], [.uid(UInt64(list))]))
        objects[objects.count - 2] = .dict(
            [.string("$class"), .string("NSEntities")], [.uid(1), .uid(UInt64(objects.count - 1))])
        return ArchiveHostileInputTests.archive(objects, root: UInt64(objects.count - 2))
    }

    func testSharedContainersCannotUnfoldAnArchive() throws {
        let small = try ArchivedModelReader.read(Self.sharedProperties(entities: 3, properties: 2), source: "Small.mom")
        XCTAssertEqual(
            small.entities.map(\.name), ["E0", "E1", "E2"],
            "sharing a little is read (the budget is per object, generous)")
        XCTAssertEqual(small.entities.first?.attributes.map(\.name), ["p0", "p1"])
        let started = Date()
        XCTAssertThrowsError(
            try ArchivedModelReader.read(
                Self.sharedProperties(entities: 2_000, properties: 2_000), source: "Shared.mom")
        ) { error in
            XCTAssertTrue("\(error)".contains("referred to over and over"), "\(error)")
            XCTAssertTrue("\(error)".hasPrefix("Shared.mom: archived model cannot be read"), "\(error)")
        }
        // A hang guard, not a timing assertion.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }
}

/// A compiled model whose entity is its own superentity: the XML form was refused, the compiled
/// form read without complaint (issue 29 §4). Both are refused now, naming the entity.
final class ArchivedHierarchyTests: FixtureTestCase {
    func testAnEntityThatIsItsOwnSuperentityIsRefusedInACompiledModel() throws {
        let mom = Fixtures.root.appendingPathComponent(
            "CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel.momd/SampleModel.mom")
        let bytes = [UInt8](try Data(contentsOf: mom))
        XCTAssertNoThrow(try ArchivedModelReader.read(Data(bytes), source: "SampleModel.mom"), "the real model reads")
        guard case .dict(let rootKeys, var rootValues)? = BinaryPlist.decode(bytes),
            let objectsIndex = rootKeys.firstIndex(where: {
                if case .string("$objects") = $0 { return true }; return false
            }),
            case .array(var objects) = rootValues[objectsIndex]
        else { return XCTFail("not a keyed archive") }
        var changed: String?
        for (index, object) in objects.enumerated() {
            guard case .dict(let keys, var values) = object,
                let superentity = keys.firstIndex(where: {
                    if case .string("NSSuperentity") = $0 { return true }; return false
                }),
                case .uid = values[superentity]
            else { continue }
            values[superentity] = .uid(UInt64(index))
            objects[index] = .dict(keys, values)
            changed = "\(index)"
            break
        }
        XCTAssertNotNil(changed, "SampleModel has a subentity")
        rootValues[objectsIndex] = .array(objects)
        let mutated = Data(BinaryPlist.encode(.dict(rootKeys, rootValues)))
        XCTAssertThrowsError(try ArchivedModelReader.read(mutated, source: "SampleModel.mom")) { error in
            XCTAssertTrue("\(error)".contains("parent entities form a cycle"), "\(error)")
            XCTAssertTrue("\(error)".contains("SampleModel.mom"), "\(error)")
        }
    }
}
