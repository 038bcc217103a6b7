import Foundation
import GRDB
import TestSupport
import XCTest

/// `chrysalis` runs no demo code: a mapping that names a policy it was not given is refused by
/// `plan`, and a user's model with `Publication.synopsis` gets no demo hook. An app brings its
/// own policies through the command-line library: the package in `Examples/BooksMigrator` is
/// built from its own manifest and migrates the objc.io store with the Books policies.
final class OwnPoliciesTests: FixtureTestCase {
    private var resources: URL { ExamplePackage.project.appendingPathComponent("Sources/Demo/Resources") }

    func testChrysalisRegistersNoDemoPolicyOrHook() throws {
        let bundle = resources.appendingPathComponent("BookStore.xcdatamodeld").path
        let three = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore 3", "--rows", "20", "--out", three])
                .status, 0)
        let plan = try ChrysalisRunner.run([
            "plan", three, "--model", bundle, "--mappings", resources.appendingPathComponent("Mappings").path, "--to",
            "BookStore 4",
        ])
        XCTAssertEqual(plan.status, 1)
        XCTAssertTrue(
            plan.stderr.contains(
                "BookStore3To4: PublicationToPublication names PublicationToPublicationMigrationPolicy"), plan.stderr)
        XCTAssertTrue(plan.stderr.contains("none is registered"), plan.stderr)
        // BookStore 4 → 5 names no policy; the demos fill the synopsis through a manager hook,
        // which `chrysalis` must not install on a user's model.
        let four = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore 4", "--rows", "20", "--out", four])
                .status, 0)
        let mapping = ["--mappings", resources.appendingPathComponent("Mappings/BookStore4To5.mapping.yaml").path]
        let plain = try ChrysalisRunner.run(["migrate", four, "--model", bundle, "--no-backup"] + mapping)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(
            try DatabaseQueue(path: four).read {
                try Int.fetchOne($0, sql: "SELECT count(ZSYNOPSIS) FROM ZPUBLICATION")
            }, 0)
        let again = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        XCTAssertEqual(
            try ChrysalisRunner.run(["fixture", bundle, "--version", "BookStore 4", "--rows", "20", "--out", again])
                .status, 0)
        XCTAssertEqual(
            try ChrysalisRunner.demos(["migrate", again, "--model", bundle, "--no-backup"] + mapping).status, 0)
        XCTAssertEqual(
            try DatabaseQueue(path: again).read {
                try Int.fetchOne(
                    $0, sql: "SELECT count(*) FROM ZPUBLICATION WHERE ZSYNOPSIS IS ZTITLE AND ZTITLE IS NOT NULL")
            },
            try DatabaseQueue(path: again).read { try Int.fetchOne($0, sql: "SELECT count(ZTITLE) FROM ZPUBLICATION") },
            "the hook, where registered")
    }

    /// Builds `Examples/BooksMigrator` as a user would (its own manifest, its own build folder),
    /// and migrates the real objc.io store through its executable.
    func testTheExamplePackageRegistersTheBooksPoliciesAndMigrates() throws {
        let binary = try ExamplePackage("BooksMigrator", product: "books-migrator").build(log: try scratchDirectory())
        // The app's own policy types are in it, and nothing of the demos: the library links none.
        let symbols = try Self.symbols(of: binary)
        XCTAssertTrue(symbols.contains { $0.hasPrefix("$s13BooksPolicies") }, "the example's own policy module")
        XCTAssertEqual(symbols.filter { $0.hasPrefix("$s4Demo") }, [], "an app's build links no demo module")

        let store = try Fixtures.copyStore(
            try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent == "Model1.sqlite" }),
            into: try scratchDirectory())
        let books = resources.appendingPathComponent("Books")
        let (status, printed) = try ExamplePackage.run(
            binary,
            ["migrate", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path]
                + ["Model1_to_Model2", "Model2_to_Model3_User", "Model2_to_Model3"].flatMap {
                    ["--mappings", books.appendingPathComponent("\($0).xcmappingmodel").path]
                })
        XCTAssertEqual(status, 0, printed)
        XCTAssertTrue(printed.contains("from Model1 to Model3"), printed)
        let authors = try DatabaseQueue(path: store.path).read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM ZAUTHOR WHERE ZNAME = 'Franz Kafka'")
        }
        XCTAssertEqual(authors, 1, "MHWBookToBookPolicy made one Author per name")
    }

    /// The symbol names in `binary`, by `nm`.
    private static func symbols(of binary: URL) throws -> [String] {
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
        nm.arguments = [binary.path]
        let output = Pipe()
        nm.standardOutput = output
        try nm.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nm.waitUntilExit()
        return text.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
    }
}
