import Foundation
import XCTest

/// What an end-to-end test needs from the machine (tmux, sshd): without it the test is skipped
/// on a developer's machine, and fails under CI (`CI=true`), so that CI can never pass with the
/// console or SSH untested.
public enum EndToEnd {
    /// Skips (or, in CI, fails) unless `available`.
    public static func require(_ available: Bool, _ reason: String) throws {
        guard !available else { return }
        throw unavailable(reason)
    }

    /// The error for a test that cannot run here: a skip, or in CI a failure.
    public static func unavailable(_ reason: String) -> Error {
        ProcessInfo.processInfo.environment["CI"] == "true" ? RequiredInCI(reason: reason) : XCTSkip(reason)
    }

    /// An end-to-end test CI must run could not run.
    public struct RequiredInCI: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { "CI=true and this end-to-end test cannot run: \(reason)" }
    }
}
