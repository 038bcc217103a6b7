import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// Staged migration (iOS 17's `NSStagedMigrationManager`) on the staged demo's Shelf bundle: the
/// stages checked as Core Data checks them, the steps they make, and the handlers run once each,
/// in order, inside the plan's all-or-nothing.
final class StagedMigrationTests: XCTestCase {
    private func shelf() throws -> ModelBundle { try ModelBundle.read(at: DemoResources.shelfBundle) }

    private func checksum(_ bundle: ModelBundle, _ name: String) throws -> String {
        try version(bundle, name).versionChecksum
    }

    /// Books by authors whose names repeat: each book made its own author.
    private static let repeating = [
        ("Le Guin", "Earthsea"), ("Butler", "Kindred"), ("Le Guin", "Lathe"), ("Pratchett", "Mort"),
        ("Pratchett", "Eric"),
    ]
    /// Books by authors of names of their own.
    private static let distinct = [("Le Guin", "Earthsea"), ("Butler", "Kindred"), ("Pratchett", "Mort")]

    /// A Shelf store at `version` with `books` (each by an author object of its own), and its bytes.
    private func shelfStore(at version: String = "Shelf 1", books: [(String, String)] = repeating) throws -> (
        path: String, bytes: Data
    ) {
        let path = try scratchDirectory().appendingPathComponent("Shelf.sqlite").path
        let model = try self.version(try shelf(), version).model
        let store = try PersistentStore.create(at: path, model: model)
        try store.writeObjects(StoreLayout(model: model)) { writer in
            for (author, title) in books {
                let written = try writer.insert("Author", ["name": .string(author)])
                try writer.insert("Book", ["title": .string(title)], toOne: ["author": written])
            }
        }
        try store.close()
        return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func rows(_ path: String, _ sql: String) throws -> [[String]] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map(\.description) }
        }
    }

    // MARK: Core Data's checks

    func testTheStagesAreCheckedAsCoreDataChecksThem() throws {
        let bundle = try shelf()
        let (one, two, three) = (
            try checksum(bundle, "Shelf 1"), try checksum(bundle, "Shelf 2"), try checksum(bundle, "Shelf 3")
        )
        let refusals: [(String, [MigrationStage], String)] = [
            ("empty", [], "at least one stage"),
            (
                "a checksum twice", [.lightweight([one, two]), .lightweight([two, three])],
                "Duplicate version checksums across stages detected."
            ),
            (
                "a lightweight and a custom stage share one",
                [.lightweight([one]), .custom(CustomMigrationStage(from: one, to: two))], "Duplicate"
            ),
        ]
        for (what, stages, message) in refusals {
            XCTAssertThrowsError(try StagedMigration(stages), what) {
                XCTAssertTrue("\($0)".contains(message), "\(what): \($0)")
            }
        }
        // A custom stage may start where the one before it ends (Core Data runs custom[1→2], custom[2→3]).
        XCTAssertNoThrow(
            try StagedMigration([
                .custom(CustomMigrationStage(from: one, to: two)), .custom(CustomMigrationStage(from: two, to: three)),
            ]))

        let (path, _) = try shelfStore()
        let planned: [(String, [MigrationStage], String)] = [
            (
                "an unknown checksum", [.lightweight([one, "bm90IGEgbW9kZWw="])],
                "Cannot use staged migration with an unknown model version."
            ),
            ("the store's version in no stage", [.lightweight([two, three])], "the store's version, Shelf 1"),
            (
                "backwards", [.lightweight([three]), .custom(CustomMigrationStage(from: one, to: two))],
                "cannot be migrated backwards"
            ),
            (
                "a custom stage going back",
                [.custom(CustomMigrationStage(from: two, to: one)), .lightweight([three])],
                "cannot be migrated backwards"
            ),
            ("the target in no stage", [.custom(CustomMigrationStage(from: one, to: two))], "no stage names Shelf 3"),
        ]
        for (what, stages, message) in planned {
            XCTAssertThrowsError(
                try MigrationPlan.make(store: path, bundle: bundle, strategy: .staged(try StagedMigration(stages))),
                what
            ) {
                XCTAssertTrue("\($0)".contains(message), "\(what): \($0)")
            }
        }
    }

    func testTheStagesMakeStepsFromWhereverTheStoreIs() throws {
        let bundle = try shelf()
        let staged = MigrationStrategy.staged(try ShelfStages.migration(bundle))
        let expected = [
            "Shelf 1": [
                "handler at Shelf 1", "lightweight Shelf 1 → Shelf 2", "handler at Shelf 2",
                "lightweight Shelf 2 → Shelf 3",
            ],
            "Shelf 2": ["lightweight Shelf 2 → Shelf 3"], "Shelf 3": [],
        ]
        for (start, steps) in expected {
            let (path, _) = try shelfStore(at: start, books: Self.distinct)
            let plan = try MigrationPlan.make(store: path, bundle: bundle, strategy: staged)
            let described = plan.steps.map { step in
                if case .handler = step.kind { return "handler at \(step.source.name)" }
                return "\(step.kind.name) \(step.source.name) → \(step.destination.name)"
            }
            XCTAssertEqual(described, steps, start)
        }
    }

    // MARK: Running

    func testTheHandlersRunOnceEachInOrderAndMakeTheConstraintPossible() throws {
        let bundle = try shelf()
        let (path, _) = try shelfStore()
        let calls = RecordedLines()
        let stages = try StagedMigration([
            .custom(
                CustomMigrationStage(
                    from: try checksum(bundle, "Shelf 1"), to: try checksum(bundle, "Shelf 2"), label: "unique names",
                    willMigrate: { context in
                        calls.append("willMigrate at \(context.version)")
                        try ShelfStages.mergeDuplicateAuthors(context)
                    },
                    didMigrate: { context in
                        calls.append("didMigrate at \(context.version)")
                        try ShelfStages.countBooks(context)
                    })),
            .lightweight([try checksum(bundle, "Shelf 3")]),
        ])
        let channel = ProgressChannel()
        let stagesSeen = RecordedLines()
        let observation = channel.observe {
            if $0.stage == .handler { stagesSeen.append("step \($0.step): \($0.pass)") }
        }
        defer { observation.cancel() }
        let plan = try MigrationPlan.make(store: path, bundle: bundle, strategy: .staged(stages))
        let report = try MigrationRunner.run(
            plan, store: path, options: MigrationOptions(progressChannel: channel), keepBackup: false)

        XCTAssertEqual(calls.all, ["willMigrate at Shelf 1", "didMigrate at Shelf 2"])
        XCTAssertEqual(report.steps.count, 4)
        XCTAssertEqual(
            try rows(path, "SELECT ZNAME, ZBOOKCOUNT FROM ZAUTHOR ORDER BY Z_PK"),
            [["\"Le Guin\"", "2"], ["\"Butler\"", "1"], ["\"Pratchett\"", "2"]])
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM ZBOOK WHERE ZAUTHOR IS NOT NULL"), [["5"]],
            "every book kept its author")
        XCTAssertEqual(
            try rows(
                path, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql LIKE 'CREATE UNIQUE INDEX%'"),
            [["1"]],
            "the lightweight step made the uniqueness constraint's index")
        XCTAssertTrue(
            Set(stagesSeen.all).contains("step 1: willMigrate of the custom stage \"unique names\""),
            "\(stagesSeen.all)")
        XCTAssertTrue(
            Set(stagesSeen.all).contains("step 3: didMigrate of the custom stage \"unique names\""), "\(stagesSeen.all)"
        )
    }

    func testWithoutTheMergeTheConstraintIsRefusedBeforeAnyWrite() throws {
        let bundle = try shelf()
        let (path, original) = try shelfStore()
        let stages = try StagedMigration([
            .custom(
                CustomMigrationStage(
                    from: try checksum(bundle, "Shelf 1"), to: try checksum(bundle, "Shelf 2"),
                    didMigrate: ShelfStages.countBooks)),
            .lightweight([try checksum(bundle, "Shelf 3")]),
        ])
        for strategy in [MigrationStrategy.staged(stages), .progressive, .automatic] {
            XCTAssertThrowsError(try MigrationPlan.make(store: path, bundle: bundle, strategy: strategy), "\(strategy)")
            {
                XCTAssertTrue(
                    "\($0)".contains("Author.name becomes unique (2 rows share their value with another)"), "\($0)")
                XCTAssertTrue("\($0)".contains("a staged migration's willMigrate"), "\($0)")
            }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
        // A store whose authors' names are their own needs no merge: the plan says it checked.
        let (unique, _) = try shelfStore(books: Self.distinct)
        let plan = try MigrationPlan.make(store: unique, bundle: bundle)
        XCTAssertTrue(
            plan.steps[0].findings.contains(
                "unique: Author.name becomes unique; no two rows share a value, so the step can run"),
            "\(plan.steps[0].findings)")
    }

    func testAFailingDidMigratePutsTheOriginalBack() throws {
        struct Refused: Error {}
        let bundle = try shelf()
        let (path, original) = try shelfStore()
        let stages = try StagedMigration([
            .custom(
                CustomMigrationStage(
                    from: try checksum(bundle, "Shelf 1"), to: try checksum(bundle, "Shelf 2"),
                    willMigrate: ShelfStages.mergeDuplicateAuthors,
                    didMigrate: { context in
                        try ShelfStages.countBooks(context)
                        throw Refused()
                    })),
            .lightweight([try checksum(bundle, "Shelf 3")]),
        ])
        XCTAssertThrowsError(
            try MigrationRunner.run(
                try MigrationPlan.make(store: path, bundle: bundle, strategy: .staged(stages)), store: path)
        ) {
            XCTAssertEqual(($0 as? MigrationError)?.state, .restored(version: "Shelf 1"), "\($0)")
            XCTAssertTrue("\($0)".contains("the didMigrate of the custom stage failed: Refused"), "\($0)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original, "the original, byte for byte")
        XCTAssertEqual(try directoryListing(path), ["Shelf.sqlite"], "no backup, journal or work file left")
    }

    /// A cancel (Ctrl-C, the console's x) that comes while a handler works stops it at its next
    /// change: in the first step nothing was written, in a later one the original comes back.
    func testACancelDuringAHandlerPutsTheOriginalBack() throws {
        let bundle = try shelf()
        for moment in [StageHandlerStep.Moment.willMigrate, .didMigrate] {
            let (path, original) = try shelfStore()
            let options = MigrationOptions()
            let token = options.cancellation
            let cancelling: (@escaping StageHandler) -> StageHandler = { handler in
                { context in
                    token.cancel()  // as a user's Ctrl-C arriving now
                    try handler(context)
                }
            }
            let stages = try StagedMigration([
                .custom(
                    CustomMigrationStage(
                        from: try checksum(bundle, "Shelf 1"), to: try checksum(bundle, "Shelf 2"),
                        willMigrate: moment == .willMigrate
                            ? cancelling(ShelfStages.mergeDuplicateAuthors) : ShelfStages.mergeDuplicateAuthors,
                        didMigrate: moment == .didMigrate ? cancelling(ShelfStages.countBooks) : ShelfStages.countBooks)
                ),
                .lightweight([try checksum(bundle, "Shelf 3")]),
            ])
            let plan = try MigrationPlan.make(store: path, bundle: bundle, strategy: .staged(stages))
            XCTAssertThrowsError(try MigrationRunner.run(plan, store: path, options: options)) { error in
                XCTAssertEqual((error as? MigrationError)?.kind, .cancelled, "\(error)")
                let expected: StoreState =
                    moment == .willMigrate ? .unchanged(version: "Shelf 1") : .restored(version: "Shelf 1")
                XCTAssertEqual((error as? MigrationError)?.state, expected, "\(error)")
            }
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: path)), original, "\(moment): the original, byte for byte")
            XCTAssertEqual(try directoryListing(path), ["Shelf.sqlite"], "\(moment): nothing left beside it")
        }
    }

    /// While a handler runs, its work can commit at any moment while the store keeps its hashes:
    /// the backup must already be whole and noted in the plan's journal, with no marker saying a
    /// copy is under way (recovery removes a marked backup whose hashes are the store's, taking
    /// the step for one that never committed). The crash harness's `staged` kind found a kill in
    /// that moment putting nothing back.
    func testWhileAHandlerRunsTheBackupIsWholeAndNoted() throws {
        let bundle = try shelf()
        let (path, original) = try shelfStore()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let seen = RecordedLines()
        let stages = try StagedMigration([
            .custom(
                CustomMigrationStage(
                    from: try checksum(bundle, "Shelf 1"), to: try checksum(bundle, "Shelf 2"),
                    willMigrate: { context in
                        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                        seen.append(
                            files.filter { $0.hasPrefix(".") || $0.contains("~") }.sorted().joined(separator: " "))
                        let backup = directory.appendingPathComponent("Shelf~.sqlite")
                        seen.append(
                            (try? Data(contentsOf: backup)) == original ? "backup is the original" : "backup differs")
                        try ShelfStages.mergeDuplicateAuthors(context)
                    })),
            .lightweight([try checksum(bundle, "Shelf 3")]),
        ])
        _ = try MigrationRunner.run(
            try MigrationPlan.make(store: path, bundle: bundle, strategy: .staged(stages)), store: path)
        XCTAssertEqual(seen.all, [".Shelf.sqlite.chrysalis-plan Shelf~.sqlite", "backup is the original"])
    }

    // MARK: The context

    /// Runs `handler` as the only stage's willMigrate on a Shelf 1 store whose authors' names are
    /// their own, and returns the store.
    private func runWillMigrate(_ handler: @escaping StageHandler) throws -> (
        path: String, report: MigrationRunner.Report
    ) {
        let bundle = try shelf()
        let (path, _) = try shelfStore(books: Self.distinct)
        let stages = try StagedMigration([
            .custom(
                CustomMigrationStage(
                    from: try checksum(bundle, "Shelf 1"), to: try checksum(bundle, "Shelf 2"), willMigrate: handler))
        ])
        let plan = try MigrationPlan.make(store: path, bundle: bundle, to: "Shelf 2", strategy: .staged(stages))
        return (path, try MigrationRunner.run(plan, store: path, keepBackup: false))
    }

    func testFetchesTakeTheFiltersPredicates() throws {
        let counts = RecordedLines()
        _ = try runWillMigrate { context in
            for predicate in [
                "name == \"Pratchett\"", "name BEGINSWITH[c] \"le\"", "author.name == \"Butler\"",
                "title != nil AND author == nil",
            ] {
                let entity = predicate.hasPrefix("name") ? "Author" : "Book"
                counts.append("\(predicate): \(try context.fetch(entity, where: predicate).count)")
            }
            XCTAssertThrowsError(try context.fetch("Author", where: "name ==")) {
                XCTAssertTrue("\($0)".contains("predicate"), "\($0)")
            }
            XCTAssertThrowsError(try context.fetch("Publisher")) {
                XCTAssertTrue("\($0)".contains("use one of: Author, Book"), "\($0)")
            }
        }
        XCTAssertEqual(
            counts.all,
            [
                "name == \"Pratchett\": 1", "name BEGINSWITH[c] \"le\": 1", "author.name == \"Butler\": 1",
                "title != nil AND author == nil: 0",
            ])
    }

    /// `addObjects(_:forKey:)`, as Core Data's `mutableSetValue(forKey:).addObjects`: the books
    /// join their new author and leave their old one, those already there stay, nothing twice.
    func testAddingToAToManyKeepsItsMembersAndMovesTheNewOnes() throws {
        let expected = RecordedLines()
        let (path, _) = try runWillMigrate { context in
            let pratchett = try XCTUnwrap(try context.fetch("Author", where: "name == \"Pratchett\"").first)
            let butler = try XCTUnwrap(try context.fetch("Author", where: "name == \"Butler\"").first)
            let kindred = try butler.objects(forKey: "books")
            XCTAssertEqual(kindred.count, 1, "the premise")
            let own = try pratchett.objects(forKey: "books")
            try pratchett.addObjects(kindred + own, forKey: "books")
            expected.append("\(own.count + kindred.count)")
            XCTAssertEqual(
                Set(try pratchett.objects(forKey: "books").map(\.objectID)), Set((own + kindred).map(\.objectID)))
            XCTAssertTrue(try butler.objects(forKey: "books").isEmpty, "Kindred left Butler")
            XCTAssertThrowsError(try kindred[0].addObjects([pratchett], forKey: "author")) {
                XCTAssertTrue("\($0)".contains("is to-one"), "\($0)")
            }
            try context.save()
        }
        XCTAssertEqual(
            try rows(
                path, "SELECT count(*) FROM ZBOOK b JOIN ZAUTHOR a ON b.ZAUTHOR = a.Z_PK WHERE a.ZNAME = 'Pratchett'"),
            [expected.all])
    }

    func testDeletesFollowTheDeleteRulesAndUnsavedChangesAreDiscarded() throws {
        let (path, report) = try runWillMigrate { context in
            let butler = try XCTUnwrap(try context.fetch("Author", where: "name == \"Butler\"").first)
            try context.delete(butler)  // Nullify: Kindred stays, with no author
            let book = try context.insert("Book")
            try book.setValue(.string("Parable"), forKey: "title")
            try context.save()
            // Unsaved when the handler returns: discarded, as an unsaved context's changes are.
            try book.setValue(.string("Never saved"), forKey: "title")
            XCTAssertTrue(context.hasChanges)
        }
        XCTAssertEqual(try rows(path, "SELECT ZNAME FROM ZAUTHOR ORDER BY Z_PK"), [["\"Le Guin\""], ["\"Pratchett\""]])
        XCTAssertEqual(
            try rows(path, "SELECT ZTITLE, ZAUTHOR FROM ZBOOK WHERE ZTITLE IN ('Kindred', 'Parable') ORDER BY Z_PK"),
            [["\"Kindred\"", "NULL"], ["\"Parable\"", "NULL"]])
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM ZBOOK WHERE ZTITLE = 'Never saved'"), [["0"]])
        XCTAssertTrue(report.steps[0].passes[0].contains("1 unsaved change discarded"), "\(report.steps[0].passes)")
    }

    func testASaveValidatesWhatChangedByCoreDatasRules() throws {
        XCTAssertThrowsError(
            try runWillMigrate { context in
                let author = try context.insert("Author")  // name is required and has no default
                _ = author
                try context.save()
            }
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .validation)
            XCTAssertTrue(
                "\(error)".contains("Author object 4 (Z_PK 4): name is required but has no value"), "\(error)")
            XCTAssertTrue("\(error)".contains("willMigrate"), "\(error)")
        }
    }
}
