import Foundation
import MigrationEngine
import Testing

@testable import MigrationConsole

/// The mouse where the keys reach: a click on a Mappings row selects that mapping (a pass's
/// name selects nothing), and the wheel scrolls help as the arrows do.
@Suite struct MouseTests {
    @Test func aClickOnAMappingsRowSelectsIt() throws {
        var state = try GoldenStates.base(width: 120, height: 40)
        state.screen = .mappings
        let body = Screens.body(state)
        let lines = BrowseScreens.mappingLines(state)
        let third = try #require(lines.firstIndex { $0.mapping == 2 })
        #expect(state.reduce(.key(.mouse(.click, x: body.x + 2, y: body.y + 2 + third))).isEmpty)
        #expect(state.selection[ConsoleState.Screen.mappings.rawValue] == 2)
        let text = Screens.render(state).text
        #expect(text.contains("▶ 3."), "the clicked mapping is the selected one:\n\(text)")
        let pass = try #require(lines.firstIndex { $0.mapping == nil })
        _ = state.reduce(.key(.mouse(.click, x: body.x + 2, y: body.y + 2 + pass)))
        #expect(state.selection[ConsoleState.Screen.mappings.rawValue] == 2, "a pass's name selects nothing")
    }

    @Test func theWheelScrollsHelp() throws {
        var state = try GoldenStates.base(width: 80, height: 24)
        _ = state.reduce(.key(.character("?")))
        #expect(state.overlays.help && state.overlays.helpTop == 0)
        _ = state.reduce(.key(.mouse(.wheelDown, x: 10, y: 10)))
        #expect(state.overlays.helpTop == 3)
        _ = state.reduce(.key(.mouse(.wheelUp, x: 10, y: 10)))
        #expect(state.overlays.helpTop == 0 && state.overlays.help, "and back, help still open")
    }
}

/// A step-mode pause holds more rows than its pane: j/k and the page keys scroll it, never past
/// its last line, and a new pause starts at its top.
@Suite struct PauseScrollTests {
    @Test func thePausePaneScrollsAndANewPauseStartsAtItsTop() throws {
        var state = try GoldenStates.base(width: 80, height: 24)
        _ = state.reduce(.key(.character("s")))
        let samples = (1...8).map { index in
            StepReport.Sample(
                source: "Publication \(index)", destination: "Publication \(index)",
                values: [.init(name: "firstName", before: nil, after: "\"Name \(index)\"")])
        }
        let report = StepReport(
            pass: "BookStore3To4", entityMapping: "PublicationToPublication", index: 2, count: 3,
            stage: .createInstances, rowsCreated: 8, sampleRows: [], next: "PageToPage", samples: samples)
        _ = state.reduce(
            .progress(
                GoldenStates.progress(
                    step: 3, pass: "BookStore3To4", stage: .createInstances, mapping: ("PublicationToPublication", 2),
                    done: 8, total: 8, fraction: 0.5, elapsed: 1, remaining: 1)))
        _ = state.reduce(.paused(report))
        let last = MigrateScreen.pauseLastTop(state)
        #expect(last > 0, "the premise: more lines than the pane")
        #expect(Screens.render(state).text.contains("more lines: j/k scroll"))
        _ = state.reduce(.key(.character("j")))
        #expect(state.pane.top == 1 && state.mode == .paused(report), "j scrolls, the pause stays")
        _ = state.reduce(.key(.character("G")))
        #expect(state.pane.top == last)
        _ = state.reduce(.key(.character("j")))
        #expect(state.pane.top == last, "never past the last line")
        #expect(
            Screens.render(state).text.contains(
                "of \(last + Panes.visibleRows(MigrateScreen.paneArea(state), lines: 99))"))
        _ = state.reduce(.paused(report))
        #expect(state.pane.top == 0)
    }

    /// Step mode's pause after a step shows the step's result; lines it cannot hold scroll
    /// under j/k as a pause's rows do (they were a dead end), and the next pause starts at its top.
    @Test func thePauseAfterAStepScrollsItsResult() throws {
        let base = try GoldenStates.base(width: 80, height: 24)
        var state = GoldenStates.migrating(base, at: GoldenStates.stages[2].1, stepMode: true)
        let result = GoldenStates.results(2)[1]
        _ = state.reduce(.stepDone(result, paused: true))
        let last = MigrateScreen.pauseLastTop(state)
        #expect(last > 0, "the premise: the result has more lines than the pane")
        #expect(Screens.render(state).text.contains("more lines: j/k scroll"))
        let lines = StepPane.lines(result, state, width: MigrateScreen.paneArea(state).width, heading: "Step 2")
        let end = try #require(lines.last?.text.trimmingCharacters(in: .whitespaces))
        #expect(!Screens.render(state).text.contains(end), "the premise: its last line is out of view")
        _ = state.reduce(.key(.character("G")))
        #expect(state.pane.top == last && state.mode == .pausedAfterStep(result.index), "G scrolls, the pause stays")
        #expect(Screens.render(state).text.contains(end), "its last line is read")
        _ = state.reduce(.stepDone(GoldenStates.results(3)[2], paused: true))
        #expect(state.pane.top == 0, "the next pause starts at its top")
    }
}
