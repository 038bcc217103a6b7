import Foundation
import MigrationConsole
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import Testing

/// The console at a real app's scale (issue 31): Wire's 90 versions with the store at 2.3 and
/// its plan of many findings, rendered at 80×24 and 120×40 and compared with goldens in
/// `Screens/` (``ScreenGolden``'s rule: `RECORD_SCREENS=1` re-records); then the promises
/// the goldens cannot state alone: every row reachable, the selection always in view. Swift
/// Testing runs its tests at once, beside the other suites: each renders on one core.
@Suite(.fixtures) struct WireScaleScreenTests {
    /// This suite's copies of the store, removed when it ends.
    private let scratch: ScratchFolders

    init() throws { scratch = try ScratchFolders() }

    private func scratchDirectory() throws -> URL { try scratch.make() }

    /// A copy of Wire's `store2-3`, planned straight to the current version.
    private func wire(width: Int, height: Int) throws -> ConsoleState {
        let store = try #require(
            Fixtures.stores.first { $0.lastPathComponent.hasPrefix("store2-3.") }, "Wire's store2-3 in the fixtures")
        let bundleURL = try #require(
            Fixtures.files(where: { $0.lastPathComponent == "zmessaging.xcdatamodeld" }).first)
        let bundle = try ModelBundle.read(at: bundleURL)
        let copy = try Fixtures.copyStore(store, into: try scratchDirectory())
        let plan = try MigrationPlan.make(store: copy.path, bundle: bundle)
        return ConsoleState(
            store: copy.path, bundle: bundle, plan: plan, options: MigrationOptions(), width: width, height: height,
            glyphs: .unicode)
    }

    private func check(_ state: ConsoleState, _ name: String, at location: SourceLocation = #_sourceLocation) throws {
        if let difference = try ScreenGolden.difference(Screens.render(state), named: name) {
            Issue.record(Comment(rawValue: difference), sourceLocation: location)
        }
    }

    @Test func wireScreensAtBothSizes() throws {
        for (width, height) in [(80, 24), (120, 40)] {
            var state = try wire(width: width, height: height)
            let size = "\(width)x\(height)"
            try check(state, "wire-versions.\(size)")
            _ = state.reduce(.key(.character("G")))
            try check(state, "wire-versions-current.\(size)")
            _ = state.reduce(.key(.enter))
            try check(state, "wire-model.\(size)")
            state.screen = .plan
            try check(state, "wire-plan.\(size)")
            _ = state.reduce(.key(.character("G")))
            try check(state, "wire-plan-last.\(size)")
        }
    }

    /// At 80×24 Wire's long version names leave no room for a version's glance (`+1 ent`): it
    /// was left out, and every row looked unchanged. It is shortened instead (`+1`, `3p`).
    @Test func everyVersionsGlanceShowsAtEightyColumns() throws {
        var state = try wire(width: 80, height: 24)
        _ = state.reduce(.key(.home))
        var seen = 0
        for index in state.versions.indices {
            let version = state.versions[index]
            let rendered = Screens.render(state).text
            // The selected row, which the pointer marks (the pane's title names the version too).
            let row = try #require(
                rendered.split(separator: "\n").first { $0.contains("▶") && $0.contains(version.name) })
            if !version.changeSummary.isEmpty {
                let short = version.changeSummary.replacingOccurrences(of: " ent", with: "")
                    .replacingOccurrences(of: " prop", with: "p")
                #expect(
                    row.contains(version.changeSummary) || row.contains(short), "\(version.name): \(row)")
                seen += 1
            }
            _ = state.reduce(.key(.down))
        }
        #expect(seen > 0, "the premise: versions that change something")
    }

    /// The result of a long `--stepwise` run (every version from 2.3 on, 80-odd steps): the step
    /// list scrolls inside its half of the screen and never draws over the footer.
    @Test func aLongPlansResultKeepsToItsArea() throws {
        for (width, height) in [(80, 24), (120, 40)] {
            let store = try #require(Fixtures.stores.first { $0.lastPathComponent.hasPrefix("store2-3.") })
            let bundle = try ModelBundle.read(
                at: try #require(Fixtures.files(where: { $0.lastPathComponent == "zmessaging.xcdatamodeld" }).first))
            let copy = try Fixtures.copyStore(store, into: try scratchDirectory())
            let plan = try MigrationPlan.make(store: copy.path, bundle: bundle, strategy: .iterative)
            #expect(plan.steps.count > 60, "the premise: a long plan")
            var state = ConsoleState(
                store: copy.path, bundle: bundle, plan: plan, options: MigrationOptions(), width: width, height: height,
                glyphs: .unicode)
            for (index, step) in plan.steps.enumerated() {
                let rows = [
                    StepResult.RowCount(
                        entity: "ConversationParticipantRoleWithALongName", before: 120_000, after: 120_000),
                    StepResult.RowCount(entity: "User", before: 5, after: 5),
                ]
                _ = state.reduce(
                    .stepDone(
                        StepResult(
                            index: index + 1, from: step.source.name, to: step.destination.name,
                            how: "lightweight, in place",
                            seconds: 0.2, verification: "schema checked", rows: rows, tables: [],
                            dropped: StepResult.drops(of: step, rowsBefore: [:])), paused: false))
            }
            _ = state.reduce(
                .finished(
                    .init(
                        from: plan.storeVersion, to: plan.targetVersion,
                        rows: [("AddressBookEntry", 0, 0), ("GenericMessageData", 20_000, 20_000), ("User", 5, 5)],
                        backup: "/stores/store2-3~.wiredatabase", seconds: 16.0)))
            try check(state, "wire-result-stepwise.\(width)x\(height)")
            let grid = Screens.render(state)
            #expect(grid.row(height - 1).contains("q quit"), "the key line is whole:\n\(grid.text)")
            #expect(grid.row(height - 2).hasPrefix("─"), "the footer is whole:\n\(grid.text)")
            #expect(
                grid.text.contains("GenericMessageData  "), "names do not run into the numbers:\n\(grid.text)")
            // Each dropped entity by name, with its rows where the plan counted them, in the error colour.
            let entities = plan.steps.flatMap(\.changes).filter { $0.kind == .entityRemoved }
            #expect(!entities.isEmpty, "the premise: the plan drops entities")
            #expect(
                grid.text.contains("Dropped, as planned: \(entities[0].entity)"),
                "the result names what was dropped:\n\(grid.text)")
            let line = try #require((0..<height).first { grid.row($0).contains("Dropped, as planned") })
            #expect(grid.style(x: 1, y: line) == .bad, "in the error colour")
        }
    }

    @Test func everyRowIsReachableAndTheSelectionStaysInView() throws {
        for (width, height) in [(80, 24), (120, 40), (200, 50)] {
            var state = try wire(width: width, height: height)
            // The Versions list opens at the store's version, which is on the screen.
            #expect(state.versions[state.selection[0]].isStore)
            #expect(
                Screens.render(state).text.contains(state.versions[state.selection[0]].name),
                "\(width)x\(height): the store's version in view")
            // End: the current version is selected and shown, with where the list stands.
            _ = state.reduce(.key(.end))
            let text = Screens.render(state).text
            #expect(text.contains(state.targetVersion), "\(width)x\(height): the current version in view")
            #expect(
                text.contains("\(state.versions.count)/\(state.versions.count)"),
                "\(width)x\(height): the position shown")
            // The Plan: every finding reachable line by line, each in view when selected.
            state.screen = .plan
            let lines = state.planLines
            #expect(lines.count > height, "the premise: the plan is longer than the screen")
            _ = state.reduce(.key(.home))
            for index in lines.indices {
                let rendered = Screens.render(state).text
                let shown = String(lines[index].text.prefix(width - 12))
                #expect(
                    rendered.contains(shown),
                    "\(width)x\(height): plan line \(index + 1) in view when selected: \(shown)")
                _ = state.reduce(.key(.down))
            }
            #expect(
                state.selection[ConsoleState.Screen.plan.rawValue] == lines.count - 1, "the last line is reached")
            _ = state.reduce(.key(.pageUp))
            #expect(state.selection[ConsoleState.Screen.plan.rawValue] < lines.count - 1, "PgUp moves up")
        }
    }

    /// A filter shows only the plan's lines holding a text, with their steps' headings (every
    /// loss: `f dropped`); Esc shows all again. A selected line too long for its row is shown
    /// whole below the list.
    @Test func aFilterShowsOnlyTheLossesAndALongLineIsShownWhole() throws {
        var state = try wire(width: 80, height: 24)
        _ = state.reduce(.key(.character("4")))
        let all = state.planLines.count
        for key in "fdropped" { _ = state.reduce(.key(.character(key))) }
        _ = state.reduce(.key(.enter))
        let shown = state.planLines
        #expect(
            shown.filter { !$0.isHeading }.allSatisfy { $0.text.contains("dropped") }
                && shown.contains { !$0.isHeading }, "\(shown.map(\.text))")
        #expect(shown.count < all)
        let text = Screens.render(state).text
        #expect(text.contains("Only lines holding \"dropped\": \(shown.count) of \(all)"), "\(text)")
        // Select a line longer than the row: it is shown whole.
        let long = try #require(shown.indices.first { shown[$0].text.count > 78 }, "the premise: a long finding")
        state.selection[ConsoleState.Screen.plan.rawValue] = long
        let words = shown[long].text.split(separator: " ").suffix(3).joined(separator: " ")
        #expect(
            Screens.render(state).text.replacingOccurrences(of: "\n  ", with: " ").contains(words),
            "the end of the line is on the screen:\n\(Screens.render(state).text)")
        _ = state.reduce(.key(.escape))
        #expect(state.planLines.count == all, "Esc shows every line again")
    }
}
