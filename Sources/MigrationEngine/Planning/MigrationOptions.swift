import Foundation

/// Settings of one migration.
public struct MigrationOptions {
    /// Custom policies by the names mapping models use.
    public var policies: PolicyRegistry
    /// Lets the caller stop the migration between chunks.
    public var cancellation: CancellationToken
    /// Source rows per transaction (a progress and cancellation point).
    public var chunkSize: Int
    /// Customises each pass's manager before it runs (Core Data's custom `NSMigrationManager`).
    public var configureManager: ((MigrationManager) throws -> Void)?
    /// Step mode: called on the engine's thread after each entity mapping of stages 1 and 2; the
    /// migration waits until it returns (and stops there if the cancellation token is set).
    public var pauseAfterEntityMapping: (@Sendable (StepReport) -> Void)?
    /// Which step of a longer plan this migration is (for progress), and how many there are.
    var step = 1, stepCount = 1
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
    /// The rows the step before verified, set by a plan runner (see ``VerifiedRowCounts``).
    var verifiedRows: VerifiedRowCounts?

    /// Options with Core Data's defaults.
    public init(policies: PolicyRegistry = PolicyRegistry(), cancellation: CancellationToken = CancellationToken(),
                chunkSize: Int = 10_000, configureManager: ((MigrationManager) throws -> Void)? = nil) {
        self.policies = policies
        self.cancellation = cancellation
        self.chunkSize = chunkSize
        self.configureManager = configureManager
    }
}
