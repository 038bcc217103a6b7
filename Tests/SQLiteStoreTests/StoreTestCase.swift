import Foundation
import TestSupport
import XCTest

extension XCTestCase {
    /// A fresh temporary directory, removed when the test ends.
    func temporaryDirectory() throws -> URL {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    /// A copy of a real fixture store (with its sidecars) in a fresh temporary directory.
    func copyOfFixture(_ store: URL) throws -> URL {
        try Fixtures.copyStore(store, into: try temporaryDirectory())
    }
}
