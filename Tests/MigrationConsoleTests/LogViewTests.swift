import MigrationConsole
import MigrationEngine
import Testing

/// The live log (`v`): what `--verbose` logs, over any screen, following the newest line until
/// it is scrolled; without a log, `v` says how to get one.
@Suite struct LogViewTests {
    func state(log: Bool) -> ConsoleState {
        var state = ConsoleState(
            storeName: "Store.sqlite", bundleName: "Model", storeVersion: "v1", targetVersion: "v2",
            versions: [
                .init(name: "v1", isCurrent: false, isStore: true, entities: [], changes: []),
                .init(name: "v2", isCurrent: true, isStore: false, entities: [], changes: []),
            ], steps: [.init(from: "v1", to: "v2", kind: .lightweight, mappings: [], findings: [])])
        state.overlays.log = LogView(isOn: log)
        return state
    }

    @Test func withoutALogVSaysHowToGetOne() {
        var state = state(log: false)
        _ = state.reduce(.key(.character("v")))
        #expect(!state.overlays.log.isShown)
        #expect(Screens.render(state).text.contains("No log: open the console with --verbose"))
    }

    @Test func theLogFollowsTheNewestLineUntilItIsScrolled() {
        var state = state(log: true)
        _ = state.reduce(.logged((1...100).map { "debug migration: line \($0)" }))
        _ = state.reduce(.key(.character("v")))
        #expect(state.overlays.log.isShown)
        var text = Screens.render(state).text
        #expect(text.contains("line 100") && !text.contains("line 1 "), "the newest lines: \(text)")
        #expect(text.contains("following the newest"))
        _ = state.reduce(.logged(["debug migration: line 101"]))
        #expect(Screens.render(state).text.contains("line 101"), "a new line comes into view")
        _ = state.reduce(.key(.character("g")))
        text = Screens.render(state).text
        #expect(text.contains("line 1 "), "g: the oldest: \(text)")
        #expect(text.contains("G follows the newest"))
        _ = state.reduce(.logged(["debug migration: line 102"]))
        #expect(!Screens.render(state).text.contains("line 102"), "a scrolled log stays where it is")
        _ = state.reduce(.key(.character("G")))
        #expect(Screens.render(state).text.contains("line 102"))
        #expect(state.overlays.log.top == nil, "G follows again")
        _ = state.reduce(.key(.escape))
        #expect(!state.overlays.log.isShown)
    }

    @Test func aLongLineIsWrappedWholeAndOldLinesAreLetGo() {
        var state = state(log: true)
        let statement = "trace sql: 0.100 ms  " + (1...40).map { "column\($0)" }.joined(separator: ", ")
        _ = state.reduce(.logged([statement]))
        _ = state.reduce(.key(.character("v")))
        let text = Screens.render(state).text
        #expect(text.contains("column1,") && text.contains("column40"), "the whole statement: \(text)")
        _ = state.reduce(.logged((1...6000).map { "line \($0)" }))
        #expect(state.overlays.log.lines.count == 5000 && state.overlays.log.lines.last == "line 6000")
        #expect(Screens.render(state).text.contains("1001 older lines let go"))
    }

    @Test func anotherKeyClosesTheLogAndDoesWhatItDoes() {
        var state = state(log: true)
        _ = state.reduce(.key(.character("v")))
        _ = state.reduce(.key(.tab))
        #expect(!state.overlays.log.isShown)
        #expect(state.screen == .model)
    }
}
