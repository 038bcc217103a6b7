import Foundation
import TestSupport
import XCTest

/// `chrysalis plan --sql` prints the statements each step runs, from the compilers the migration
/// runs: the statements it prints are found, byte for byte but for the values bound per chunk, in
/// the SQL log of the migration that follows. It writes nothing.
final class PlanSQLCommandTests: FixtureTestCase {
    private let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources")

    /// A store of `bundle` at `version` with generated rows, made by `chrysalis fixture`.
    private func fixture(_ bundle: String, version: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent((bundle as NSString).deletingPathExtension + ".sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", resources.appendingPathComponent(bundle).path, "--version", version, "--rows", "50", "--out",
            path,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        return path
    }

    /// The files of `directory` with their bytes: what a read-only command must leave as it is.
    private func contents(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    /// Whether `log` (a migration's `--verbose` SQL log) holds `statement` as `plan --sql` printed
    /// it, its chunk parameters standing for the numbers the run bound.
    private func log(_ log: String, ran statement: String) throws -> Bool {
        var pattern = NSRegularExpression.escapedPattern(
            for: statement.hasSuffix(";") ? String(statement.dropLast()) : statement)
        for parameter in [":from", ":last", ":first_key", ":last_key"] {
            pattern = pattern.replacingOccurrences(of: parameter, with: "-?[0-9]+")
        }
        let expression = try NSRegularExpression(pattern: " ms  " + pattern + "$", options: .anchorsMatchLines)
        return expression.firstMatch(in: log, range: NSRange(log.startIndex..., in: log)) != nil
    }

    /// BookStore → BookStore 2 adds `Book.author`: in place, one `ALTER TABLE … ADD COLUMN`.
    func testAnInPlaceStepShowsItsAlterTableAndRunsExactlyThat() throws {
        let directory = try scratchDirectory()
        let store = try fixture("BookStore.xcdatamodeld", version: "BookStore", in: directory)
        let model = resources.appendingPathComponent("BookStore.xcdatamodeld").path
        let before = try contents(directory)
        let plan = try ChrysalisRunner.run(["plan", store, "--model", model, "--to", "BookStore 2", "--sql"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(
            plan.stdout.contains("SQL, in place: one transaction on the store itself (only ALTER TABLE)"), plan.stdout)
        let alter = try XCTUnwrap(
            plan.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("ALTER TABLE ZBOOK ADD COLUMN ZAUTHOR") }, plan.stdout)
        XCTAssertTrue(plan.stdout.contains("Z_PRIMARYKEY renumbered for BookStore 2"), plan.stdout)
        XCTAssertEqual(try contents(directory), before, "plan --sql writes nothing")

        let migrate = try ChrysalisRunner.run([
            "migrate", store, "--model", model, "--to", "BookStore 2", "--verbose", "--no-backup",
        ])
        XCTAssertEqual(migrate.status, 0, migrate.stderr)
        XCTAssertTrue(try log(migrate.stderr, ran: alter), "the migration ran \(alter)\n\(migrate.stderr)")
    }

    /// Recipes 1.1 → 2.0 raises salaries by 4% and converts °F to °C with value expressions: each
    /// compiles into the mapping's `INSERT … SELECT`, and the run executes that insert.
    func testValueExpressionsCompileIntoTheInsertTheRunExecutes() throws {
        let directory = try scratchDirectory()
        let store = try fixture("Recipes.xcdatamodeld", version: "Version 1.1", in: directory)
        let arguments = [
            store, "--model", resources.appendingPathComponent("Recipes.xcdatamodeld").path,
            "--mappings", resources.appendingPathComponent("Mappings/Recipes1To2.mapping.yaml").path,
        ]
        let before = try contents(directory)
        let plan = try ChrysalisRunner.run(["plan"] + arguments + ["--sql", "--json"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertEqual(try contents(directory), before, "plan --sql writes nothing")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let steps = try XCTUnwrap(json["steps"] as? [[String: Any]])
        let mapping = try XCTUnwrap(steps.first { $0["kind"] as? String == "mapping" })
        let parts = try XCTUnwrap((mapping["sql"] as? [String: Any])?["parts"] as? [[String: Any]])
        func statements(_ title: String) throws -> [[String: Any]] {
            try XCTUnwrap(
                parts.first { $0["title"] as? String == title }?["statements"] as? [[String: Any]],
                "no part \(title) in \(parts)")
        }
        let chefs = try XCTUnwrap(try statements("stage 1 · Recipes1To2: ChefToChef (keys kept)").first)
        let text = try XCTUnwrap(chefs["text"] as? String)
        XCTAssertTrue(text.hasPrefix("INSERT INTO main.ZCHEF ("), text)
        XCTAssertTrue(
            text.contains("chrysalis_checked_number((s.ZSALARY * 1.04), 0, '`$source.salary * 1.04` on a Chef row')"),
            text)
        XCTAssertTrue(text.contains(" FROM src.ZCHEF s WHERE s.Z_ENT = "), text)
        // The exact text keeps `?` where the values are bound: the constant, the label, the chunk's bounds.
        let sql = try XCTUnwrap(chefs["sql"] as? String)
        XCTAssertTrue(
            sql.contains("chrysalis_checked_number((s.ZSALARY * ?), 0, ?)")
                && sql.contains("s.Z_PK >= ? AND s.Z_PK <= ?"), sql)
        let bound = try XCTUnwrap(chefs["arguments"] as? [String])
        XCTAssertTrue(bound.contains("1.04") && bound.suffix(2) == [":from", ":last"], "\(bound)")
        let renumbered = try statements("stage 1 · Recipes1To2: RecipeToRecipe (keys renumbered)").compactMap {
            $0["text"] as? String
        }
        XCTAssertEqual(renumbered.count, 2, "the pairs numbered, then the insert through them")
        XCTAssertTrue(
            renumbered[1].contains("(s.ZTEMPERATURE - 32.0)") && renumbered[1].contains("/ 1.8)"), renumbered[1])

        let migrate = try ChrysalisRunner.run(["migrate"] + arguments + ["--verbose", "--no-backup"])
        XCTAssertEqual(migrate.status, 0, migrate.stderr)
        XCTAssertTrue(try log(migrate.stderr, ran: text), "the migration ran \(text)")
    }

    /// The objc.io Books mappings name custom policies: those parts run row by row, and say why.
    func testACustomPolicyIsShownRunningRowByRow() throws {
        let directory = try scratchDirectory()
        let store = try Fixtures.copyStore(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }), into: directory)
        let books = resources.appendingPathComponent("Books")
        let before = try contents(directory)
        let plan = try ChrysalisRunner.demos([
            "plan", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path,
            "--mappings", books.path, "--sql",
        ])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(
            plan.stdout.contains(
                "-- stage 1 · Model1_to_Model2: BookToBook: row by row in Swift (custom policy MHWBookToBookPolicy)"),
            plan.stdout)
        XCTAssertTrue(plan.stdout.contains("SQL, into a new store beside the source"), plan.stdout)
        XCTAssertTrue(
            plan.stdout.contains("INSERT INTO main.ZUSER ("), "UserToUser has no policy: set-based\n\(plan.stdout)")
        XCTAssertEqual(try contents(directory), before, "plan --sql writes nothing")
    }
}
