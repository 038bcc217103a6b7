import Foundation
import MigrationConsole

/// The one rule for the console's goldens, `Screens/*.txt` (every cell's character, then its
/// style): a screen that differs fails at its first differing line; a golden that is missing is
/// written and fails once, to be looked at; `RECORD_SCREENS=1` writes every one it checks.
enum ScreenGolden {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Screens")

    /// What differs between `grid` and the golden `name`, said for the test's failure; nil when
    /// they agree, or when the golden was recorded (`RECORD_SCREENS=1`).
    static func difference(_ grid: Grid, named name: String) throws -> String? {
        let url = folder.appendingPathComponent("\(name).txt")
        let record = ProcessInfo.processInfo.environment["RECORD_SCREENS"] == "1"
        guard !record, let expected = try? String(contentsOf: url, encoding: .utf8) else {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try grid.golden.write(to: url, atomically: true, encoding: .utf8)
            return record ? nil : "recorded \(name).txt; look at it, then run again"
        }
        guard grid.golden != expected else { return nil }
        let got = grid.golden.split(separator: "\n", omittingEmptySubsequences: false),
            want = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let first =
            zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, want.count)
        return """
            \(name).txt differs at line \(first + 1) (RECORD_SCREENS=1 records it again):
              got:  \(first < got.count ? got[first] : "")
              want: \(first < want.count ? want[first] : "")
            """
    }
}
