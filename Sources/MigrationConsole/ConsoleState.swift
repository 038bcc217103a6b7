import MigrationEngine

/// Everything the console shows, as plain values: screens are pure functions of this, and only
/// the UI thread changes it (through ``ConsoleState/reduce(_:)``).
public struct ConsoleState: Sendable, Equatable {
    /// The tabs, in order.
    public enum Screen: Int, CaseIterable, Sendable {
        case versions, model, mappings, plan, migrate

        /// The tab's label.
        public var title: String { ["Versions", "Model", "Mappings", "Plan", "Migrate"][rawValue] }
    }

    /// What the console is doing.
    public enum Mode: Sendable, Equatable {
        /// Looking around; every key works.
        case browsing
        /// A migration runs; keys are ignored except cancel.
        case migrating
        /// Cancel was asked for; waiting for y/n.
        case confirmingCancel
        /// Cancel was confirmed; the engine is rolling back (keys are ignored until it has).
        case cancelling
        /// Step mode: paused after an entity mapping.
        case paused(StepReport)
        /// Step mode: paused after a whole step of the plan (its 1-based position), its result shown.
        case pausedAfterStep(Int)
        /// Done: the result screen.
        case finished
        /// Stopped: the error (or cancellation) screen.
        case failed(String)
    }

    /// One model version, for the versions and model screens.
    public struct Version: Sendable, Equatable {
        public var name: String
        public var isCurrent: Bool
        public var isStore: Bool
        public var entities: [Entity]
        /// What changed from the previous version (empty for the first).
        public var changes: [String]
        /// The changes at a glance, for the Versions list (`+1 −2 ent`, `3 prop`).
        public var changeSummary: String

        /// One model version.
        public init(name: String, isCurrent: Bool, isStore: Bool, entities: [Entity], changes: [String], changeSummary: String = "") {
            (self.name, self.isCurrent, self.isStore, self.entities, self.changes) = (name, isCurrent, isStore, entities, changes)
            self.changeSummary = changeSummary
        }
    }

    /// One entity of a version.
    public struct Entity: Sendable, Equatable {
        public var name: String
        public var parent: String?
        public var hash: String
        public var properties: [String]

        /// One entity of a version.
        public init(name: String, parent: String?, hash: String, properties: [String]) {
            (self.name, self.parent, self.hash, self.properties) = (name, parent, hash, properties)
        }
    }

    /// One step of the plan.
    public struct Step: Sendable, Equatable {
        public var from: String, to: String, kind: String
        public var mappings: [Mapping]
        public var findings: [String]
        /// What an inferred step changes (empty for a mapping step: its mappings say).
        public var changes: [String]
        /// Why the plan takes the step.
        public var reason: String

        /// One step of the plan.
        public init(from: String, to: String, kind: String, mappings: [Mapping], findings: [String], changes: [String] = [], reason: String = "") {
            (self.from, self.to, self.kind, self.mappings, self.findings) = (from, to, kind, mappings, findings)
            (self.changes, self.reason) = (changes, reason)
        }
    }

    /// One entity mapping, in execution order.
    public struct Mapping: Sendable, Equatable {
        public var pass: String
        public var name: String
        public var kind: String
        public var source: String?, destination: String?
        public var policy: String?
        public var properties: [(name: String, expression: String)]

        /// One entity mapping, in execution order.
        public init(pass: String, name: String, kind: String, source: String?, destination: String?, policy: String?,
                    properties: [(name: String, expression: String)]) {
            (self.pass, self.name, self.kind, self.source, self.destination) = (pass, name, kind, source, destination)
            (self.policy, self.properties) = (policy, properties)
        }

        public static func == (a: Mapping, b: Mapping) -> Bool {
            a.pass == b.pass && a.name == b.name && a.kind == b.kind && a.source == b.source && a.destination == b.destination
                && a.policy == b.policy && a.properties.map(\.name) == b.properties.map(\.name) && a.properties.map(\.expression) == b.properties.map(\.expression)
        }
    }

    /// Which step's SQL the Plan screen shows, and the first of its lines in view.
    public struct SQLView: Sendable, Equatable {
        /// The step, 0-based.
        public var step: Int
        /// The first line shown, 0-based: ↑↓ and PgUp/PgDn move it.
        public var top: Int
        /// The line the last find landed on (`n` and `N` go on from it), lit.
        public var match: Int?

        /// The SQL of `step`, from line `top`.
        public init(step: Int, top: Int = 0, match: Int? = nil) { (self.step, self.top, self.match) = (step, top, match) }
    }

    /// What a finished migration did.
    public struct Outcome: Sendable, Equatable {
        public var from: String, to: String
        public var rows: [(entity: String, before: Int?, after: Int?)]
        public var backup: String?
        /// Seconds the plan took, its pauses not counted.
        public var seconds: Double
        /// Seconds it waited on a person or was stopped, said apart.
        public var pausedSeconds: Double = 0

        /// What a finished migration did.
        public init(from: String, to: String, rows: [(entity: String, before: Int?, after: Int?)], backup: String?, seconds: Double) {
            self.from = from
            self.to = to
            self.rows = rows
            self.backup = backup
            self.seconds = seconds
        }

