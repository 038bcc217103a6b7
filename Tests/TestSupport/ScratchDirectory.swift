import Foundation
import XCTest

extension XCTestCase {
    /// A new temporary folder for this test, removed when the test ends.
    public func scratchDirectory() throws -> URL {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
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
