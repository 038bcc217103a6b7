import Demo
import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

@testable import MigrationEngine

/// The history check: it passes what an inferred step keeps, and finds what one loses.
final class HistoryCheckTests: XCTestCase {
    /// A store at BookStore with generated rows (edge values first), its snapshot, and the
    /// inferred step to BookStore 2 run on it.
    private func migratedBookStore() throws -> (path: String, inference: InferredMapping, before: ObjectSnapshot) {
        let bundle = try bookStore()
        let source = try version(bundle, "BookStore"), destination = try version(bundle, "BookStore 2")
        let path = try scratchDirectory().appendingPathComponent("Books.sqlite").path
        let store = try PersistentStore.create(at: path, model: source.model)
        var generator = DataGenerator(model: source.model, seed: 3)
        generator.edgeValues = true
        try generator.fill(store, rows: 20)
        try store.close()
        let before = try ObjectSnapshot.read(path, model: source.model)
        let plan = try MigrationPlan.make(store: path, bundle: bundle, to: destination.name)
        guard case .lightweight(let inference)? = plan.steps.first?.kind else {
            throw MigrationError(
                .wrongModel, "BookStore → BookStore 2 was not planned as an inferred step",
                fix: "the test's premise changed")
        }
        _ = try MigrationRunner.run(plan, store: path, keepBackup: false)
        return (path, inference, before)
    }

    func testAKeptStepPassesAndAChangedValueOrLostLinkIsFound() throws {
        let (path, inference, before) = try migratedBookStore()
        let model = inference.destinationModel
        XCTAssertNil(
            InferredStepCheck(inference: inference, before: before, after: try ObjectSnapshot.read(path, model: model))
                .firstDifference())

        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE ZBOOK SET ZTITLE = 'changed' WHERE Z_PK = (SELECT min(Z_PK) FROM ZBOOK)")
        }
        let changed = InferredStepCheck(
            inference: inference, before: before, after: try ObjectSnapshot.read(path, model: model)
        ).firstDifference()
        XCTAssertTrue(
            changed?.hasPrefix("Book.title: 1 rows differ from Book.title") == true, changed ?? "nothing found")

        try queue.write { db in try db.execute(sql: "DELETE FROM ZBOOK WHERE Z_PK = (SELECT max(Z_PK) FROM ZBOOK)") }
        let lost = InferredStepCheck(
            inference: inference, before: before, after: try ObjectSnapshot.read(path, model: model)
        ).firstDifference()
        XCTAssertTrue(lost?.contains("keys differ") == true, lost ?? "nothing found")
    }

    /// Every version of the demo's BookStore bundle, with its mapping models, reaches the current
    /// version; without them, the versions whose way needs one fail at that step, saying so.
    func testEveryVersionIsReportedOkOrWithItsFailingStep() throws {
        let bundle = try bookStore()
        let directory = try scratchDirectory()
        let mappings = try ["BookStore3To4", "BookStore4To5"].map(DemoResources.mapping)
        let withMappings = HistoryCheck(
            bundle: bundle, mappings: mappings, options: MigrationOptions(policies: DemoResources.policies)
        ).run(in: directory)
        XCTAssertEqual(withMappings.map(\.version), bundle.versions.map(\.name))
        XCTAssertTrue(withMappings.allSatisfy(\.ok), withMappings.compactMap(\.error).joined(separator: "\n"))
        XCTAssertEqual(withMappings.last?.steps, 0, "the current version is the target itself")

        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "every store made is removed")
    }

    /// A new version that adds a required attribute without a default: every older version's
    /// store (which has rows) fails at that step, with Core Data's reason and the fix.
    func testAVersionThatBreaksTheHistoryIsNamedWithItsFix() throws {
        let books = try bookStore()
        var model = try version(books, "BookStore 2").model
        let book = try XCTUnwrap(model.entities.firstIndex { $0.name == "Book" })
        model.entities[book].attributes.append(AttributeDescription(PropertyDescription(name: "isbn"), type: .string))
        let bundle = ModelBundle(
            name: "Broken",
            versions: [try version(books, "BookStore"), ModelBundle.Version(name: "BookStore 2", model: model)],
            currentVersionName: "BookStore 2")
        let directory = try scratchDirectory()
        let outcomes = HistoryCheck(bundle: bundle).run(in: directory)
        XCTAssertEqual(outcomes.map(\.ok), [false, true])
        let error = try XCTUnwrap(outcomes.first?.error)
        XCTAssertTrue(
            error.contains("BookStore → BookStore 2")
                && error.contains("Book.isbn is new and required but has no default value"), error)
        // The check's own store is removed when it ends: its path would name nothing.
        XCTAssertTrue(
            error.contains("cannot migrate the store the check made:") && !error.contains(directory.path), error)
        XCTAssertTrue(error.contains("Fix: give the attribute a default value"), error)
        XCTAssertEqual(outcomes.first?.failure, "unmetRequirement", "what it is: the rows lack a required value")
    }
}

