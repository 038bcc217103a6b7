import Foundation
import Logging

/// The command line's log: off by default; `--verbose` (on `plan`, `migrate`, `console`) or
/// `CHRYSALIS_LOG=debug|trace` sends the engine's decisions (debug) and every SQL statement with
/// its time (trace) to standard error — Core Data's `MigrationDebug` and `SQLDebug` arguments.
enum DebugLog {
    /// Chooses the level before any logger is made, from the arguments and the environment.
    static func bootstrap(
        arguments: [String] = CommandLine.arguments, environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        let level: Logger.Level
        if arguments.contains("--verbose") {
            level = .trace
        } else if let named = environment["CHRYSALIS_LOG"].flatMap({ Logger.Level(rawValue: $0.lowercased()) }) {
            level = named
        } else {
            level = .warning
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
