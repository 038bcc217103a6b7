import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import Testing

@testable import MigrationConsole

/// The Plan screen's SQL view (Enter): the keys that open, scroll, page, change step and close
/// it, on the real BookStore plan's SQL as the console compiles it when it opens.
@Suite struct SQLViewTests {
    /// The golden plan (BookStore → 5, four steps) at `width`×`height`, on the Plan screen.
    func plan(width: Int = 80, height: Int = 24) throws -> ConsoleState {
        var state = try GoldenStates.base(width: width, height: height)
        state.screen = .plan
        return state
    }

    /// The heading's `lines a–b of n`, as the screen shows it.
    func position(_ state: ConsoleState) -> String {
        let heading = Screens.render(state).row(3)
        return heading.range(of: #"lines \d+–\d+ of \d+"#, options: .regularExpression).map { String(heading[$0]) }
            ?? ""
    }

    @Test func enterOpensTheSelectedStepsSQLAndEscClosesIt() throws {
        var state = try plan()
        state.selection[ConsoleState.Screen.plan.rawValue] = state.planLine(ofStep: 1)
        #expect(state.reduce(.key(.enter)).isEmpty)
        #expect(state.overlays.sql == ConsoleState.SQLView(step: 1))
        let screen = Screens.render(state).text
        #expect(screen.contains("SQL of step 2/4: BookStore 2 → BookStore 3  [lightweight]"), "\(screen)")
        #expect(screen.contains("ALTER TABLE _chrysalis_move_ZPUBLICATION RENAME TO ZPUBLICATION;"), "\(screen)")
        #expect(Screens.render(state).row(23).contains("Esc back"), "the key bar says how to leave")
        _ = state.reduce(.key(.escape))
        #expect(state.overlays.sql == nil)
        #expect(state.screen == .plan)
        #expect(
            state.selection[ConsoleState.Screen.plan.rawValue] == state.planLine(ofStep: 1),
            "back on the plan, the same step selected")
        #expect(Screens.render(state).text.contains("Plan: BookStore → BookStore 5, 4 steps"))
    }

    @Test func arrowsAndPagesScrollWithinTheSQL() throws {
        var state = try plan()
        state.selection[ConsoleState.Screen.plan.rawValue] = state.planLine(ofStep: 2)
        _ = state.reduce(.key(.enter))
        #expect(position(state) == "lines 1–18 of 94")
        _ = state.reduce(.key(.up))
        #expect(position(state) == "lines 1–18 of 94", "never above the first line")
        _ = state.reduce(.key(.down))
        _ = state.reduce(.key(.character("j")))
        #expect(position(state) == "lines 3–20 of 94")
        _ = state.reduce(.key(.pageDown))
        #expect(position(state) == "lines 20–37 of 94", "a page keeps one line of the last in view")
        for _ in 0..<10 { _ = state.reduce(.key(.pageDown)) }
        #expect(position(state) == "lines 77–94 of 94", "never past the last line")
        _ = state.reduce(.key(.down))
        #expect(position(state) == "lines 77–94 of 94")
        #expect(Screens.render(state).text.contains("CREATE INDEX"), "the end of the step: its indexes built")
        _ = state.reduce(.key(.pageUp))
        _ = state.reduce(.key(.character("k")))
        #expect(position(state) == "lines 59–76 of 94")
    }

    @Test func leftAndRightShowTheNeighbouringStepsSQL() throws {
        var state = try plan()
        _ = state.reduce(.key(.enter))
        _ = state.reduce(.key(.pageDown))
        _ = state.reduce(.key(.left))
        #expect(state.overlays.sql == ConsoleState.SQLView(step: 0, top: 0), "no step before the first: nothing moves")
        _ = state.reduce(.key(.right))
        _ = state.reduce(.key(.character("l")))
        #expect(state.overlays.sql == ConsoleState.SQLView(step: 2), "each step's SQL starts at its top")
        #expect(state.selection[ConsoleState.Screen.plan.rawValue] == state.planLine(ofStep: 2))
        _ = state.reduce(.key(.character("l")))
        _ = state.reduce(.key(.right))
        #expect(state.overlays.sql?.step == 3, "no step after the last")
        _ = state.reduce(.key(.character("h")))
        #expect(state.overlays.sql?.step == 2)
    }

    /// Inside the SQL, `m` waits, help opens over it, Tab leaves for another screen and comes
    /// back to it, and `q` closes the SQL: only a `q` on the plan itself quits.
    @Test func otherKeysWaitWhileTheSQLIsOpenButHelpTabAndQWork() throws {
        var state = try plan()
        _ = state.reduce(.key(.enter))
        #expect(state.reduce(.key(.character("m"))).isEmpty, "m does not start a migration from inside the SQL")
        #expect(state.screen == .plan)
        #expect(state.mode == .browsing)
        _ = state.reduce(.key(.character("?")))
        #expect(state.overlays.help)
        #expect(Screens.render(state).text.contains("A step's SQL (Enter on Plan)"))
        _ = state.reduce(.key(.escape))
        #expect(!state.overlays.help)
        #expect(state.overlays.sql != nil, "Esc closes the help first, then the SQL")
        _ = state.reduce(.key(.tab))
        #expect(state.screen == .migrate)
        _ = state.reduce(.key(.backTab))
        #expect(state.screen == .plan && state.overlays.sql != nil, "Shift-Tab comes back to the SQL as it was")
        #expect(state.reduce(.key(.character("q"))).isEmpty, "q closes the SQL")
        #expect(state.overlays.sql == nil)
        #expect(state.reduce(.key(.character("q"))) == [.quit], "and quits from the top")
    }

