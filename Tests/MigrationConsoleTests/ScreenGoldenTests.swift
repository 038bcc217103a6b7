import Foundation
import MigrationConsole
import MigrationEngine
import XCTest

/// Every console screen and state at 80×24 and 120×40, from fixed demo state, compared with
/// `Screens/*.txt`: the characters, then every cell's style, so a lost highlight fails too.
/// `RECORD_SCREENS=1 swift test --filter ScreenGoldenTests` re-records them.
final class ScreenGoldenTests: XCTestCase {
    private func browsing(_ base: ConsoleState) -> [(String, ConsoleState)] {
        var result: [(String, ConsoleState)] = [("versions", base)]
        var state = base
        state.selection[ConsoleState.Screen.versions.rawValue] = 3
        _ = state.reduce(.key(.enter))
        result.append(("model-diff", state))
        state = base
        state.screen = .mappings
        state.selection[ConsoleState.Screen.mappings.rawValue] = 1
        result.append(("mappings", state))
        // The pane beside the list with the keys, scrolled, and a find lit in it.
        _ = state.reduce(.key(.character("l")))
        _ = state.reduce(.key(.down))
        for key in "/source" { _ = state.reduce(.key(.character(key))) }
        _ = state.reduce(.key(.enter))
        result.append(("mappings-pane-focused", state))
        state = base
        state.selection[ConsoleState.Screen.versions.rawValue] = 3
        _ = state.reduce(.key(.character("l")))
        result.append(("versions-pane-focused", state))
        state = base
        state.screen = .plan
        result.append(("plan", state))
        result += sql(base)
        state = base
        state.screen = .migrate
        result.append(("migrate-ready", state))
        state = base
        _ = state.reduce(.key(.character("?")))
        result.append(("help", state))
        return result
    }

    /// The Plan screen with a step's SQL open (Enter): an in-place lightweight step, and the
    /// first mapping step scrolled to its custom policy's part, which runs row by row.
    private func sql(_ base: ConsoleState) -> [(String, ConsoleState)] {
        var state = base
        state.screen = .plan
        _ = state.reduce(.key(.enter))
        var result = [("plan-sql-inplace", state)]
        _ = state.reduce(.key(.escape))
        // Down the plan's lines until step 3's heading, the first mapping step.
        for _ in 0..<50 where state.selection[ConsoleState.Screen.plan.rawValue] != state.planLine(ofStep: 2) {
            _ = state.reduce(.key(.down))
        }
        _ = state.reduce(.key(.enter))
        // Down line by line until the custom policy's part, which runs row by row, is in view.
        for _ in 0..<100 where !Screens.render(state).text.contains("PublicationToPublicationMigrationPolicy)") {
            _ = state.reduce(.key(.down))
        }
        result.append(("plan-sql-mapping", state))
        return result
    }

    private func migrating(_ base: ConsoleState) -> [(String, ConsoleState)] {
        var result = GoldenStates.stages.map { ($0.0, GoldenStates.migrating(base, at: $0.1)) }
        var state = GoldenStates.migrating(base, at: GoldenStates.stages[3].1)
        _ = state.reduce(.key(.character("j")))
        result.append(("migrate-keys-ignored", state))
        _ = state.reduce(.key(.character("x")))
        result.append(("migrate-confirm-cancel", state))
        _ = state.reduce(.key(.character("y")))
        result.append(("migrate-cancelling", state))
        state = GoldenStates.migrating(base, at: GoldenStates.stages[3].1, stepMode: true)
        _ = state.reduce(
            .paused(
                StepReport(
                    pass: "BookStore3To4", entityMapping: "PublicationToPublication", index: 2, count: 3,
                    stage: .createInstances,
                    rowsCreated: 200_004,
                    sampleRows: [
                        "Publication 1: firstName=\"John\", lastName=\"Doe\", price=20.0, title=\"The first book\"",
                        "Publication 2: firstName=\"Jane\", lastName=\"Doe\", price=21.0, title=\"The second book\"",
                    ],
                    next: "PageToPage",
                    samples: [
                        .init(
                            source: "Publication 1", destination: "Publication 1",
                            values: [
                                .init(name: "firstName", before: nil, after: "\"John\""),
                                .init(name: "lastName", before: nil, after: "\"Doe\""),
                                .init(name: "price", before: "20.0", after: "20.0"),
                                .init(name: "title", before: "\"The first book\"", after: "\"The first book\""),
                            ], sourceOnly: ["author \"John Doe\""]),
                        .init(
                            source: "Publication 2", destination: "Publication 2",
                            values: [
                                .init(name: "firstName", before: nil, after: "\"Jane\""),
                                .init(name: "price", before: "21", after: "21.0"),
                            ]),
                    ])))
        result.append(("step-paused", state))
        state = GoldenStates.migrating(base, at: GoldenStates.stages[2].1)
        _ = state.reduce(.stepVerified(2))
        result.append(("step-gathering", state))
        _ = state.reduce(.gathering("the demo's own work: rows 40000/100004"))
        result.append(("step-gathering-note", state))
        state = GoldenStates.migrating(base, at: GoldenStates.stages[2].1, stepMode: true)
        _ = state.reduce(.stepDone(GoldenStates.results(2)[1], paused: true))
        result.append(("step-done-paused", state))
        return result
    }

