import Foundation
import MigrationEngine

/// What the running command line knows of the app's own code: the custom entity migration
/// policies mapping models name, and a hook that customises each pass's manager (Core Data's
/// custom `NSMigrationManager`). `plan` checks the policies; `migrate` and `console` run with them.
struct Registration {
    /// Policies by the names mapping models use.
    var policies: PolicyRegistry
    /// Customises each pass's manager before it runs.
    var configureManager: (@Sendable (MigrationManager) throws -> Void)?
    /// The app's staged migration, which `--strategy staged` runs.
    var stages: StagedMigration?

    /// The registration of this run, set before the command line is parsed (``Invocation``):
    /// nothing, unless an app's build of the command line registered its own.
    static var current: Registration { Invocation.current.registration }

    /// Migration options with these policies and hook, and `cancellation`.
    func options(cancellation: CancellationToken = CancellationToken()) -> MigrationOptions {
        var options = MigrationOptions(
            policies: policies, cancellation: cancellation, configureManager: configureManager)
        options.lockHolder = Invocation.commandLine
        return options
    }
}
