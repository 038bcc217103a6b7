import SQLiteStore

/// One step as a plan runner hands it to what runs it (a mapping pass, an in-place change):
/// the caller's settings (``MigrationOptions``), and where the step stands in its plan. Kept
/// apart from the options so that callers set only what is theirs to set.
struct StepContext: Sendable {
    var policies: PolicyRegistry
    var cancellation: CancellationToken
    /// Source rows per transaction of a mapping pass.
    var chunkSize: Int
    var runState: MigrationRunState
    var configureManager: (@Sendable (MigrationManager) throws -> Void)?
    var pauseAfterEntityMapping: (@Sendable (StepReport) -> Void)?
    var checksPages: Bool
    /// Where the step's progress goes.
    var progress: ProgressTarget
    /// How the lock file names this process (``MigrationOptions/lockHolder``).
    var lockHolder: String
    /// Set by a plan runner that already holds the store's lock.
    var lockHeld = false
    /// Whether the step must leave the store it started from as `Name~.ext`. A plan runner asks
    /// only the first step for one; an in-place step makes one only when asked.
    var keepsBackup = true
    /// The backup's path when a plan runner chose it (it names it in its journal first).
    var backupPath: String?
    /// Set by a plan runner for steps after the first: the original is kept already, so the step
    /// replaces the store it started from instead of keeping it.
    var replacesSource = false
    /// The rows the step before verified (see ``VerifiedRowCounts``).
    var verifiedRows: VerifiedRowCounts?
    /// What the step before left the store holding, in a plan: the step finds out first, before
    /// it changes or copies anything, whether another process committed to the store since
    /// (``OtherWriters/requireUnchanged(_:since:store:)``). Nil for a plan's first step.
    var contentsBefore: ContentSummary?
    /// Whether the step summarizes what it leaves (``MigrationReport/contents``): a plan asks
    /// every step but its last, whose result no later failure compares against.
    var summarizesContents = false
}