/// The history check never cries wolf: what a step rightly does passes, and data its generator
/// could not make valid is said apart from a step's failure.
final class HistoryCheckFairnessTests: XCTestCase {
    private func bundle(_ bodies: [String]) throws -> ModelBundle {
        let versions = try bodies.enumerated().map { index, body in
            let name = "V\(index + 1)"
            let model = try ModelXMLReader.read(
                Data(
                    """
                    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">\(body)</model>
                    """.utf8), file: name)
            return ModelBundle.Version(name: name, model: model)
        }
        return ModelBundle(name: "App", versions: versions, currentVersionName: versions.last?.name ?? "")
    }

    /// WordPress's `Category.categoryID` and `Notification.read`: an optional attribute made
    /// required with a default. The step fills empty values with the default; the check expects
    /// just that (it expected the source's empty value, and reported lost data).
    func testAnOptionalAttributeMadeRequiredWithADefaultPasses() throws {
        let bundle = try self.bundle([
            #"<entity name="Note"><attribute name="read" optional="YES" attributeType="Boolean"/></entity>"#,
            #"<entity name="Note"><attribute name="read" attributeType="Boolean" defaultValueString="NO"/></entity>"#,
        ])
        let outcomes = HistoryCheck(bundle: bundle, rows: 6).run(in: try scratchDirectory())
        XCTAssertEqual(outcomes.map(\.ok), [true, true], outcomes.compactMap(\.error).joined(separator: "\n"))
    }

    /// A history that returns to an earlier model (V2 adds `notes`, V3 takes it out again, V4 adds
    /// it back): a version is known by its hashes, so a store at V3 is read as V1 and one at V4 as
    /// V2, their ways start there, and every step of every way is still checked, iterative and
    /// progressive alike.
    func testAHistoryThatReturnsToAnEarlierModelIsCheckedWhole() throws {
        let plain = #"<entity name="Note"><attribute name="title" optional="YES" attributeType="String"/></entity>"#
        let notes =
            #"<entity name="Note"><attribute name="notes" optional="YES" attributeType="String"/><attribute name="title" optional="YES" attributeType="String"/></entity>"#
        let bundle = try self.bundle([plain, notes, plain, notes, plain])
        for strategy in [MigrationStrategy.iterative, .progressive] {
            let outcomes = HistoryCheck(bundle: bundle, strategy: strategy, rows: 6).run(in: try scratchDirectory())
            XCTAssertEqual(
                outcomes.map(\.ok), Array(repeating: true, count: 5),
                outcomes.compactMap(\.error).joined(separator: "\n"))
            XCTAssertEqual(
                outcomes.map(\.steps), "\(strategy)" == "iterative" ? [0, 3, 0, 3, 0] : [0, 1, 0, 1, 0],
                "a store with the target's hashes is at the target")
        }
    }

