import Foundation
import ObjectModel
import TestSupport
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `chrysalis check-history` through the binary: a real app's whole history proved migratable,
/// and a history that is not, named version by version with the failing step and its fix.
final class CheckHistoryCommandTests: FixtureTestCase {
    private func versions(of bundle: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: bundle.path).filter { $0.hasSuffix(".xcdatamodel") }
    }

    func testEveryVersionOfWireMigratesToTheCurrentOne() throws {
        let bundle = Fixtures.root.appendingPathComponent("wire-ios-data-model/Resources/zmessaging.xcdatamodeld")
        let result = try ChrysalisRunner.run(["check-history", bundle.path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(json["bundle"] as? String, "zmessaging")
        let outcomes = try XCTUnwrap(json["versions"] as? [[String: Any]])
        XCTAssertEqual(outcomes.count, try versions(of: bundle).count, "every version is checked")
        XCTAssertTrue(
            outcomes.allSatisfy { $0["ok"] as? Bool == true }, "\(outcomes.filter { $0["ok"] as? Bool != true })")
        let current = try XCTUnwrap(json["current"] as? String)
        XCTAssertEqual(outcomes.first { $0["version"] as? String == current }?["steps"] as? Int, 0)
        XCTAssertTrue(
            outcomes.filter { $0["version"] as? String != current }.allSatisfy { ($0["steps"] as? Int ?? 0) >= 1 })
    }

    /// Moody's last mapping model names a Swift policy the plain binary has not registered:
    /// every version before it fails at that step, saying how to fix it, and the exit is 1.
    func testAHistoryThatDoesNotMigrateIsNamedVersionByVersion() throws {
        let migrations = Fixtures.root.appendingPathComponent("objcio-core-data/Migrations/Migrations")
        let bundle = migrations.appendingPathComponent("Moody.xcdatamodeld")
        let result = try ChrysalisRunner.run(["check-history", bundle.path, "--mappings", migrations.path])
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let failures = lines.filter { $0.hasPrefix("FAIL") }
        XCTAssertEqual(failures.count, try versions(of: bundle).count - 1, result.stdout)
        XCTAssertTrue(
            failures.allSatisfy {
                $0.contains("Country5ToCountry6Policy (step Moody 5 → Moody 6)")
                    && $0.contains(
                        "Fix: build a command line of your own that registers them, Chrysalis.main(policies:)")
            }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("ok    Moody 6") }, result.stdout)
        let count = try versions(of: bundle).count
        XCTAssertTrue(
            result.stdout.contains(
                "\(count - 1) of \(count) versions of Moody do not migrate to Moody 6 (progressive), for 1 cause at 1 step."
            ),
            result.stdout)
        XCTAssertTrue(
            result.stdout.contains("Failing steps, by cause:\n  Moody 5 → Moody 6: \(count - 1) versions"),
            "one problem, said once: \(result.stdout)")
        XCTAssertTrue(result.stderr.contains("checking 1/\(count): Moody"), "progress while it runs: \(result.stderr)")
    }

    /// In CI: progress on standard error whatever the output, failures grouped by the step they
    /// fail at, and a JUnit report a CI system reads.
    func testJSONGroupsFailuresByStepAndJUnitReportsEveryVersion() throws {
        let migrations = Fixtures.root.appendingPathComponent("objcio-core-data/Migrations/Migrations")
        let bundle = migrations.appendingPathComponent("Moody.xcdatamodeld")
        let junit = try scratchDirectory().appendingPathComponent("history.xml")
        let result = try ChrysalisRunner.run([
            "check-history", bundle.path, "--mappings", migrations.path, "--json", "--junit", junit.path,
        ])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("checking 1/"), "progress in JSON mode too: \(result.stderr)")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let count = try versions(of: bundle).count
        let outcomes = try XCTUnwrap(json["versions"] as? [[String: Any]])
        XCTAssertEqual(outcomes.filter { $0["failingStep"] as? String == "Moody 5 → Moody 6" }.count, count - 1)
        XCTAssertEqual(outcomes.filter { $0["failure"] as? String == "missingPolicy" }.count, count - 1)
        let groups = try XCTUnwrap(json["failingSteps"] as? [[String: Any]])
        XCTAssertEqual(groups.count, 1)
        XCTAssertEqual(groups.first?["step"] as? String, "Moody 5 → Moody 6")
        XCTAssertEqual((groups.first?["versions"] as? [String])?.count, count - 1)
        let xml = try String(contentsOf: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains(#"tests="\#(count)" failures="\#(count - 1)""#), xml)
        XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, count, xml)
        XCTAssertTrue(xml.contains(#"<failure message="Moody 5 → Moody 6: missingPolicy">"#), xml)
        XCTAssertTrue(XMLParser(data: Data(xml.utf8)).parse(), "well-formed XML")
    }

    /// WooCommerce under the default strategy: nine versions each fail on their own straight step
    /// to the current one, for one cause (`Order.statusKey` has no default). They are one group,
    /// said once with its steps; the JUnit report gives each version's seconds.
    func testFailuresOnStepsThatDifferOnlyInTheirStartAreOneCause() throws {
        let bodies = [
            #"<attribute name="title" optional="YES" attributeType="String"/>"#,
            #"<attribute name="note" optional="YES" attributeType="String"/><attribute name="title" optional="YES" attributeType="String"/>"#,
            #"<attribute name="note" optional="YES" attributeType="String"/><attribute name="status" attributeType="String"/><attribute name="title" optional="YES" attributeType="String"/>"#,
        ]
        let versions = try bodies.enumerated().map { index, attributes in
            ModelBundle.Version(
                name: "V\(index + 1)",
                model: try ModelXMLReader.read(
                    Data(
                        #"<?xml version="1.0" encoding="UTF-8"?><model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0"><entity name="Order">\#(attributes)</entity></model>"#
                            .utf8), file: "V\(index + 1)"))
        }
        let directory = try scratchDirectory()
        let bundle = directory.appendingPathComponent("App.xcdatamodeld")
        try ModelBundle(name: "App", versions: versions, currentVersionName: "V3").write(to: bundle)
        let junit = directory.appendingPathComponent("history.xml")
        let result = try ChrysalisRunner.run([
            "check-history", bundle.path, "--rows", "2", "--junit", junit.path,
        ])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(
            result.stdout.contains("Failing steps, by cause:\n  2 steps (V1 → V3 …): 2 versions (V1, V2)"),
            result.stdout)
        XCTAssertTrue(
            result.stdout.contains(
                "2 of 3 versions of App do not migrate to V3 (progressive), for 1 cause at 2 steps."),
            result.stdout)
        let xml = try String(contentsOf: junit, encoding: .utf8)
        let times = xml.components(separatedBy: "<testcase ").dropFirst().filter { $0.contains(#" time=""#) }
        XCTAssertEqual(times.count, 3, xml)
        XCTAssertTrue(
            xml.contains(#"<testsuite name="check-history App (progressive)""#) && xml.contains(" time=\""), xml)
        XCTAssertTrue(XMLParser(data: Data(xml.utf8)).parse(), "well-formed XML")
    }

    /// In GitHub Actions: one `::error` annotation per cause, on the model file of the version its
    /// step goes to, and a summary table appended to `$GITHUB_STEP_SUMMARY` (what was there stays).
    func testGitHubAnnotationsAndSummary() throws {
        let migrations = Fixtures.root.appendingPathComponent("objcio-core-data/Migrations/Migrations")
        let bundle = migrations.appendingPathComponent("Moody.xcdatamodeld")
        let summary = try scratchDirectory().appendingPathComponent("summary.md")
        try Data("earlier step\n".utf8).write(to: summary)
        let result = try ChrysalisRunner.run(
            ["check-history", bundle.path, "--mappings", migrations.path, "--github"],
            environment: ["GITHUB_STEP_SUMMARY": summary.path])
        XCTAssertEqual(result.status, 1, result.stderr)
        let annotations = result.stderr.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        XCTAssertEqual(annotations.count, 1, result.stderr)
        XCTAssertTrue(
            annotations.first?.hasPrefix(
                "::error file=\(bundle.path)/Moody 6.xcdatamodel/contents,title=check-history%3A Moody 5 → Moody 6%2C missingPolicy::"
            ) == true, result.stderr)
        XCTAssertFalse(result.stdout.contains("::error"), "standard output keeps the report alone")
        let text = try String(contentsOf: summary, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("earlier step\n### check-history Moody (progressive)"), text)
        XCTAssertTrue(
            text.contains("| Moody 5 → Moody 6 | missingPolicy | \(try versions(of: bundle).count - 1) |"), text)
    }

    /// A file beside the bundle gives a root entity its own rows: WordPress 101 → 102 adds a
    /// required relationship to PageTemplateCategory, which Core Data refuses only for rows real
    /// stores may never have; given none, the step migrates. A file naming what no version has,
    /// or a subentity, is refused naming the file, the entry and the fix.
    func testARowsFileBesideTheBundleGivesARootEntityItsOwnRows() throws {
        let wordpress = try ModelBundle.read(
            at: Fixtures.root.appendingPathComponent("wordpress-ios/WordPress/Classes/WordPress.xcdatamodeld"))
        let versions = try ["WordPress 101", "WordPress 102"].map { try XCTUnwrap(wordpress.version(named: $0)) }
        let folder = try scratchDirectory()
        let url = folder.appendingPathComponent("WordPress.xcdatamodeld")
        try ModelBundle(name: "WordPress", versions: versions, currentVersionName: "WordPress 102").write(to: url)
        let refused = try ChrysalisRunner.run(["check-history", url.path])
        XCTAssertEqual(refused.status, 1, "the premise: a step refused for rows:\n\(refused.stdout)")
        XCTAssertTrue(refused.stdout.contains("PageTemplateCategory"), refused.stdout)
        let file = folder.appendingPathComponent("WordPress.check-history.yaml")
        try "rows:\n  PageTemplateCategory: 0\n".write(to: file, atomically: true, encoding: .utf8)
        let checked = try ChrysalisRunner.run(["check-history", url.path])
        XCTAssertEqual(checked.status, 0, checked.stdout + checked.stderr)
        XCTAssertTrue(
            checked.stderr.contains("rows per entity from \(file.path): PageTemplateCategory 0; every other entity 12"),
            checked.stderr)
        for (text, said) in [
            ("rows:\n  NoSuchEntity: 3\n", "names NoSuchEntity, an entity no version of WordPress has"),
            ("rows:\n  PageTemplateCategory: many\n", "gives PageTemplateCategory many rows"),
            ("entities:\n  PageTemplateCategory: 0\n", "has no `rows:` mapping"),
        ] {
            try text.write(to: file, atomically: true, encoding: .utf8)
            let run = try ChrysalisRunner.run(["check-history", url.path])
            XCTAssertEqual(run.status, 1, text)
            XCTAssertTrue(run.stderr.contains(file.path) && run.stderr.contains(said), run.stderr)
        }
        let subentity = try XCTUnwrap(
            versions[1].model.entities.first { $0.parentName != nil }, "the premise: a subentity in WordPress 102")
        try "rows:\n  \(subentity.name): 1\n".write(to: file, atomically: true, encoding: .utf8)
        let sub = try ChrysalisRunner.run(["check-history", url.path])
        XCTAssertTrue(sub.stderr.contains("a subentity of \(subentity.parentName ?? "")"), sub.stderr)
    }
}
