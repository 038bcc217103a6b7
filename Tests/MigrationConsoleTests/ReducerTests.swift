import MigrationConsole
import MigrationEngine
import Testing

/// The console's reducer: keys and engine news in, state and effects out — no terminal involved.
@Suite struct ReducerTests {
    func state() -> ConsoleState {
        ConsoleState(
            storeName: "Store.sqlite", bundleName: "Model", storeVersion: "v1", targetVersion: "v2",
            versions: [
                .init(name: "v1", isCurrent: false, isStore: true, entities: [], changes: []),
                .init(name: "v2", isCurrent: true, isStore: false, entities: [], changes: ["Note.text added"]),
            ],
            steps: [
                .init(
                    from: "v1", to: "v2", kind: .mapping,
                    mappings: [
                        .init(
                            pass: "V1ToV2", name: "NoteToNote", kind: "copy", source: "Note", destination: "Note",
                            policy: nil, properties: [])
                    ], findings: [])
            ])
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
        #expect(state.run.ignoredKeys == 1)
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
        let report = StepReport(
            pass: "V1ToV2", entityMapping: "NoteToNote", index: 1, count: 1, stage: .createInstances, rowsCreated: 3,
            sampleRows: [], next: "NoteToNote")
        _ = state.reduce(.paused(report))
        #expect(state.mode == .paused(report))
        #expect(state.reduce(.key(.enter)) == [.resumeStep(toEnd: false)])
        _ = state.reduce(.paused(report))
        #expect(state.reduce(.key(.character("c"))) == [.resumeStep(toEnd: true)])
        #expect(!state.run.stepMode)
    }

    @Test func finishingUnlocksAndQuitWorksAgain() {
        var state = state()
        _ = state.reduce(.key(.character("m")))
        _ = state.reduce(
            .finished(.init(from: "v1", to: "v2", rows: [("Note", 3, 3)], backup: "Store~.sqlite", seconds: 1)))
        #expect(!state.isBusy)
        #expect(state.screen == .migrate)
        #expect(state.reduce(.key(.character("q"))) == [.quit])
        #expect(state.quit)
    }

