import Foundation
import Logging
import MigrationConsole
import Synchronization

/// The command line's log: off by default; `--verbose` (on `plan`, `migrate`, `console`) or
/// `CHRYSALIS_LOG=debug|trace` sends the engine's decisions (debug) and every SQL statement with
/// its time (trace) to standard error — Core Data's `MigrationDebug` and `SQLDebug` arguments.
/// While the console is open the lines go to its Log overlay (`v`) instead, never over its screen.
enum DebugLog {
    /// The levels `CHRYSALIS_LOG` takes, as swift-log names them.
    static let levels = Logger.Level.allCases.map(\.rawValue)

    /// The level the arguments and the environment ask for; a `CHRYSALIS_LOG` that names no
    /// level is refused, saying which ones there are (a typo must not silently log nothing).
    static func level(arguments: [String], environment: [String: String]) throws -> Logger.Level {
        if arguments.contains("--verbose") { return .trace }
        guard let named = environment["CHRYSALIS_LOG"], !named.isEmpty else { return .warning }
        guard let level = Logger.Level(rawValue: named.lowercased()) else {
            throw ValidationFailure(
                """
                CHRYSALIS_LOG=\(named) is not a log level: set it to one of \(levels.joined(separator: ", ")) \
                (debug: the engine's decisions; trace: every SQL statement too), or unset it
                """)
        }
        return level
    }

    /// A refusal of the environment, said before any command runs.
    struct ValidationFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Chooses the level before any logger is made, from the arguments and the environment.
    static func bootstrap(
        arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let level = try level(arguments: arguments, environment: environment)
        LoggingSystem.bootstrap { label in RoutedLogHandler(label: label, level: level) }
    }

    /// Where log lines go instead of standard error: the open console's, while it is open.
    private static let route = Mutex<ConsoleLogFeed?>(nil)

    /// Whether any debug line is let through: the console then keeps them for its Log overlay.
    static var isOn: Bool { Logger(label: "chrysalis.console").logLevel < .warning }

    /// Runs `body` with every log line going to `feed`, then to standard error again.
    static func routed<T>(to feed: ConsoleLogFeed?, _ body: () throws -> T) rethrows -> T {
        route.withLock { $0 = feed }
        defer { route.withLock { $0 = nil } }
        return try body()
    }

    /// swift-log's stream handler, or the console's feed while one is set.
    struct RoutedLogHandler: LogHandler {
        let label: String
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]
        private var stream: StreamLogHandler

        init(label: String, level: Logger.Level) {
            self.label = label
            logLevel = level
            stream = StreamLogHandler.standardError(label: label)
            stream.logLevel = level
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            guard let feed = DebugLog.route.withLock({ $0 }) else {
                stream.log(event: event)
                return
            }
            feed.append("\(event.level) \(label.replacingOccurrences(of: "chrysalis.", with: "")): \(event.message)")
        }
    }
}
