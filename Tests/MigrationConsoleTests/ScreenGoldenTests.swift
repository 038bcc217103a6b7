import Demo
import Foundation
import MigrationConsole
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Every console screen and state at 80×24 and 120×40, from fixed demo state, compared with
/// `Screens/*.txt`. `RECORD_SCREENS=1 swift test --filter ScreenGoldenTests` re-records them.
final class ScreenGoldenTests: XCTestCase {
    static let screensFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Screens")

    /// The BookStore demo at version 3, planned to version 5: a real plan from a real store.
    private func baseState(width: Int, height: Int, glyphs: Glyphs = .unicode) throws -> ConsoleState {
        let bundle = try ModelBundle.read(at: DemoResources.bookStoreBundle)
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        try PersistentStore.create(at: path, model: try XCTUnwrap(bundle.version(named: "BookStore 3")).model).close()
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")])
        return ConsoleState(store: path, bundle: bundle, plan: plan, width: width, height: height, glyphs: glyphs)
    }

    private let running = MigrationProgress(step: 1, stepCount: 2, pass: "BookStore3To4", entityMapping: "PublicationToPublication", entityMappingIndex: 2,
                                            entityMappingCount: 3, stage: .createInstances, rowsDone: 10_000, rowsTotal: 20_004, fraction: 0.42,
                                            rowsPerSecond: 18_000, elapsed: 12)

    private func states(width: Int, height: Int) throws -> [(String, ConsoleState)] {
        let base = try baseState(width: width, height: height)
        var result: [(String, ConsoleState)] = [("versions", base)]
        var state = base
        state.selection[ConsoleState.Screen.versions.rawValue] = 3
        _ = state.reduce(.key(.enter))
        result.append(("model-diff", state))
        state = base
        state.screen = .mappings
        state.selection[ConsoleState.Screen.mappings.rawValue] = 1
        result.append(("mappings", state))
        state = base
        state.screen = .plan
        result.append(("plan", state))
        state = base
        state.screen = .migrate
        result.append(("migrate-ready", state))
        state = base
        _ = state.reduce(.key(.character("m")))
        _ = state.reduce(.progress(running))
        result.append(("migrate-running", state))
        _ = state.reduce(.key(.character("j")))
        result.append(("migrate-keys-ignored", state))
        _ = state.reduce(.key(.character("x")))
        result.append(("migrate-confirm-cancel", state))
        state = base
        _ = state.reduce(.key(.character("s")))
        _ = state.reduce(.progress(running))
        _ = state.reduce(.paused(StepReport(pass: "BookStore3To4", entityMapping: "PublicationToPublication", index: 2, count: 3, stage: .createInstances,
                                            rowsCreated: 20_004, sampleRows: ["Publication 1: firstName=\"John\", lastName=\"Doe\", price=20.0, title=\"The first book\"",
                                                                               "Publication 2: firstName=\"Jane\", lastName=\"Doe\", price=21.0, title=\"The second book\""],
                                            next: "PageToPage")))
        result.append(("step-paused", state))
        state = base
        _ = state.reduce(.key(.character("m")))
        _ = state.reduce(.finished(ConsoleState.Outcome(from: "BookStore 3", to: "BookStore 5",
                                                         rows: [("Category", 20_001, 20_001), ("Page", 20_000, 20_000), ("Publication", 20_004, 20_004)],
                                                         backup: "BookStore~.sqlite", seconds: 7.0)))
        result.append(("result", state))
        state = base
        _ = state.reduce(.key(.character("m")))
        _ = state.reduce(.failed("BookStore.sqlite: validation failed in the destination: Category object 3 (Z_PK 3): name is required but has no value. Fix: map a value for Category.name in the mapping model, or make it optional in the destination model"))
        result.append(("error", state))
        state = base
        _ = state.reduce(.key(.character("?")))
        result.append(("help", state))
        return result
    }

    private func check(_ grid: Grid, named name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = Self.screensFolder.appendingPathComponent("\(name).txt")
        let record = ProcessInfo.processInfo.environment["RECORD_SCREENS"] == "1"
        guard !record, let expected = try? String(contentsOf: url, encoding: .utf8) else {
            try FileManager.default.createDirectory(at: Self.screensFolder, withIntermediateDirectories: true)
            try grid.text.write(to: url, atomically: true, encoding: .utf8)
            if !record { XCTFail("recorded \(name).txt; look at it, then run again", file: file, line: line) }
            return
        }
        if grid.text != expected {
            let got = grid.text.split(separator: "\n", omittingEmptySubsequences: false), want = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, want.count)
            XCTFail("\(name).txt differs at line \(first + 1):\n  got:  \(first < got.count ? got[first] : "")\n  want: \(first < want.count ? want[first] : "")", file: file, line: line)
        }
    }

    func testEveryScreenAtBothSizes() throws {
        for (width, height) in [(80, 24), (120, 40)] {
            for (name, state) in try states(width: width, height: height) {
                let grid = Screens.render(state)
                XCTAssertEqual(grid.width, width)
                XCTAssertEqual(grid.height, height)
                try check(grid, named: "\(name).\(width)x\(height)")
            }
        }
    }

    func testASCIIAndTooSmall() throws {
        var ascii = try baseState(width: 80, height: 24, glyphs: .ascii)
        _ = ascii.reduce(.key(.character("m")))
        _ = ascii.reduce(.progress(running))
        try check(Screens.render(ascii), named: "migrate-running-ascii.80x24")
        XCTAssertTrue(Screens.render(ascii).text.allSatisfy(\.isASCII), "the ASCII glyph set draws only ASCII")
        var small = try baseState(width: 60, height: 15)
        try check(Screens.render(small), named: "too-small.60x15")
        _ = small.reduce(.resize(width: 80, height: 24))
        XCTAssertTrue(Screens.render(small).text.contains("Versions of BookStore"), "resizing back shows the screen again")
    }
}