        public static func == (a: Outcome, b: Outcome) -> Bool {
            a.from == b.from && a.to == b.to && a.backup == b.backup && a.seconds == b.seconds
                && a.rows.map(\.entity) == b.rows.map(\.entity) && a.rows.map(\.before) == b.rows.map(\.before) && a.rows.map(\.after) == b.rows.map(\.after)
        }
    }

    public var storeName: String
    public var bundleName: String
    /// The store's version: the target once a migration has finished.
    public var storeVersion: String
    /// The version the store was at before a finished migration.
    public var migratedFrom: String?
    public var targetVersion: String
    public var versions: [Version]
    public var steps: [Step]
    public var screen: Screen = .versions
    public var mode: Mode = .browsing
    /// The step-mode pause a cancel question interrupted, to go back to if the answer is no.
    public var pausedBeforeConfirming: Mode?
    /// The selected row per screen.
    public var selection: [Int] = Array(repeating: 0, count: Screen.allCases.count)
    public var showHelp = false
    /// Help's first line in view.
    public var helpTop = 0
    /// What `/` is finding (or `f` filtering), while it is being typed (nil when no prompt is open).
    public var search: String?
    /// Whether the open prompt is the Plan screen's filter rather than a find.
    public var searchIsFilter = false
    /// The Plan screen's filter: only lines holding it are shown (nil: every line).
    public var planFilter: String?
    /// The Model screen's filter: only entities it matches are listed (nil: every entity).
    public var modelFilter: String?
    /// The last search that found nothing, said on the status line until the next key.
    public var searchMissed: String?
    /// The last text found with `/`: `n` and `N` find it again, and it is highlighted.
    public var lastSearch: String?
    public var stepMode = false
    /// Step mode's auto-advance for demos: a pause goes on by itself after this many seconds
    /// (nil: it waits for Enter). Any key stops it; `a` starts it again.
    public var autoAdvance: Double?
    /// Whether a key has stopped the auto-advance.
    public var autoAdvanceStopped = false
    /// Seconds until the pause goes on by itself, while one counts down.
    public var autoAdvanceIn: Double?
    /// Set when a key was swallowed during a migration, so the screen says why.
    public var ignoredKeys = 0
    public var progress: MigrationProgress?
    /// Seconds since ``progress`` arrived, counted by the UI's clock: elapsed time and the ETA
    /// keep moving through a long statement that posts nothing.
    public var progressAge: Double = 0
    /// Seconds the plan has waited on a person or been stopped, and those of the running step.
    public var pausedSeconds: Double = 0, stepPausedSeconds: Double = 0
    /// The result of every step done so far, in order.
    public var results: [StepResult] = []
    /// The step done and verified whose result is being gathered, if any.
    public var gatheringStep: Int?
    /// What the showcase says it is doing there, if it says.
    public var gatheringNote: String?
    public var outcome: Outcome?
    /// Every step's SQL, in plan order: the statements `chrysalis plan --sql` prints, compiled
    /// once when the console opens (empty when they could not be; ``sqlProblem`` says why).
    public var sql: [StepSQL] = []
    /// Why the plan's SQL could not be compiled, when it could not.
    public var sqlProblem: String?
    /// The Plan screen's SQL view (Enter opens it), or nil when it is closed.
    public var sqlView: SQLView?
    /// Whether the finished migration's pane shows every entity's rows (`r`) instead of the
    /// selected step's result.
    public var showsAllRows = false
    /// Whether the pane beside the current screen's list has the keys (`Panes`).
    public var paneFocused = false
    /// The pane's first line in view.
    public var paneTop = 0
    public var width: Int, height: Int
    public var glyphs: Glyphs
    public var quit = false

    /// The smallest terminal the layout fits.
    public static let minimumSize = (width: 80, height: 24)

    /// A state showing the given data.
    public init(storeName: String, bundleName: String, storeVersion: String, targetVersion: String, versions: [Version], steps: [Step],
                width: Int = 80, height: Int = 24, glyphs: Glyphs = .unicode) {
        self.storeName = storeName
        self.bundleName = bundleName
        self.storeVersion = storeVersion
        self.targetVersion = targetVersion
        self.versions = versions
        self.steps = steps
        self.width = width
        self.height = height
        self.glyphs = glyphs
        selection[Screen.versions.rawValue] = versions.firstIndex { $0.isStore } ?? 0
    }

    /// Every entity mapping of the plan, in the order they run.
    public var allMappings: [Mapping] { steps.flatMap(\.mappings) }

    /// Whether the migration is waiting on a person: a step-mode pause, or a cancel question
    /// asked over one.
    public var isWaitingOnPerson: Bool {
        switch mode {
        case .paused, .pausedAfterStep: return true
        case .confirmingCancel: return pausedBeforeConfirming != nil
        default: return false
        }
    }

    /// Whether a migration is under way (keys are ignored).
    public var isBusy: Bool {
        switch mode {
        case .migrating, .confirmingCancel, .cancelling, .paused, .pausedAfterStep: return true
        default: return false
        }
    }
}
