import ArgumentParser
import Foundation
import Synchronization

/// What this run of the command line was started with, set once by `Chrysalis.main` before
/// anything is parsed: the arguments it parses, what the app registered, and the commands an
/// executable adds. swift-argument-parser hands a command only its parsed options, so what every
/// command shares lives here, behind a lock: commands read it from the console's and the engine's
/// threads too.
enum Invocation {
    /// One run's invocation.
    struct State: @unchecked Sendable {
        /// The arguments after the executable's name, as parsed.
        var arguments: [String] = []
        /// The executable's name, as the lock file and messages give it.
        var executable = "chrysalis"
        /// The app's policies, manager hook and stages.
        var registration = Registration(policies: PolicyRegistry(), configureManager: nil, stages: nil)
        /// Commands listed before the others (`chrysalis` adds its `demo`). Metatypes, set once
        /// before parsing and only read after: the reason for `@unchecked`.
        var leadingCommands: [any ParsableCommand.Type] = []
    }

    private static let state = Mutex(State())

    /// Sets the run's invocation; `Chrysalis.main` calls it once, before parsing.
    static func start(_ new: State) { state.withLock { $0 = new } }

    /// The run's invocation.
    static var current: State { state.withLock { $0 } }

    /// The command line as a person typed it (`chrysalis migrate App.sqlite --model …`): how the
    /// store's lock file names this process to another that finds it locked (the lock cuts it
    /// to a line).
    static var commandLine: String {
        let run = current
        return ([run.executable] + run.arguments).joined(separator: " ")
    }
}
