import MigrationEngine

/// Everything the console shows, as plain values: screens are pure functions of this, and only
/// the UI thread changes it (through ``ConsoleState/reduce(_:)``).
package struct ConsoleState: Sendable, Equatable {
    /// The tabs, in order.
    package enum Screen: Int, CaseIterable, Sendable {
        case versions, model, mappings, plan, migrate

        /// The tab's label.
        package var title: String { ["Versions", "Model", "Mappings", "Plan", "Migrate"][rawValue] }
    }

    /// What the console is doing.
    package enum Mode: Sendable, Equatable {
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
    package struct Version: Sendable, Equatable {
        package var name: String
        package var isCurrent: Bool
        package var isStore: Bool
        package var entities: [Entity]
        /// What changed from the previous version (empty for the first).
        package var changes: [String]
        /// The changes at a glance, for the Versions list (`+1 −2 ent`, `3 prop`).
        package var changeSummary: String

        /// One model version.
        package init(
            name: String, isCurrent: Bool, isStore: Bool, entities: [Entity], changes: [String],
            changeSummary: String = ""
        ) {
            (self.name, self.isCurrent, self.isStore, self.entities, self.changes) = (
                name, isCurrent, isStore, entities, changes
            )
            self.changeSummary = changeSummary
        }
    }

    /// One entity of a version.
    package struct Entity: Sendable, Equatable {
        package var name: String
        package var parent: String?
        package var hash: String
        package var properties: [String]

        /// One entity of a version.
        package init(name: String, parent: String?, hash: String, properties: [String]) {
            (self.name, self.parent, self.hash, self.properties) = (name, parent, hash, properties)
        }
    }

    /// One step of the plan.
    package struct Step: Sendable, Equatable {
        package var from: String, to: String, kind: MigrationPlan.Kind.Name
        package var mappings: [Mapping]
        package var findings: [String]
        /// What an inferred step changes (empty for a mapping step: its mappings say).
        package var changes: [String]
        /// Why the plan takes the step.
        package var reason: String

        /// One step of the plan.
        package init(
            from: String, to: String, kind: MigrationPlan.Kind.Name, mappings: [Mapping], findings: [String],
            changes: [String] = [],
            reason: String = ""
        ) {
            (self.from, self.to, self.kind, self.mappings, self.findings) = (from, to, kind, mappings, findings)
            (self.changes, self.reason) = (changes, reason)
        }

        /// `A → B`, or `at A` for a staged migration's handler, which leaves the store at its version.
        package func versions(arrow: String) -> String { kind.versions(from: from, to: to, arrow: arrow) }
    }

    /// One entity mapping, in execution order.
    package struct Mapping: Sendable, Equatable {
        package var pass: String
        package var name: String
        package var kind: String
        package var source: String?, destination: String?
        package var policy: String?
        package var properties: [(name: String, expression: String)]

        /// One entity mapping, in execution order.
        package init(
            pass: String, name: String, kind: String, source: String?, destination: String?, policy: String?,
            properties: [(name: String, expression: String)]
        ) {
            (self.pass, self.name, self.kind, self.source, self.destination) = (pass, name, kind, source, destination)
            (self.policy, self.properties) = (policy, properties)
        }

        package static func == (a: Mapping, b: Mapping) -> Bool {
            a.pass == b.pass && a.name == b.name && a.kind == b.kind && a.source == b.source
                && a.destination == b.destination
                && a.policy == b.policy && a.properties.map(\.name) == b.properties.map(\.name)
                && a.properties.map(\.expression) == b.properties.map(\.expression)
        }
    }

    /// Which step's SQL the Plan screen shows, and the first of its lines in view.
    package struct SQLView: Sendable, Equatable {
        /// The step, 0-based.
        package var step: Int
        /// The first line shown, 0-based: ↑↓ and PgUp/PgDn move it.
        package var top: Int
        /// The line the last find landed on (`n` and `N` go on from it), lit.
        package var match: Int?

        /// The SQL of `step`, from line `top`.
        package init(step: Int, top: Int = 0, match: Int? = nil) {
            (self.step, self.top, self.match) = (step, top, match)
        }
    }

    /// What a finished migration did.
    package struct Outcome: Sendable, Equatable {
        package var from: String, to: String
        package var rows: [(entity: String, before: Int?, after: Int?)]
        package var backup: String?
        /// Seconds the plan took, its pauses not counted.
        package var seconds: Double
        /// Seconds it waited on a person or was stopped, said apart.
        package var pausedSeconds: Double = 0

        /// What a finished migration did.
        package init(
            from: String, to: String, rows: [(entity: String, before: Int?, after: Int?)], backup: String?,
            seconds: Double
        ) {
            self.from = from
            self.to = to
            self.rows = rows
            self.backup = backup
            self.seconds = seconds
        }

        package static func == (a: Outcome, b: Outcome) -> Bool {
            a.from == b.from && a.to == b.to && a.backup == b.backup && a.seconds == b.seconds
                && a.rows.map(\.entity) == b.rows.map(\.entity) && a.rows.map(\.before) == b.rows.map(\.before)
                && a.rows.map(\.after) == b.rows.map(\.after)
        }
    }

    package var storeName: String
    package var bundleName: String
    /// The store's version: the target once a migration has finished.
    package var storeVersion: String
    /// Why the plan cannot run, when it cannot (a step refused, a policy this build lacks): the
    /// console opens all the same, to browse, and refuses only `m` and `s`, saying why.
    package var blocked: String? { didSet { layOutPlanLines() } }
    /// The version the store was at before a finished migration.
    package var migratedFrom: String?
    package var targetVersion: String
    package var versions: [Version]
    package var steps: [Step] { didSet { layOutPlanLines() } }
    package var screen: Screen = .versions
    package var mode: Mode = .browsing
    /// The step-mode pause a cancel question interrupted, to go back to if the answer is no.
    package var pausedBeforeConfirming: Mode?
    /// The selected row per screen.
    package var selection: [Int] = Array(repeating: 0, count: Screen.allCases.count)
    /// What is open over the screen: help, the live log, the Plan screen's SQL view.
    package var overlays = OverlayState()
    /// Find (`/`, `n`, `N`) and the filters (`f` on Plan and Model).
    package var find = FindState() { didSet { if find.planFilter != oldValue.planFilter { filterPlanLines() } } }
    /// The run: step mode and its auto-advance, the progress and its clocks, each step's result
    /// and the outcome.
    package var run = RunState()
    /// Every step's SQL, in plan order: the statements `chrysalis plan --sql` prints, compiled
    /// once as the console opens (empty when they could not be; ``sqlProblem`` says why).
    package var sql: [StepSQL] = []
    /// Why the plan's SQL could not be compiled, when it could not.
    package var sqlProblem: String?
    /// What the console is doing before it has a plan to show (reading the bundle, working out
    /// the plan), drawn as the first frame; nil once it has one.
    package var opening: String?
    /// The SQL is being compiled after the first frame: the SQL view says so until it comes.
    package var sqlPending = false
    /// The pane beside the current screen's list: whether it has the keys, where it is scrolled.
    package var pane = PaneState()
    package var width: Int, height: Int
    package var glyphs: Glyphs { didSet { layOutPlanLines() } }
    /// Every line of the Plan screen, whatever the filter, and the lines the filter shows: laid
    /// out when what they show changes, not at every key (a 267-line plan took 100–160 ms a key
    /// when each look laid them out again).
    package internal(set) var allPlanLines: [PlanLine] = []
    package internal(set) var planLines: [PlanLine] = []
    package var quit = false

    /// The smallest terminal the layout fits.
    package static let minimumSize = (width: 80, height: 24)

    /// A state showing the given data.
    package init(
        storeName: String, bundleName: String, storeVersion: String, targetVersion: String, versions: [Version],
        steps: [Step],
        width: Int = 80, height: Int = 24, glyphs: Glyphs = .unicode
    ) {
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
        layOutPlanLines()
    }

    /// Every entity mapping of the plan, in the order they run.
    package var allMappings: [Mapping] { steps.flatMap(\.mappings) }

    /// Whether the migration is waiting on a person: a step-mode pause, or a cancel question
    /// asked over one.
    package var isWaitingOnPerson: Bool {
        switch mode {
        case .paused, .pausedAfterStep: return true
        case .confirmingCancel: return pausedBeforeConfirming != nil
        default: return false
        }
    }

    /// Whether a migration is under way (keys are ignored).
    package var isBusy: Bool {
        switch mode {
        case .migrating, .confirmingCancel, .cancelling, .paused, .pausedAfterStep: return true
        default: return false
        }
    }
}
