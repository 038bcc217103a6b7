import XCTest

/// A test case that reads the Core Data fixtures: without them, each of its tests is skipped
/// with one sentence that says where they belong (``Fixtures/missing``), and fails under
/// `CI=true`, rather than failing on a missing file or stopping the run.
open class FixtureTestCase: XCTestCase {
    override open func setUpWithError() throws {
        try super.setUpWithError()
        try Fixtures.require()
    }
}