    /// Attributes under a uniqueness constraint get values of their own row, however many rows.
    func testGeneratedRowsKeepUniquenessConstraints() throws {
        let model = try self.bundle([
            #"""
            <entity name="Book"><attribute name="isbn" attributeType="String"/><attribute name="number" attributeType="Integer 16" defaultValueString="0"/>
            <attribute name="shelf" optional="YES" attributeType="Integer 32"/><attribute name="row" optional="YES" attributeType="Integer 32"/>
            <uniquenessConstraints><uniquenessConstraint><constraint value="isbn"/></uniquenessConstraint>
            <uniquenessConstraint><constraint value="number"/></uniquenessConstraint>
            <uniquenessConstraint><constraint value="shelf"/><constraint value="row"/></uniquenessConstraint></uniquenessConstraints></entity>
            """#
        ]).versions[0].model
        let path = try scratchDirectory().appendingPathComponent("Books.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        var generator = DataGenerator(model: model, seed: 5)
        generator.edgeValues = true
        XCTAssertNoThrow(try generator.fill(store, rows: 2_000), "a repeat would fail the store's unique index")
        try store.close()
        XCTAssertEqual(
            try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT count(DISTINCT ZISBN) FROM ZBOOK") },
            2_000)
    }

    /// A required one-to-one into a subentity: with rows per concrete entity every object finds
    /// a partner of its own, and no object is linked to two.
    func testARequiredOneToOneGetsAPartnerOfItsOwn() throws {
        let model = try self.bundle([
            #"""
            <entity name="Post" isAbstract="YES"><attribute name="title" optional="YES" attributeType="String"/></entity>
            <entity name="Page" parentEntity="Post"/>
            <entity name="ReaderPost" parentEntity="Post"><relationship name="attribution" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="Attribution" inverseName="post" inverseEntity="Attribution"/></entity>
            <entity name="Attribution"><relationship name="post" maxCount="1" deletionRule="Nullify" destinationEntity="ReaderPost" inverseName="attribution" inverseEntity="ReaderPost"/></entity>
            """#
        ]).versions[0].model
        let path = try scratchDirectory().appendingPathComponent("Posts.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        var generator = DataGenerator(model: model, seed: 5)
        generator.rowsPerConcreteEntity = true
        try generator.fill(store, rows: 6)
        try store.close()
        let queue = try DatabaseQueue(path: path)
        XCTAssertEqual(
            try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM ZATTRIBUTION WHERE ZPOST IS NULL") }, 0,
            "required: every one linked")
        XCTAssertEqual(
            try queue.read { try Int.fetchOne($0, sql: "SELECT count(DISTINCT ZPOST) FROM ZATTRIBUTION") }, 6,
            "one-to-one: each to its own post")
    }

    /// A store its generator could not make valid (a required to-many with a minimum the
    /// generator does not meet) is said as generated data, not as the step's failure.
    func testAStoreTheModelForbidsIsReportedAsGeneratedData() throws {
        let bundle = try self.bundle([
            #"<entity name="Book"><relationship name="authors" toMany="YES" minCount="3" deletionRule="Nullify" destinationEntity="Author" inverseName="book" inverseEntity="Author"/></entity><entity name="Author"><relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/></entity>"#,
            #"<entity name="Book"><attribute name="title" optional="YES" attributeType="String"/><relationship name="authors" toMany="YES" minCount="3" deletionRule="Nullify" destinationEntity="Author" inverseName="book" inverseEntity="Author"/></entity><entity name="Author"><relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/></entity>"#,
        ])
        let check = HistoryCheck(bundle: bundle, rows: 4)
        let path = try scratchDirectory().appendingPathComponent("Books.sqlite").path
        XCTAssertThrowsError(try check.check(bundle.versions[0], at: path)) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .generatedData, "\(error)")
            XCTAssertTrue(
                "\(error)".contains("validation failed in the store generated at V1: Book object"), "\(error)")
            XCTAssertTrue("\(error)".contains("so no step was tried"), "\(error)")
        }
    }

    /// WordPress 101 → 102's `PageTemplateCategory.blog`: a new required relationship the rows
    /// lack. Its fix fits a relationship (which has no default value), and its kind says the rows
    /// lack a required value, not that the model is wrong.
    func testANewRequiredRelationshipGetsARelationshipsFix() throws {
        let bundle = try self.bundle([
            #"<entity name="Note"><attribute name="title" optional="YES" attributeType="String"/></entity><entity name="Blog"><attribute name="name" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="Note"><attribute name="title" optional="YES" attributeType="String"/><relationship name="blog" maxCount="1" deletionRule="Nullify" destinationEntity="Blog"/></entity><entity name="Blog"><attribute name="name" optional="YES" attributeType="String"/></entity>"#,
        ])
        let outcomes = HistoryCheck(bundle: bundle, rows: 3).run(in: try scratchDirectory())
        let error = try XCTUnwrap(outcomes.first?.error)
        XCTAssertEqual(outcomes.first?.failure, "unmetRequirement", error)
        XCTAssertTrue(error.contains("Note.blog is a new required relationship"), error)
        XCTAssertTrue(error.contains("Fix: make the relationship optional in V2"), error)
        XCTAssertFalse(error.contains("default value"), "a relationship has none: \(error)")
    }

    /// A failure is of the kind every command reports it with, whichever way the check took: a
    /// store's error is `store` and a model file's `modelFile` (the check that walks each way
    /// alone called them `error`, the one that shares steps `verification`).
    func testAFailureIsOfTheKindEveryCommandReportsItWith() {
        let store = StoreError(.corrupt, path: "/tmp/a.sqlite", "database disk image is malformed")
        XCTAssertEqual(HistoryCheck.Outcome(version: "V1", steps: 1, error: store).failure, "store")
        let model = ModelFileError(file: "V1.xcdatamodel/contents", problem: "is not XML")
        XCTAssertEqual(HistoryCheck.Outcome(version: "V1", steps: 1, error: model).failure, "modelFile")
        XCTAssertEqual(
            HistoryCheck.Outcome(version: "V1", steps: 1, error: MigrationError(.validation, "no")).failure,
            "validation")
    }
}
