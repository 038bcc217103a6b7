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