    private func ended(_ base: ConsoleState) -> [(String, ConsoleState)] {
        var state = GoldenStates.finished(base)
        var result = [("result", state)]
        _ = state.reduce(.key(.up))
        _ = state.reduce(.key(.up))
        result.append(("result-step-2", state))
        state = GoldenStates.migrating(base, at: GoldenStates.stages[3].1)
        _ = state.reduce(
            .failed(
                "validation failed in the destination: Category object 3 (Z_PK 3): name is required but has no value; the store is as it was, "
                    + "at BookStore: the steps already done were undone and the original put back, byte for byte. Fix: map a value for "
                    + "Category.name in the mapping model, or make it optional in the destination model"))
        result.append(("error", state))
        return result
    }

    private func check(_ grid: Grid, named name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        if let difference = try ScreenGolden.difference(grid, named: name) {
            XCTFail(difference, file: file, line: line)
        }
    }

    func testEveryScreenAtBothSizes() throws {
        for (width, height) in [(80, 24), (120, 40)] {
            let base = try GoldenStates.base(width: width, height: height)
            for (name, state) in browsing(base) + migrating(base) + ended(base) {
                let grid = Screens.render(state)
                XCTAssertEqual(grid.width, width)
                XCTAssertEqual(grid.height, height)
                try check(grid, named: "\(name).\(width)x\(height)")
            }
        }
    }

    func testASCIIAndTooSmall() throws {
        let ascii = GoldenStates.migrating(
            try GoldenStates.base(width: 80, height: 24, glyphs: .ascii), at: GoldenStates.stages[3].1)
        try check(Screens.render(ascii), named: "migrate-running-ascii.80x24")
        XCTAssertTrue(Screens.render(ascii).text.allSatisfy(\.isASCII), "the ASCII glyph set draws only ASCII")
        // A step's SQL in ASCII: ≤ and … spelled out in full (<=, ...), not replaced by '?'.
        var sql = try GoldenStates.base(width: 80, height: 24, glyphs: .ascii)
        sql.screen = .plan
        sql.selection[ConsoleState.Screen.plan.rawValue] = sql.planLine(ofStep: 2)
        _ = sql.reduce(.key(.enter))
        try check(Screens.render(sql), named: "plan-sql-ascii.80x24")
        XCTAssertTrue(Screens.render(sql).text.allSatisfy(\.isASCII), "the SQL view in ASCII draws only ASCII")
        XCTAssertTrue(Screens.render(sql).text.contains(":from <= Z_PK <= :last"), Screens.render(sql).text)
        let body = (3..<22).map { Screens.render(sql).row($0) }.joined(separator: "\n")
        XCTAssertFalse(body.contains("?"), "nothing in the SQL view falls back to '?':\n\(body)")
        var small = try GoldenStates.base(width: 60, height: 15)
        try check(Screens.render(small), named: "too-small.60x15")
        _ = small.reduce(.resize(width: 80, height: 24))
        XCTAssertTrue(
            Screens.render(small).text.contains("Versions of BookStore"), "resizing back shows the screen again")
    }

    /// The goldens are the console's documentation: every screen README and docs/Console.md show
    /// is one of them, as it is.
    func testTheREADMEShowsGoldenScreens() throws {
        let root = ScreenGolden.folder.deletingLastPathComponent()
        let shown = [
            "README.md": ["versions.80x24"],
            "docs/Console.md": [
                "versions.80x24", "plan-sql-inplace.80x24", "migrate-inplace-change.80x24", "result-step-2.80x24",
            ],
        ]
        for (file, names) in shown {
            let document = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for name in names {
                let golden = try String(
                    contentsOf: ScreenGolden.folder.appendingPathComponent("\(name).txt"), encoding: .utf8)
                let legend = try XCTUnwrap(golden.range(of: "── styles:"))
                let text = String(golden[..<legend.lowerBound])
                XCTAssertTrue(document.contains("```\n" + text + "```"), "\(file) shows \(name) as its golden has it")
            }
        }
    }
}
