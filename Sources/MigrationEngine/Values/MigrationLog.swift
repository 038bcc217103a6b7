import Logging

/// The engine's debug log, the counterpart of Core Data's `com.apple.CoreData.MigrationDebug`:
/// why the plan takes each step, which version a store is read as, what each step does and how
/// long it takes, at `debug` level. Silent unless the process's log handler lets debug messages
/// through (the command line's `--verbose`, or `CHRYSALIS_LOG=debug`).
enum MigrationLog {
    static let plan = Logger(label: "chrysalis.migration")
}
