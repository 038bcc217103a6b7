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
