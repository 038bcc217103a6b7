import MigrationEngine

extension ConsoleState {
    /// What is open over the screen, each closed with Esc: help (`?`), the live log (`v`) and
    /// the Plan screen's SQL view (Enter).
    package struct OverlayState: Sendable, Equatable {
        /// Whether help is open.
        package var help = false
        /// Help's first line in view.
        package var helpTop = 0
        /// The live log (`v`), when the console was opened with `--verbose` or `CHRYSALIS_LOG`.
        package var log = LogView()
        /// The Plan screen's SQL view (Enter opens it), or nil when it is closed.
        package var sql: SQLView?

        /// Nothing open.
        package init() {}
    }

    /// The pane beside the current screen's list (`Panes`): whether it has the keys, its first
    /// line in view, and what the finished migration's pane shows.
    package struct PaneState: Sendable, Equatable {
        /// Whether the pane has the keys.
        package var focused = false
        /// The pane's first line in view.
        package var top = 0
        /// Whether the finished migration's pane shows every entity's rows (`r`) instead of the
        /// selected step's result.
        package var showsAllRows = false

        /// A pane at its top, without the keys.
        package init() {}
    }
}

extension ConsoleState {
    /// What find and the filters hold: the prompt being typed, the filters in force, and what the
    /// last find said. The keys that change it are in `ConsoleState+Find.swift`.
    package struct FindState: Sendable, Equatable {
        /// What `/` is finding (or `f` filtering), while it is being typed (nil when no prompt is open).
        package var prompt: String?
        /// Whether the open prompt is the Plan screen's filter rather than a find.
        package var isFilter = false
        /// The Plan screen's filter: only lines holding it are shown (nil: every line).
        package var planFilter: String?
        /// The Model screen's filter: only entities it matches are listed (nil: every entity).
        package var modelFilter: String?
        /// The last search that found nothing, said on the status line until the next key.
        package var missed: String?
        /// Where the last match found is among all of them (`"Order": match 3 of 12`), and whether
        /// the search went round the end: said until the next key.
        package var note: String?
        /// The last text found with `/`: `n` and `N` find it again, and it is highlighted.
        package var last: String?

        /// Nothing found, no prompt, no filter.
        package init() {}
    }
}

extension ConsoleState {
    /// The run as the console follows it: step mode and its auto-advance, the latest progress and
    /// the clocks beside it, each step's result, and how the migration ended.
    package struct RunState: Sendable, Equatable {
        /// Whether the run pauses before and after each step (`s`).
        package var stepMode = false
        /// Step mode's auto-advance for demos: a pause goes on by itself after this many seconds
        /// (nil: it waits for Enter). Any key stops it; `a` starts it again.
        package var autoAdvance: Double?
        /// Whether a key has stopped the auto-advance.
        package var autoAdvanceStopped = false
        /// Seconds until the pause goes on by itself, while one counts down.
        package var autoAdvanceIn: Double?
        /// Set when a key was swallowed during a migration, so the screen says why.
        package var ignoredKeys = 0
        /// The engine's latest progress, while a step runs.
        package var progress: MigrationProgress?
        /// Seconds since ``progress`` arrived, counted by the UI's clock: elapsed time and the ETA
        /// keep moving through a long statement that posts nothing.
        package var progressAge: Double = 0
        /// Seconds the plan has waited on a person or been stopped, and those of the running step.
        package var pausedSeconds: Double = 0, stepPausedSeconds: Double = 0
        /// The result of every step done so far, in order.
        package var results: [StepResult] = []
        /// The step done and verified whose result is being gathered, if any.
        package var gatheringStep: Int?
        /// What the showcase says it is doing there, if it says.
        package var gatheringNote: String?
        /// How the migration ended, once it has.
        package var outcome: Outcome?

        /// A run not started.
        package init() {}

        /// The run's slice of the reducer: what the engine reports about the run and nothing
        /// else (progress, the clocks, a step verified, what the showcase is gathering).
        mutating func reduce(_ action: ConsoleAction) {
            switch action {
            case .progress(let progress):
                self.progress = progress
                progressAge = 0
                if progress.step != gatheringStep { gatheringStep = nil }
            case .tick(let seconds):
                progressAge = seconds
            case .pauseTime(let seconds):
                (pausedSeconds, stepPausedSeconds) = (pausedSeconds + seconds, stepPausedSeconds + seconds)
            case .stepVerified(let index):
                (gatheringStep, gatheringNote) = (index, nil)
            case .gathering(let note):
                gatheringNote = note
            default:
                break
            }
        }

        /// Keeps a done step's result, with the pauses since the step before said apart: the
        /// engine's time for the step leaves out its pauses already (and the pause after it comes
        /// after this result), so taking them off again made every paused step 0.0 s.
        mutating func keep(_ result: StepResult) {
            var result = result
            result.pausedSeconds = stepPausedSeconds
            (gatheringStep, stepPausedSeconds) = (nil, 0)
            results.append(result)
        }

        /// Keeps how the plan ended, its time without its pauses and the pauses said apart.
        mutating func finish(_ outcome: Outcome) {
            var outcome = outcome
            outcome.seconds = max(outcome.seconds - pausedSeconds, 0)
            outcome.pausedSeconds = pausedSeconds
            self.outcome = outcome
        }
    }
}
