import MigrationConsole
import MigrationEngine
import Testing

/// The console's reducer: keys and engine news in, state and effects out — no terminal involved.
@Suite struct ReducerTests {
    func state() -> ConsoleState {
        ConsoleState(storeName: "Store.sqlite", bundleName: "Model", storeVersion: "v1", targetVersion: "v2",
                     versions: [.init(name: "v1", isCurrent: false, isStore: true, entities: [], changes: []),
                                .init(name: "v2", isCurrent: true, isStore: false, entities: [], changes: ["Note.text added"])],
                     steps: [.init(from: "v1", to: "v2", kind: "mapping", mappings: [
                        .init(pass: "V1ToV2", name: "NoteToNote", kind: "copy", source: "Note", destination: "Note", policy: nil, properties: []),
                     ], findings: [])])
    }

    @Test func tabsCycleAndSelectionStaysInRange() {
        var state = state()
        #expect(state.screen == .versions)
        _ = state.reduce(.key(.tab))
        #expect(state.screen == .model)
        _ = state.reduce(.key(.left))
        _ = state.reduce(.key(.left))
        #expect(state.screen == .migrate)
        _ = state.reduce(.key(.tab))
        for _ in 0..<5 { _ = state.reduce(.key(.down)) }
        #expect(state.selection[ConsoleState.Screen.versions.rawValue] == 1)
        _ = state.reduce(.key(.up))
        _ = state.reduce(.key(.up))
        #expect(state.selection[ConsoleState.Screen.versions.rawValue] == 0)
    }

    @Test func migratingSwallowsKeysButCancelAsksFirst() {
        var state = state()
        #expect(state.reduce(.key(.character("m"))) == [.startMigration(stepMode: false)])
        #expect(state.isBusy)
        #expect(state.reduce(.key(.character("q"))).isEmpty)
        #expect(!state.quit)
        #expect(state.ignoredKeys == 1)
        #expect(state.reduce(.key(.character("x"))).isEmpty)
        #expect(state.mode == .confirmingCancel)
        #expect(state.reduce(.key(.character("n"))).isEmpty)
        #expect(state.mode == .migrating)
        _ = state.reduce(.key(.interrupt))
        #expect(state.reduce(.key(.character("y"))) == [.cancelMigration])
    }

    @Test func stepModePausesAndResumes() {
        var state = state()
        #expect(state.reduce(.key(.character("s"))) == [.startMigration(stepMode: true)])
        let report = StepReport(pass: "V1ToV2", entityMapping: "NoteToNote", index: 1, count: 1, stage: .createInstances, rowsCreated: 3, sampleRows: [], next: "NoteToNote")
        _ = state.reduce(.paused(report))
        #expect(state.mode == .paused(report))
        #expect(state.reduce(.key(.enter)) == [.resumeStep(toEnd: false)])
        _ = state.reduce(.paused(report))
        #expect(state.reduce(.key(.character("c"))) == [.resumeStep(toEnd: true)])
        #expect(!state.stepMode)
    }

    @Test func finishingUnlocksAndQuitWorksAgain() {
        var state = state()
        _ = state.reduce(.key(.character("m")))
        _ = state.reduce(.finished(.init(from: "v1", to: "v2", rows: [("Note", 3, 3)], backup: "Store~.sqlite", seconds: 1)))
        #expect(!state.isBusy)
        #expect(state.screen == .migrate)
        #expect(state.reduce(.key(.character("q"))) == [.quit])
        #expect(state.quit)
    }

    @Test func helpOpensAndCloses() {
        var state = state()
        _ = state.reduce(.key(.character("?")))
        #expect(state.showHelp)
        #expect(state.reduce(.key(.character("q"))).isEmpty, "q closes help instead of quitting")
        #expect(!state.showHelp)
    }
}
