import Foundation
import Testing

@testable import MigrationConsole

/// The console's first frame comes before the bundle is read and the plan worked out (an
/// 84-step plan took seconds of blank screen): what it says, and that a key there can only quit.
@Suite struct OpeningTests {
    func opening(width: Int = 80, height: Int = 24) -> ConsoleState {
        var state = ConsoleState(
            storeName: "WooCommerce.sqlite", bundleName: "", storeVersion: "", targetVersion: "", versions: [],
            steps: [], width: width, height: height)
        state.opening = "Reading the model bundle and working out the plan…"
        return state
    }

    @Test func theFirstFrameSaysWhatIsBeingDone() {
        let text = Screens.render(opening()).text
        #expect(text.contains("Chrysalis  WooCommerce.sqlite"), "\(text)")
        #expect(text.contains("Reading the model bundle and working out the plan…"), "\(text)")
        #expect(text.contains("q quits"), "\(text)")
        #expect(!text.contains("Versions"), "no screen of a plan not yet there: \(text)")
    }

    @Test func aKeyBeforeThePlanCanOnlyQuit() {
        var state = opening()
        for key in [Key.tab, .character("m"), .character("s"), .enter, .character("/"), .down] {
            #expect(state.reduce(.key(key)).isEmpty, "\(key)")
        }
        #expect(state.opening != nil && !state.quit && state.screen == .versions && state.find.prompt == nil)
        #expect(state.reduce(.key(.character("q"))) == [.quit])
        #expect(state.quit)
    }

    /// A projector at a large font shows the too-small notice: it carries the step and how far.
    @Test func theTooSmallNoticeCarriesTheProgress() throws {
        var state = try GoldenStates.base(width: 60, height: 16)
        _ = state.reduce(.key(.character("m")))
        _ = state.reduce(
            .progress(
                GoldenStates.progress(
                    step: 2, pass: "BookStore 2 → BookStore 3", stage: .inPlace, done: 1, total: 3,
                    fraction: 0.42, elapsed: 3, remaining: 4)))
        let text = Screens.render(state).text
        #expect(text.contains("The migration goes on."), "\(text)")
        #expect(text.contains("Step 2/4 · 42 %"), "\(text)")
    }
}
