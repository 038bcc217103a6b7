import Demo
import Foundation
import MigrationConsole
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// The fixed states every golden screen is rendered from: the BookStore demo's store at its
/// first version, planned through every version to BookStore 5 (a real plan from a real store),
/// then each stage of each step kind, each pause, and the end.
enum GoldenStates {
    /// The BookStore demo at its first version, planned version by version to BookStore 5.
    static func base(width: Int, height: Int, glyphs: Glyphs = .unicode) throws -> ConsoleState {
        let bundle = try ModelBundle.read(at: DemoResources.bookStoreBundle)
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        try PersistentStore.create(at: path, model: try XCTUnwrap(bundle.version(named: "BookStore")).model).close()
        let plan = try MigrationPlan.make(
            store: path, bundle: bundle,
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")],
            strategy: .iterative)
        // The demo's policies and hook, as `chrysalis demo` runs with: they decide what is SQL.
        let options = MigrationOptions(policies: DemoResources.policies, configureManager: BookStoreSynopsis.install)
        return ConsoleState(
            store: path, bundle: bundle, plan: plan, options: options, width: width, height: height, glyphs: glyphs)
    }

    /// A progress value of the four-step plan.
    static func progress(
        step: Int, pass: String, stage: MigrationProgress.Stage, mapping: (String, Int)? = nil, done: Int, total: Int,
        unit: MigrationProgress.Unit = .rows, fraction: Double, rate: Double = 0, elapsed: Double, remaining: Double?
    ) -> MigrationProgress {
        MigrationProgress(
            step: step, stepCount: 4, pass: pass, entityMapping: mapping?.0, entityMappingIndex: mapping?.1 ?? 0,
            entityMappingCount: mapping == nil ? 0 : 3,
            stage: stage, rowsDone: done, rowsTotal: total, unit: unit, fraction: fraction, rowsPerSecond: rate,
            elapsed: elapsed, remaining: remaining)
    }

    static let inPlace2 = "BookStore 2 → BookStore 3 (lightweight, in place)"

    /// Every stage of both step kinds, by golden name.
    static let stages: [(String, MigrationProgress)] = [
        (
            "migrate-inplace-backup",
            progress(
                step: 1, pass: "BookStore → BookStore 2 (lightweight, in place)", stage: .backup, done: 0, total: 38,
                unit: .megabytes,
                fraction: 0.01, elapsed: 0.2, remaining: nil)
        ),
        (
            "migrate-inplace-change",
            progress(
                step: 2, pass: inPlace2, stage: .inPlace, done: 0, total: 3, unit: .tables, fraction: 0.04,
                elapsed: 1.6, remaining: 38)
        ),
        (
            "migrate-inplace-verify",
            progress(
                step: 2, pass: inPlace2, stage: .verify, done: 0, total: 600_004, fraction: 0.06, elapsed: 2.3,
                remaining: 36)
        ),
        (
            "migrate-running",
            progress(
                step: 3, pass: "BookStore3To4", stage: .createInstances, mapping: ("PublicationToPublication", 2),
                done: 100_000, total: 200_004,
                fraction: 0.42, rate: 51_000, elapsed: 12, remaining: 17)
        ),
        (
            "migrate-relationships",
            progress(
                step: 3, pass: "BookStore3To4", stage: .createRelationships, mapping: ("PageToPage", 3), done: 200_000,
                total: 200_000,
                fraction: 0.71, rate: 2_400_000, elapsed: 17, remaining: 7)
        ),
        (
            "migrate-indexes",
            progress(
                step: 3, pass: "BookStore3To4", stage: .indexes, done: 0, total: 5, unit: .indexes, fraction: 0.72,
                elapsed: 17, remaining: 6.6)
        ),
        (
            "migrate-validate",
            progress(
                step: 3, pass: "BookStore3To4", stage: .validate, done: 400_001, total: 600_005, fraction: 0.75,
                rate: 900_000, elapsed: 18,
                remaining: 6)
        ),
        (
            "migrate-verify",
            progress(
                step: 4, pass: "BookStore4To5", stage: .verify, done: 0, total: 600_005, fraction: 0.97, elapsed: 23,
                remaining: 0.7)
        ),
        (
            "migrate-swap",
            progress(
                step: 4, pass: "BookStore4To5", stage: .swap, done: 0, total: 1, unit: .files, fraction: 0.99,
                elapsed: 23.5, remaining: 0.2)
        ),
    ]

