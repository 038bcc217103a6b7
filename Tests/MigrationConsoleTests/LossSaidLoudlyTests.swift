import Foundation
import MigrationConsole
import MigrationEngine
import ObjectModel
import SQLiteStore
import Synchronization
import TestSupport
import XCTest

/// What a plan drops is said where a person looks after the run: each step's pane lists each
/// dropped entity with its rows and each dropped property, in the error colour, at the top; the
/// result's row table lists the entity as dropped; no step that dropped data is said to have the
/// same rows before and after. Wire's 2.3 → current drops `PersonalInvitation` with every row.
final class LossSaidLoudlyTests: FixtureTestCase {
    func testAStepThatDropsAnEntityNamesItWithItsRows() throws {
        let bundle = try ModelBundle.read(
            at: try XCTUnwrap(Fixtures.files(where: { $0.lastPathComponent == "zmessaging.xcdatamodeld" }).first))
        let source = try XCTUnwrap(bundle.version(named: "zmessaging2.3"))
        let path = try scratchDirectory().appendingPathComponent("Wire.sqlite").path
        let store = try PersistentStore.create(at: path, model: source.model)
        try DataGenerator(model: source.model, seed: 5).fill(store, rows: 40)
        let invitations = try store.rowCounts(model: source.model)["PersonalInvitation"]
        try store.close()
        XCTAssertEqual(invitations, 40, "the premise: the store holds invitations")

        let plan = try MigrationPlan.make(store: path, bundle: bundle)
        let completed = Mutex<[CompletedStep]>([])
        var options = MigrationOptions()
        options.afterStep = { done in completed.withLock { $0.append(done) } }
        _ = try MigrationRunner.run(plan, store: path, options: options)
        let results = completed.withLock { $0 }.map { StepResult($0, tables: []) }
        let dropping = try XCTUnwrap(
            results.first { $0.dropped.contains { $0.isEntity && $0.what == "PersonalInvitation" } })
        XCTAssertEqual(dropping.dropped.first { $0.what == "PersonalInvitation" }?.rows, 40, "with its rows")
        XCTAssertTrue(dropping.dropped.contains { !$0.isEntity }, "and its dropped attributes")
        XCTAssertFalse(
            dropping.verification.contains("every entity's rows counted, the same before and after"),
            dropping.verification)

        for (width, height) in [(80, 24), (120, 40)] {
            var state = ConsoleState(
                store: path, bundle: bundle, plan: plan, options: MigrationOptions(), width: width, height: height,
                glyphs: .unicode)
            for result in results { _ = state.reduce(.stepDone(result, paused: false)) }
            _ = state.reduce(
                .finished(
                    .init(
                        from: plan.storeVersion, to: plan.targetVersion,
                        rows: [("PersonalInvitation", 40, nil), ("User", 40, 40)], backup: nil, seconds: 1)))
            let grid = Screens.render(state)
            let summary = try XCTUnwrap(
                (0..<height).first { grid.row($0).contains("Dropped, as planned: PersonalInvitation 40 rows") },
                grid.text)
            XCTAssertEqual(grid.style(x: 1, y: summary), .bad, grid.text)
            let table = try XCTUnwrap(
                (0..<height).first { grid.row($0).hasPrefix(" PersonalInvitation ") },
                "the row table lists it:\n\(grid.text)")
            XCTAssertTrue(grid.row(table).contains("dropped"), grid.text)
            XCTAssertTrue(grid.text.contains("PersonalInvitation 40 rows →"), "the step's pane lists it:\n\(grid.text)")
        }
    }
}
