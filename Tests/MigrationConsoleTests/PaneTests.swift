import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

@testable import MigrationConsole

/// No dead ends: every pane beside a list takes the keys and scrolls to its last line, Esc
/// gives them back, `q` quits only from the top, and the number keys and Shift-Tab reach the
/// screens. WooCommerce 9 → 10's mapping model has an expression (`statusKey = $source.status`)
/// no key reached at 80×24 or 120×40.
final class PaneTests: FixtureTestCase {
    private func wooCommerce(width: Int, height: Int) throws -> ConsoleState {
        let folder = try XCTUnwrap(
            Fixtures.files(where: { $0.lastPathComponent == "WooCommerceModelV9toV10.xcmappingmodel" }).first
        )
        .deletingLastPathComponent()
        let bundle = try ModelBundle.read(at: folder.appendingPathComponent("WooCommerce.xcdatamodeld"))
        let mapping = try XCMappingReader.read(
            at: folder.appendingPathComponent("WooCommerceModelV9toV10.xcmappingmodel"))
        let source = try XCTUnwrap(bundle.version(named: "Model 9"))
        let path = try scratchDirectory().appendingPathComponent("WooCommerce.sqlite").path
        try PersistentStore.create(at: path, model: source.model).close()
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: [mapping], to: "Model 10")
        return ConsoleState(
            store: path, bundle: bundle, plan: plan, options: MigrationOptions(), width: width, height: height,
            glyphs: .unicode)
    }

    func testEveryExpressionOfAMappingIsReachable() throws {
        for (width, height) in [(80, 24), (120, 40)] {
            var state = try wooCommerce(width: width, height: height)
            _ = state.reduce(.key(.character("3")))
            XCTAssertEqual(state.screen, .mappings, "3 is the Mappings screen")
            let order = state.allMappings
            let index = try XCTUnwrap(
                order.firstIndex { $0.properties.contains { $0.name == "statusKey" } },
                "the premise: a mapping sets statusKey")
            for _ in 0..<index { _ = state.reduce(.key(.down)) }
            _ = state.reduce(.key(.character("l")))
            XCTAssertTrue(state.pane.focused)
            var seen = Screens.render(state).text
            for _ in 0..<200 where !seen.contains("statusKey = $source.status") {
                _ = state.reduce(.key(.down))
                seen = Screens.render(state).text
            }
            XCTAssertTrue(
                seen.contains("statusKey = $source.status"),
                "\(width)x\(height): reached by scrolling the pane:\n\(seen)")
            _ = state.reduce(.key(.end))
            XCTAssertEqual(state.pane.top, Panes.lastTop(state))
            let last = try XCTUnwrap(Panes.pane(state)?.lines.last?.text)
            XCTAssertTrue(Screens.render(state).text.contains(last), "End shows the last line")
            _ = state.reduce(.key(.escape))
            XCTAssertFalse(state.pane.focused, "Esc gives the keys back")
            XCTAssertEqual(state.reduce(.key(.character("q"))), [.quit], "q quits from the top")
        }
    }

    /// The Versions pane says what each version changed and scrolls; `/` finds a version by
    /// what it changed, and `n` goes on.
    func testAVersionsChangesAreInItsPaneAndFound() throws {
        var state = try wooCommerce(width: 80, height: 24)
        let adding = state.versions.indices.filter {
            state.versions[$0].changes.contains { $0.hasPrefix("new entity") }
        }
        XCTAssertGreaterThan(adding.count, 1, "the premise: several versions add entities")
        _ = state.reduce(.key(.home))
        for key in "/new entity" { _ = state.reduce(.key(.character(key))) }
        _ = state.reduce(.key(.enter))
        let first = state.selection[0]
        XCTAssertEqual(first, adding[0], "the first version that adds an entity")
        _ = state.reduce(.key(.character("n")))
        XCTAssertEqual(state.selection[0], adding[1], "n finds the next")
        let selected = state.versions[state.selection[0]]
        _ = state.reduce(.key(.character("l")))
        _ = state.reduce(.key(.end))
        let text = Screens.render(state).text
        XCTAssertTrue(
            text.contains(selected.changes.last.map { String($0.prefix(30)) } ?? "The first version."),
            "the pane ends with the version's last change:\n\(text)"
        )
        _ = state.reduce(.key(.backTab))
        XCTAssertEqual(state.screen, .migrate, "Shift-Tab goes back round")
        XCTAssertFalse(state.pane.focused)
    }

    /// A presenter's step mode: at 80×24 the mapping order of WooCommerce 9 → 10 is longer than
    /// its area; the running mapping stays in view with its position, and the stage is named
    /// (before: the list stopped at #10 and the running mapping left the screen at #11).
    func testTheRunningMappingStaysInViewWithItsPositionAndStage() throws {
        var state = try wooCommerce(width: 80, height: 24)
        let step = try XCTUnwrap(state.steps.firstIndex { $0.kind == .mapping })
        let pass = try XCTUnwrap(state.steps[step].mappings.first?.pass)
        let order = state.allMappings.filter { $0.pass == pass }
        XCTAssertGreaterThan(order.count, 12, "the premise: more mappings than the area holds")
        _ = state.reduce(.key(.character("m")))
        for (index, mapping) in order.enumerated() {
            _ = state.reduce(
                .progress(
                    MigrationProgress(
                        step: step + 1, stepCount: state.steps.count, pass: pass, entityMapping: mapping.name,
                        entityMappingIndex: index + 1, entityMappingCount: order.count, stage: .createRelationships,
                        rowsDone: 10, rowsTotal: 100, fraction: 0.5, rowsPerSecond: 100, elapsed: 3, remaining: 4)))
            let text = Screens.render(state).text
            XCTAssertTrue(
                text.contains("\(state.glyphs.pointer) \(index + 1). \(String(mapping.name.prefix(20)))"),
                "#\(index + 1) in view:\n\(text)")
            XCTAssertTrue(text.contains("\(index + 1)/\(order.count)"), "its position:\n\(text)")
            XCTAssertTrue(text.contains("stage 2/3 · create relationships"), "the stage:\n\(text)")
            XCTAssertTrue(text.contains("ETA 4 s"), "the time left fits:\n\(text)")
        }
    }

    /// Clocks never count a pause: a 0.1 s step paused for 40 s said "in 40.3 s". The time spent
    /// waiting on a person is left out of the step's time, the plan's and the progress line's,
    /// and said apart.
    func testAPauseIsNotCountedAndIsSaidApart() throws {
        var state = try wooCommerce(width: 120, height: 40)
        _ = state.reduce(.key(.character("s")))
        let progress = MigrationProgress(
            step: 1, stepCount: state.steps.count, pass: "p", entityMapping: nil, entityMappingIndex: 0,
            entityMappingCount: 0,
            stage: .createInstances, rowsDone: 10, rowsTotal: 100, fraction: 0.1, rowsPerSecond: 100, elapsed: 42,
            remaining: 84)
        _ = state.reduce(.progress(progress))
        _ = state.reduce(
            .paused(
                StepReport(
                    pass: "p", entityMapping: "A", index: 1, count: 2, stage: .createInstances, rowsCreated: 10,
                    sampleRows: [], next: "B")))
        XCTAssertTrue(state.isWaitingOnPerson)
        _ = state.reduce(.pauseTime(seconds: 40))
        let line = Screens.render(state).text
        XCTAssertTrue(
            line.contains(" 2 s · paused 40 s"), "the elapsed time leaves the pause out and says it apart:\n\(line)")
        XCTAssertTrue(
            line.contains("ETA 4 s"),
            "the rate behind the ETA leaves it out too (84 s over 42 s, 2 of them working):\n\(line)")
        let step = state.steps[0]
        _ = state.reduce(
            .stepDone(
                StepResult(
                    index: 1, from: step.from, to: step.to, how: "mapping", seconds: 0.1, verification: "ok", rows: [],
                    tables: []), paused: false))
        // The engine's step time leaves its pauses out already (`MigrationReport.duration`): kept
        // as it is, the pause said apart (taken off again, every paused step once read 0.0 s).
        XCTAssertEqual(try XCTUnwrap(state.run.results.last?.seconds), 0.1, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(state.run.results.last?.pausedSeconds), 40, accuracy: 0.001)
        _ = state.reduce(.finished(.init(from: step.from, to: step.to, rows: [], backup: nil, seconds: 40.3)))
        XCTAssertEqual(try XCTUnwrap(state.run.outcome?.seconds), 0.3, accuracy: 0.001)
        XCTAssertTrue(Screens.render(state).text.contains("in 0.3 s (paused 40 s apart)"), Screens.render(state).text)
    }

    /// After a migration the Versions screen marks the target as the store's version and the
    /// title says where the store is now (before: the old version stayed "the store is here").
    func testAfterAMigrationTheStoreIsShownAtTheTarget() throws {
        var state = try wooCommerce(width: 80, height: 24)
        _ = state.reduce(.key(.character("m")))
        _ = state.reduce(.finished(.init(from: "Model 9", to: "Model 10", rows: [], backup: nil, seconds: 1)))
        XCTAssertEqual(state.versions.filter(\.isStore).map(\.name), ["Model 10"])
        let text = Screens.render(state).text
        XCTAssertTrue(text.contains("at Model 10, migrated from Model 9"), text)
        _ = state.reduce(.key(.character("1")))
        state.selection[0] = try XCTUnwrap(state.versions.firstIndex { $0.name == "Model 10" })
        XCTAssertTrue(Screens.render(state).text.contains("Model 10  (the store is here)"), Screens.render(state).text)
    }

    /// The mouse: a click on a tab opens its screen, a click on a row selects it, the wheel
    /// scrolls the pane under the pointer.
    func testTheMouseSelectsTabsAndRowsAndScrollsThePaneUnderIt() throws {
        var state = try wooCommerce(width: 80, height: 24)
        let tabs = Screens.render(state).row(1)
        let plan = try XCTUnwrap(tabs.range(of: "Plan")).lowerBound
        _ = state.reduce(.key(.mouse(.click, x: tabs.distance(from: tabs.startIndex, to: plan), y: 1)))
        XCTAssertEqual(state.screen, .plan)
        _ = state.reduce(.key(.character("1")))
        let rowY = try XCTUnwrap(
            (4..<22).first {
                Screens.render(state).row($0).contains(state.versions[0].name + " ")
                    && !Screens.render(state).row($0).contains("▶")
            })
        let name = Screens.render(state).row(rowY)
        _ = state.reduce(.key(.mouse(.click, x: 5, y: rowY)))
        XCTAssertTrue(name.contains(state.versions[state.selection[0]].name), "the clicked row is selected: \(name)")
        // The Mappings pane of the longest mapping: the wheel over it scrolls it.
        _ = state.reduce(.key(.character("3")))
        let longest = try XCTUnwrap(
            state.allMappings.indices.max {
                state.allMappings[$0].properties.count < state.allMappings[$1].properties.count
            })
        state.selection[ConsoleState.Screen.mappings.rawValue] = longest
        let pane = try XCTUnwrap(Panes.pane(state))
        XCTAssertGreaterThan(Panes.lastTop(state), 0, "the premise: the pane is longer than its area")
        _ = state.reduce(.key(.mouse(.wheelDown, x: pane.area.x + 2, y: pane.area.y + 2)))
        XCTAssertEqual(state.pane.top, min(3, Panes.lastTop(state)))
        _ = state.reduce(.key(.mouse(.wheelUp, x: pane.area.x + 2, y: pane.area.y + 2)))
        XCTAssertEqual(state.pane.top, 0)
        _ = state.reduce(.key(.mouse(.wheelDown, x: 2, y: 6)))
        XCTAssertEqual(
            state.selection[ConsoleState.Screen.mappings.rawValue], min(longest + 3, state.allMappings.count - 1),
            "over the list the wheel moves the selection"
        )
    }

    /// The result's rows table ends in "… N more entities": `r` shows every entity's rows in the
    /// pane, where the keys scroll to the last.
    func testEveryEntitysRowsAreReachableAfterAMigration() throws {
        var state = try wooCommerce(width: 80, height: 24)
        _ = state.reduce(.key(.character("m")))
        let step = state.steps[0]
        _ = state.reduce(
            .stepDone(
                StepResult(
                    index: 1, from: step.from, to: step.to, how: "mapping", seconds: 1, verification: "ok", rows: [],
                    tables: []), paused: false))
        let rows = (1...40).map { (entity: "Entity\($0)", before: Int?.some($0), after: Int?.some($0)) }
        _ = state.reduce(.finished(.init(from: step.from, to: step.to, rows: rows, backup: nil, seconds: 1)))
        XCTAssertTrue(
            Screens.render(state).text.contains("more entities: r lists them all"), Screens.render(state).text)
        _ = state.reduce(.key(.character("r")))
        _ = state.reduce(.key(.character("l")))
        _ = state.reduce(.key(.end))
        XCTAssertTrue(Screens.render(state).text.contains("Entity40"), Screens.render(state).text)
        _ = state.reduce(.key(.escape))
        _ = state.reduce(.key(.character("r")))
        XCTAssertTrue(Screens.render(state).text.contains("Step 1:"), "r goes back to the step's result")
    }

    /// The Model screen's filter lists only the entities a change from the version before names
    /// (`f added`: those that gained a property, or are new), and Esc lists them all again.
    func testTheModelFilterListsTheEntitiesThatChanged() throws {
        var state = try wooCommerce(width: 80, height: 24)
        let index = try XCTUnwrap(
            state.versions.indices.first { index in
                state.versions[index].changes.filter { $0.hasSuffix(" added") && $0.contains(".") }.count >= 1
                    && state.versions[index].entities.count > 3
            })
        state.selection[0] = index
        _ = state.reduce(.key(.enter))
        XCTAssertEqual(state.screen, .model)
        let all = state.modelEntities.count
        for key in "fadded" { _ = state.reduce(.key(.character(key))) }
        _ = state.reduce(.key(.enter))
        let named = Set(
            state.versions[index].changes.filter { $0.localizedCaseInsensitiveContains("added") && $0.contains(".") }
                .compactMap { $0.split(separator: ".").first.map(String.init) })
        XCTAssertFalse(named.isEmpty)
        XCTAssertTrue(
            named.isSubset(of: Set(state.modelEntities.map(\.name))), "\(named) in \(state.modelEntities.map(\.name))")
        XCTAssertLessThan(state.modelEntities.count, all)
        XCTAssertTrue(
            Screens.render(state).text.contains("only \"added\": \(state.modelEntities.count) of \(all)"),
            Screens.render(state).text)
        _ = state.reduce(.key(.escape))
        XCTAssertEqual(state.modelEntities.count, all, "Esc lists every entity again")
        XCTAssertEqual(state.screen, .model)
    }

    /// A selected plan line longer than the strip below the list holds (a blocked step that
    /// names every policy it lacks) is read in full with `l`, as any pane is: its end comes into
    /// view, and Esc gives the keys back to the list.
    func testAPlanLineLongerThanTheStripIsReadWithL() throws {
        let policies = (1...60).map { "Policy\($0)" }.joined(separator: ", ")
        var state = ConsoleState(
            storeName: "Store.sqlite", bundleName: "Model", storeVersion: "v1", targetVersion: "v2",
            versions: [
                .init(name: "v1", isCurrent: false, isStore: true, entities: [], changes: []),
                .init(name: "v2", isCurrent: true, isStore: false, entities: [], changes: []),
            ],
            steps: [
                .init(
                    from: "v1", to: "v2", kind: .mapping, mappings: [],
                    findings: ["cannot run: custom policies are not registered: \(policies) TheEnd"])
            ], width: 80, height: 24)
        _ = state.reduce(.key(.character("4")))
        let long = try XCTUnwrap(state.planLines.indices.first { state.planLines[$0].text.contains("Policy60") })
        state.selection[ConsoleState.Screen.plan.rawValue] = long
        XCTAssertFalse(Screens.render(state).text.contains("TheEnd"), "the premise: longer than the strip")
        XCTAssertTrue(Screens.render(state).text.contains("more lines: l reads on"), Screens.render(state).text)
        _ = state.reduce(.key(.character("l")))
        XCTAssertTrue(state.pane.focused, "l gives the strip the keys")
        _ = state.reduce(.key(.end))
        XCTAssertTrue(
            Screens.render(state).text.contains("TheEnd"), "End shows the line's end:\n\(Screens.render(state).text)")
        _ = state.reduce(.key(.escape))
        XCTAssertFalse(state.pane.focused, "Esc gives the keys back")
        _ = state.reduce(.key(.up))
        XCTAssertEqual(state.selection[ConsoleState.Screen.plan.rawValue], long - 1, "the list has the keys")
    }

    /// A kept original's path too long for its row is cut at its start, never at its file name,
    /// which is what a user looks for; one that fits is shown whole.
    func testTheBackupPathKeepsItsFileNameWhenCut() {
        let path =
            "/var/mobile/Containers/Data/Application/" + String(repeating: "0123456789", count: 8)
            + "/Library/Application Support/Books~.sqlite"
        let line = ResultScreen.backupLine(path, width: 78, .unicode)
        XCTAssertEqual(DisplayWidth.of(line), 78, line)
        XCTAssertTrue(line.hasSuffix("/Books~.sqlite") && line.contains("The original is kept as …"), line)
        XCTAssertEqual(
            ResultScreen.backupLine("/tmp/Books~.sqlite", width: 78, .unicode),
            "The original is kept as /tmp/Books~.sqlite")
    }
}