    /// Home and End reach the ends of a step's SQL, and `/` finds in it: `n` and `N` go on.
    @Test func homeEndAndFindWorkInTheSQL() throws {
        var state = try plan()
        state.selection[ConsoleState.Screen.plan.rawValue] = state.planLine(ofStep: 2)
        _ = state.reduce(.key(.enter))
        _ = state.reduce(.key(.end))
        #expect(position(state) == "lines 77–94 of 94")
        _ = state.reduce(.key(.home))
        #expect(position(state) == "lines 1–18 of 94")
        for key in "/create index" { _ = state.reduce(.key(.character(key))) }
        _ = state.reduce(.key(.enter))
        let lines = SQLScreen.lines(state, step: 2)
        let matches = lines.indices.filter { lines[$0].text.localizedCaseInsensitiveContains("create index") }
        #expect(matches.count >= 2, "the premise: the step builds several indexes")
        #expect(state.overlays.sql?.match == matches[0], "the first match")
        let screen = Screens.render(state)
        #expect(
            (4..<22).contains { y in (0..<screen.width).contains { screen.style(x: $0, y: y) == .accent } },
            "the match is lit:\n\(screen.text)")
        _ = state.reduce(.key(.character("n")))
        #expect(state.overlays.sql?.match == matches[1], "n goes on to the next match")
        _ = state.reduce(.key(.character("N")))
        #expect(state.overlays.sql?.match == matches[0], "N goes back")
    }

    @Test func resizingKeepsTheViewWithinItsLines() throws {
        var state = try plan()
        state.selection[ConsoleState.Screen.plan.rawValue] = state.planLine(ofStep: 2)
        _ = state.reduce(.key(.enter))
        for _ in 0..<10 { _ = state.reduce(.key(.pageDown)) }
        _ = state.reduce(.resize(width: 120, height: 40))
        #expect(position(state) == "lines 43–76 of 76", "wider lines wrap less: the last line stays the last in view")
        #expect(!Screens.render(state).text.split(separator: "\n").contains { $0.count > 120 })
    }

    @Test func aPlanWithoutSQLSaysWhy() throws {
        var state = try plan()
        state.sql = []
        state.sqlProblem = "BookStore.sqlite: unable to open database file"
        _ = state.reduce(.key(.enter))
        #expect(
            Screens.render(state).text.contains(
                "The SQL could not be compiled: BookStore.sqlite: unable to open database"))
    }

    /// The console compiles its SQL with `plan --sql`'s function, once as it opens, and that
    /// reads the store without writing it: every file beside it keeps its bytes.
    @Test func compilingTheSQLWritesNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chrysalis-sqlview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try ModelBundle.read(at: DemoResources.bookStoreBundle)
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        let start = try #require(bundle.version(named: "BookStore"))
        let store = try PersistentStore.create(at: path, model: start.model)
        try DataGenerator(model: start.model).fill(store, rows: 200)
        try store.close()
        let files = {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map {
                try Data(contentsOf: directory.appendingPathComponent($0))
            }
        }
        let before = try files()
        let plan = try MigrationPlan.make(
            store: path, bundle: bundle, mappings: [try DemoResources.mapping("BookStore3To4")], to: "BookStore 4")
        let options = MigrationOptions(policies: DemoResources.policies)
        let state = ConsoleState(
            store: path, bundle: bundle, plan: plan, options: options, width: 80, height: 24, glyphs: .unicode)
        #expect(try files() == before)
        let expected = try plan.statements(store: path, options: options).map(ConsoleState.StepSQL.init)
        #expect(state.sql == expected && state.sql.count == plan.steps.count && state.sqlProblem == nil)
        #expect(
            state.sql.first?.parts.flatMap(\.statements).contains("ALTER TABLE ZBOOK ADD COLUMN ZAUTHOR VARCHAR")
                == true)
    }
}

/// What lazygit, tig and less users reach for: half a page (Ctrl-D, Ctrl-U) and step to step
/// (`[`, `]`) on the Plan screen and in a step's SQL.
@Suite struct HalfPageAndStepKeysTests {
    @Test func halfAPageMovesHalfAsFarAsAPage() throws {
        var state = try SQLViewTests().plan()
        #expect(state.rowCount > state.pageRows / 2 + 1, "the premise: more lines than half a page")
        _ = state.reduce(.key(.halfPageDown))
        let half = state.selection[ConsoleState.Screen.plan.rawValue]
        #expect(half == max(state.pageRows / 2, 1), "page \(state.pageRows), half \(half)")
        _ = state.reduce(.key(.halfPageUp))
        #expect(state.selection[ConsoleState.Screen.plan.rawValue] == 0)
    }

    @Test func bracketsGoFromStepToStepOnThePlanAndInTheSQL() throws {
        var state = try SQLViewTests().plan()
        let plan = ConsoleState.Screen.plan.rawValue
        _ = state.reduce(.key(.character("]")))
        #expect(state.selection[plan] == state.planLine(ofStep: 1))
        _ = state.reduce(.key(.character("]")))
        #expect(state.selection[plan] == state.planLine(ofStep: 2))
        _ = state.reduce(.key(.down))
        _ = state.reduce(.key(.character("[")))
        #expect(state.selection[plan] == state.planLine(ofStep: 2), "from inside a step, to its own heading")
        _ = state.reduce(.key(.character("[")))
        #expect(state.selection[plan] == state.planLine(ofStep: 1))
        _ = state.reduce(.key(.enter))
        _ = state.reduce(.key(.character("]")))
        #expect(state.overlays.sql?.step == 2, "in the SQL, the next step's")
        _ = state.reduce(.key(.halfPageDown))
        #expect((state.overlays.sql?.top ?? 0) > 0, "and Ctrl-D scrolls it")
    }
}
