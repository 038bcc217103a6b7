import Foundation
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
        #expect(state.showHelp && state.helpTop == 0)
        _ = state.reduce(.key(.mouse(.wheelDown, x: 10, y: 10)))
        #expect(state.helpTop == 3)
        _ = state.reduce(.key(.mouse(.wheelUp, x: 10, y: 10)))
        #expect(state.helpTop == 0 && state.showHelp, "and back, help still open")
    }
}