    @Test func cancellingIsAStateThatSwallowsKeysUntilTheEngineSaysWhereTheStoreIs() {
        var state = state()
        _ = state.reduce(.key(.character("m")))
        _ = state.reduce(.key(.character("x")))
        #expect(state.reduce(.key(.character("y"))) == [.cancelMigration])
        #expect(state.mode == .cancelling)
        #expect(state.isBusy, "a rollback is still work under way")
        #expect(state.reduce(.key(.character("q"))).isEmpty)
        _ = state.reduce(
            .paused(
                StepReport(
                    pass: "V1ToV2", entityMapping: "NoteToNote", index: 1, count: 1, stage: .createInstances,
                    rowsCreated: 0,
                    sampleRows: [], next: nil)))
        #expect(state.mode == .cancelling, "a pause reported while cancelling does not undo the cancel")
        _ = state.reduce(.failed("the migration was cancelled; the store is as it was, at v1; nothing was changed"))
        #expect(
            state.mode == .failed("the migration was cancelled; the store is as it was, at v1; nothing was changed"))
        #expect(
            Screens.render(state).text.contains("the store is as it was, at v1"),
            "the screen says where the store stands, in the engine's words")
    }

    @Test func eachStepsResultArrivesAndStepModePausesAfterIt() {
        var state = state()
        _ = state.reduce(.key(.character("s")))
        let result = StepResult(
            index: 1, from: "v1", to: "v2", how: "lightweight, in place", seconds: 0.1, verification: "schema checked",
            rows: [],
            tables: [.init(title: "ZNOTE's columns", columns: ["column"], rows: [["ZTEXT"]])])
        _ = state.reduce(.stepDone(result, paused: true))
        #expect(state.run.results == [result])
        #expect(state.mode == .pausedAfterStep(1))
        #expect(state.reduce(.key(.enter)) == [.resumeStep(toEnd: false)])
        #expect(state.mode == .migrating)
    }

    /// A step's time is the engine's, which leaves its pauses out already: the console took them
    /// off a second time, and every step that paused in step mode read 0.0 s.
    @Test func aPausedStepKeepsTheEnginesWorkTime() {
        var state = state()
        _ = state.reduce(.key(.character("s")))
        _ = state.reduce(.pauseTime(seconds: 4))
        let result = StepResult(
            index: 1, from: "v1", to: "v2", how: "mapping: V1ToV2", seconds: 0.4, verification: "reconciled",
            rows: [], tables: [])
        _ = state.reduce(.stepDone(result, paused: true))
        #expect(state.run.results.first?.seconds == 0.4)
        #expect(state.run.results.first?.pausedSeconds == 4, "the pauses, said apart")
    }

    @Test func theClockMovesElapsedTimeAndTheETABetweenTwoProgressValues() {
        var state = state()
        _ = state.reduce(.key(.character("m")))
        _ = state.reduce(
            .progress(
                MigrationProgress(
                    step: 1, stepCount: 1, pass: "V1ToV2", entityMapping: nil, entityMappingIndex: 0,
                    entityMappingCount: 0,
                    stage: .indexes, rowsDone: 0, rowsTotal: 2, unit: .indexes, fraction: 0.5, rowsPerSecond: 0,
                    elapsed: 10,
                    remaining: 10)))
        #expect(Screens.render(state).text.contains("build indexes · 0/2 indexes · 10 s · ETA 10 s"))
        _ = state.reduce(.tick(seconds: 4))
        #expect(
            Screens.render(state).text.contains("build indexes · 0/2 indexes · 14 s · ETA 6 s"),
            "a long statement posts nothing; the clock still moves")
        _ = state.reduce(.tick(seconds: 12))
        #expect(!Screens.render(state).text.contains("ETA"), "an ETA already passed is not shown as a number that lies")
    }

    /// Paused in step mode, Ctrl-C and x ask first too (issue 31 §3); no keeps the pause, and a
    /// pause that arrives while the question is open waits behind it.
    @Test func aPausedRunAsksBeforeItIsCancelled() {
        var state = state()
        _ = state.reduce(.key(.character("s")))
        let report = StepReport(
            pass: "V1ToV2", entityMapping: "NoteToNote", index: 1, count: 1, stage: .createInstances, rowsCreated: 3,
            sampleRows: [], next: nil)
        _ = state.reduce(.paused(report))
        #expect(state.reduce(.key(.interrupt)).isEmpty, "Ctrl-C does not cancel at once")
        #expect(state.mode == .confirmingCancel)
        #expect(state.reduce(.key(.character("n"))).isEmpty)
        #expect(state.mode == .paused(report), "no: still paused where it was")
        _ = state.reduce(.key(.character("m")))
        #expect(state.mode == .paused(report), "other keys do nothing while paused")
        _ = state.reduce(.key(.character("x")))
        #expect(state.reduce(.key(.character("y"))) == [.cancelMigration])
        // While the question is open, the engine's next pause waits behind it.
        var running = self.state()
        _ = running.reduce(.key(.character("s")))
        _ = running.reduce(.key(.interrupt))
        _ = running.reduce(.paused(report))
        #expect(running.mode == .confirmingCancel)
        _ = running.reduce(.key(.escape))
        #expect(running.mode == .paused(report))
    }

    /// Long lists: PgUp/PgDn move a page, g/G and Home/End go to the ends.
    @Test func pagesAndEndsMoveTheSelection() {
        var state = ConsoleState(
            storeName: "Store.sqlite", bundleName: "Model", storeVersion: "v1", targetVersion: "v90",
            versions: (1...90).map {
                .init(name: "v\($0)", isCurrent: $0 == 90, isStore: $0 == 1, entities: [], changes: [])
            }, steps: [])
        _ = state.reduce(.key(.pageDown))
        #expect(state.selection[0] == state.pageRows)
        _ = state.reduce(.key(.character("G")))
        #expect(state.selection[0] == 89)
        _ = state.reduce(.key(.pageDown))
        #expect(state.selection[0] == 89, "never past the last")
        _ = state.reduce(.key(.home))
        #expect(state.selection[0] == 0)
        _ = state.reduce(.key(.end))
        _ = state.reduce(.key(.pageUp))
        #expect(state.selection[0] == 89 - state.pageRows)
        _ = state.reduce(.key(.character("g")))
        #expect(state.selection[0] == 0)
    }

    /// `/` finds the next row whose name holds the text, from the selection on, wrapping round.
    @Test func slashFindsByName() {
        var state = ConsoleState(
            storeName: "Store.sqlite", bundleName: "Model", storeVersion: "zmessaging2.3",
            targetVersion: "zmessaging2.101.0",
            versions: ["zmessaging1.27", "zmessaging2.3", "zmessaging2.90.0", "zmessaging2.101.0"].map {
                .init(
                    name: $0, isCurrent: $0 == "zmessaging2.101.0", isStore: $0 == "zmessaging2.3", entities: [],
                    changes: [])
            }, steps: [])
        #expect(state.selection[0] == 1)
        _ = state.reduce(.key(.character("/")))
        for character in "2.9X" { _ = state.reduce(.key(.character(character))) }
        _ = state.reduce(.key(.backspace))
        #expect(state.find.prompt == "2.9")
        _ = state.reduce(.key(.enter))
        #expect(state.selection[0] == 2)
        #expect(state.find.prompt == nil)
        _ = state.reduce(.key(.character("/")))
        for character in "1.2" { _ = state.reduce(.key(.character(character))) }
        _ = state.reduce(.key(.enter))
        #expect(state.selection[0] == 0, "wraps round to the first")
        _ = state.reduce(.key(.character("/")))
        for character in "nothing" { _ = state.reduce(.key(.character(character))) }
        _ = state.reduce(.key(.enter))
        #expect(state.selection[0] == 0)
        #expect(Screens.render(state).text.contains("No row holds \"nothing\""))
        _ = state.reduce(.key(.character("/")))
        _ = state.reduce(.key(.escape))
        #expect(state.find.prompt == nil)
    }

    /// Where a match is among all of them, and a search that goes round the end says so, as vim
    /// says "search hit BOTTOM"; a blocked plan's `m` goes to the line that says why.
    @Test func findSaysWhichMatchAndWhenItWraps() {
        var state = ConsoleState(
            storeName: "Store.sqlite", bundleName: "Model", storeVersion: "v1", targetVersion: "v4",
            versions: ["v1", "v2", "v3", "v4"].map {
                .init(name: $0, isCurrent: $0 == "v4", isStore: $0 == "v1", entities: [], changes: [])
            }, steps: [])
        _ = state.reduce(.key(.character("/")))
        _ = state.reduce(.key(.character("v")))
        _ = state.reduce(.key(.enter))
        #expect(state.selection[0] == 1)
        #expect(Screens.render(state).text.contains("\"v\": match 2 of 4"))
        for _ in 0..<3 { _ = state.reduce(.key(.character("n"))) }
        #expect(state.selection[0] == 0)
        #expect(Screens.render(state).text.contains("\"v\": match 1 of 4, search hit BOTTOM, continuing at TOP"))
        _ = state.reduce(.key(.character("N")))
        #expect(Screens.render(state).text.contains("match 4 of 4, search hit TOP, continuing at BOTTOM"))
        _ = state.reduce(.key(.down))
        #expect(!Screens.render(state).text.contains("match"), "said until the next key")
    }

    /// `q` on a filtered plan clears the filter, as Esc does, instead of quitting; `f` again
    /// starts a new filter rather than adding to the last one's text.
    @Test func qClearsAFilterAndFStartsAfresh() {
        var state = state()
        state.screen = .plan
        _ = state.reduce(.key(.character("f")))
        for character in "V1To" { _ = state.reduce(.key(.character(character))) }
        _ = state.reduce(.key(.enter))
        #expect(state.find.planFilter == "V1To")
        _ = state.reduce(.key(.character("f")))
        #expect(state.find.prompt == "")
        _ = state.reduce(.key(.escape))
        #expect(state.reduce(.key(.character("q"))).isEmpty, "q clears the filter, quitting nothing")
        #expect(state.find.planFilter == nil)
        #expect(state.reduce(.key(.character("q"))) == [.quit])
    }

    @Test func aBlockedPlanOpensToBrowseAndMigrateShowsWhy() {
        var state = state()
        state.block(Blocked(reason: "custom migration policies are not registered", steps: [0: "V1ToV2 names P"]))
        #expect(state.reduce(.key(.character("m"))).isEmpty)
        #expect(state.mode == .browsing)
        #expect(state.screen == .plan)
        let text = Screens.render(state).text
        #expect(text.contains("Cannot migrate: custom migration policies are not registered"))
        #expect(text.contains("cannot run: V1ToV2 names P"))
        #expect(text.contains("Cannot migrate: browse only"))
    }

    /// `G` in help shows its very last line: the box's last row says where it stands (`lines
    /// 20–38 of 38`), and `G` once stopped one line short of the end.
    @Test func helpsEndShowsItsLastLine() throws {
        var state = state()
        _ = state.reduce(.key(.character("?")))
        let footer = #/lines (\d+)–(\d+) of (\d+): j k PgUp PgDn scroll/#
        let first = try #require(Screens.render(state).text.firstMatch(of: footer), "help is longer than its box")
        #expect(first.output.1 == "1")
        _ = state.reduce(.key(.character("G")))
        let end = try #require(Screens.render(state).text.firstMatch(of: footer))
        #expect(end.output.2 == end.output.3, "the last line is in view: \(end.output.0)")
        _ = state.reduce(.key(.character("k")))
        let up = try #require(Screens.render(state).text.firstMatch(of: footer))
        #expect(Int(up.output.2) == Int(end.output.3).map { $0 - 1 })
    }

    @Test func helpOpensAndCloses() {
        var state = state()
        _ = state.reduce(.key(.character("?")))
        #expect(state.overlays.help)
        #expect(state.reduce(.key(.character("q"))).isEmpty, "q closes help instead of quitting")
        #expect(!state.overlays.help)
    }
}