    /// The demo's results for the first `count` steps, as the console shows them.
    static func results(_ count: Int) -> [StepResult] {
        let all = [
            StepResult(
                index: 1, from: "BookStore", to: "BookStore 2", how: "lightweight, in place", seconds: 0.17,
                verification: "schema checked against the destination model; no row was touched", rows: [],
                tables: [
                    .init(
                        title: "ZBOOK's columns: ZAUTHOR is new, added in place", columns: ["column", "type"],
                        rows: [
                            ["Z_PK", "INTEGER"], ["Z_ENT", "INTEGER"], ["Z_OPT", "INTEGER"], ["ZCATEGORY", "INTEGER"],
                            ["ZPRICE", "FLOAT"],
                            ["ZTITLE", "VARCHAR"], ["ZAUTHOR", "VARCHAR"],
                        ])
                ]),
            StepResult(
                index: 2, from: "BookStore 2", to: "BookStore 3", how: "lightweight, in place", seconds: 0.88,
                verification: "schema checked; every entity's rows counted, the same before and after",
                rows: [
                    .init(entity: "Book", before: 200_004, after: nil),
                    .init(entity: "Publication", before: nil, after: 200_004),
                ],
                tables: [
                    .init(
                        title: "tables: ZBOOK is now ZPUBLICATION, renamed in place", columns: ["table"],
                        rows: [["ZCATEGORY"], ["ZPAGE"], ["ZPUBLICATION"], ["Z_METADATA"], ["Z_PRIMARYKEY"]]),
                    .init(
                        title: "The demo's own work: it gives the text's four books their authors and prices 20 to 23.",
                        columns: [], rows: []),
                    .init(
                        title: "authors and prices, as the demo set them", columns: ["ZTITLE", "ZAUTHOR", "ZPRICE"],
                        rows: [["The first book", "John Doe", "20.0"], ["The second book", "Jane Doe", "21.0"]]),
                ]),
            StepResult(
                index: 3, from: "BookStore 3", to: "BookStore 4", how: "mapping: BookStore3To4", seconds: 4.8,
                verification: "SQLite quick check ok; every entity's rows reconciled with what the passes created",
                rows: [],
                tables: [
                    .init(
                        title: "names split by the custom policy", columns: ["ZTITLE", "ZFIRSTNAME", "ZLASTNAME"],
                        rows: [["The first book", "John", "Doe"], ["The second book", "Jane", "Doe"]])
                ]),
            StepResult(
                index: 4, from: "BookStore 4", to: "BookStore 5", how: "mapping: BookStore4To5", seconds: 1.0,
                verification: "SQLite quick check ok; every entity's rows reconciled with what the passes created",
                rows: [],
                tables: [
                    .init(
                        title: "synopsis = title, from the manager hook", columns: ["ZTITLE", "ZSYNOPSIS"],
                        rows: [["The first book", "The first book"], ["The second book", "The second book"]])
                ]),
        ]
        return Array(all.prefix(count))
    }

    /// `state` migrating, at `progress`, with the steps before it done.
    static func migrating(_ base: ConsoleState, at progress: MigrationProgress, stepMode: Bool = false) -> ConsoleState
    {
        var state = base
        _ = state.reduce(.key(.character(stepMode ? "s" : "m")))
        for result in results(progress.step - 1) { _ = state.reduce(.stepDone(result, paused: false)) }
        _ = state.reduce(.progress(progress))
        return state
    }

    /// The finished plan.
    static func finished(_ base: ConsoleState) -> ConsoleState {
        var state = migrating(base, at: stages[7].1)
        _ = state.reduce(.stepDone(results(4)[3], paused: false))
        _ = state.reduce(
            .finished(
                ConsoleState.Outcome(
                    from: "BookStore", to: "BookStore 5",
                    rows: [
                        ("Book", 200_004, nil), ("Category", 200_001, 200_001), ("Page", 200_000, 200_000),
                        ("Publication", nil, 200_004),
                    ],
                    backup: "BookStore~.sqlite", seconds: 7.0)))
        return state
    }
}
