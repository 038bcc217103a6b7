import Foundation

/// Settings of one migration. Sendable: a console hands them to the engine's thread as they are.
public struct MigrationOptions: Sendable {
    /// Custom policies by the names mapping models use.
    public var policies: PolicyRegistry
    /// Lets the caller stop the migration between chunks.
    public var cancellation: CancellationToken
    /// Where this migration's progress is posted; observe it to hear this migration only.
    public var progressChannel: ProgressChannel
    /// Source rows per transaction (a progress and cancellation point).
    public var chunkSize: Int
    /// State the policies keep for the whole run (``MigrationManager/runState(_:_:)``): every
    /// step of a plan run with these options shares it.
    public var runState = MigrationRunState()
    /// Customises each pass's manager before it runs (Core Data's custom `NSMigrationManager`).
    public var configureManager: (@Sendable (MigrationManager) throws -> Void)?
    /// Step mode: called on the engine's thread after each entity mapping of stages 1 and 2; the
    /// migration waits until it returns (and stops there if the cancellation token is set).
    public var pauseAfterEntityMapping: (@Sendable (StepReport) -> Void)?
    /// Called on the engine's thread after each step of a plan is done and verified, before the
    /// next starts, with the store at the step's version (a console shows the step's result, a
    /// demo does its own work there). What it throws stops the plan, which then puts the original back.
    public var afterStep: (@Sendable (CompletedStep) throws -> Void)?
    /// Reads every page of the store with SQLite's `quick_check` before the first write, so a
    /// damaged page anywhere is refused up front (a read of the whole file, so its time grows with
    /// the store's size), and every page of a mapping step's new store before it is swapped in.
    /// Without it a damaged page is met when a step reads it, and the plan is undone; a page no
    /// step reads stays as it was; a new store is checked by its row counts.
    public var checksPages = false
    /// How the store's lock file names this process to another that finds the store locked
    /// (`chrysalis` gives its command line); the process's name by default.
    public var lockHolder = StoreLock.thisProcess
    /// Options with Core Data's defaults.
    ///
    /// - Parameters:
    ///   - policies: Custom policies by the names mapping models use.
    ///   - cancellation: The token that stops the migration.
    ///   - progressChannel: Where progress is posted.
    ///   - chunkSize: Source rows per transaction.
    ///   - configureManager: Customises each pass's manager before it runs.
    public init(
        policies: PolicyRegistry = PolicyRegistry(), cancellation: CancellationToken = CancellationToken(),
        progressChannel: ProgressChannel = ProgressChannel(), chunkSize: Int = 10_000,
        configureManager: (@Sendable (MigrationManager) throws -> Void)? = nil
    ) {
        self.policies = policies
        self.cancellation = cancellation
        self.progressChannel = progressChannel
        self.chunkSize = chunkSize
        self.configureManager = configureManager
    }
}

extension MigrationOptions {
    /// A step run with these options on its own: the whole bar, its own lock and its backup.
    var stepContext: StepContext {
        StepContext(
            policies: policies, cancellation: cancellation, chunkSize: chunkSize, runState: runState,
            configureManager: configureManager,
            pauseAfterEntityMapping: pauseAfterEntityMapping, checksPages: checksPages,
            progress: ProgressTarget(channel: progressChannel), lockHolder: lockHolder)
    }
}
