import Foundation
import TestSupport
import XCTest

extension XCTestCase {
    /// A copy of a real fixture store (with its sidecars) in a fresh temporary directory.
    func copyOfFixture(_ store: URL) throws -> URL {
        try Fixtures.copyStore(store, into: try scratchDirectory())
    }
}
