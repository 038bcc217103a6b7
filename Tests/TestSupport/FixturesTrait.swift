import Foundation
import Testing

extension Trait where Self == ConditionTrait {
    /// Swift Testing's side of ``FixtureTestCase``: a test that reads the Core Data fixtures is
    /// skipped where they are missing, saying where they belong; under `CI=true` it runs, and
    /// fails on the first file it cannot read.
    public static var fixtures: Self {
        .enabled(
            if: Fixtures.present || ProcessInfo.processInfo.environment["CI"] == "true",
            Comment(rawValue: Fixtures.missing))
    }
}

/// A Swift Testing suite's scratch space: a temporary folder of its own, with a new subfolder
/// for each use, removed with the suite (XCTest's side is `scratchDirectory()`).
public final class ScratchFolders: Sendable {
    private let root: URL

    public init() throws { root = try Fixtures.makeTemporaryDirectory() }
    deinit { try? FileManager.default.removeItem(at: root) }

    /// A new, empty folder.
    public func make() throws -> URL {
        let folder = root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
