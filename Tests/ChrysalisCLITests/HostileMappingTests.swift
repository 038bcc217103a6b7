import Foundation
import TestSupport
import XCTest

/// Mapping files and values a mapping cannot hold, as a hostile or careless user gives them:
/// each refused with what it is, before any work where it can be known then, and the store as
/// it was.
final class HostileMappingTests: XCTestCase {
    private let recipes = ChrysalisRunner.demoResources.appendingPathComponent("Recipes.xcdatamodeld").path
    private let mapping = ChrysalisRunner.demoResources.appendingPathComponent("Mappings/Recipes1To2.mapping.yaml")

    /// A Recipes store at 1.1 and the demo's mapping with `size:` replaced by `size`.
    private func scene(size: String) throws -> (store: String, mapping: String) {
        let folder = try scratchDirectory()
        let store = folder.appendingPathComponent("Recipes.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", recipes, "--version", "Version 1.1", "--rows", "20", "--out", store,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let text = try String(contentsOf: mapping, encoding: .utf8)
            .replacingOccurrences(of: "size: $source.#size", with: "size: \(size)")
        let file = folder.appendingPathComponent("Recipes1To2.mapping.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return (store, file.path)
    }

    /// `99999999999999999999` reads as a real past `Int64`: SQLite's CAST stored `Int64.max` in
    /// the Integer 16 attribute without a word, where the row-by-row evaluator refuses it. The
    /// plan refuses it now, naming the constant and the attribute.
    func testAConstantPastAnIntegersRangeIsRefusedByThePlan() throws {
        let (store, file) = try scene(size: "99999999999999999999")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let plan = try ChrysalisRunner.run(["plan", store, "--model", recipes, "--mappings", file])
        XCTAssertEqual(plan.status, 1, plan.stdout)
        XCTAssertTrue(
            plan.stderr.contains(
                "RecipeToRecipe.size: the constant 1e+20 is past the range of a 64-bit integer, and size is an Integer 16 attribute"
            ), plan.stderr)
        let migrate = try ChrysalisRunner.run(["migrate", store, "--model", recipes, "--mappings", file])
        XCTAssertEqual(migrate.status, 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
    }

    /// A computed real past `Int64` stored in an integer attribute: the compiled INSERT stops
    /// as the evaluator does, and the store is as it was.
    func testAComputedRealPastAnIntegersRangeStopsTheSetBasedStep() throws {
        let (store, file) = try scene(size: "$source.temperature * 1e30")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let migrate = try ChrysalisRunner.run(["migrate", store, "--model", recipes, "--mappings", file])
        XCTAssertEqual(migrate.status, 1, migrate.stdout)
        XCTAssertTrue(
            migrate.stderr.contains("the value expression `$source.temperature * 1e+30` on a Recipe row gives"),
            migrate.stderr)
        XCTAssertTrue(migrate.stderr.contains("past the range of a 64-bit integer"), migrate.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
    }

    /// A named pipe, a device (directly or through a link) and a file of hundreds of megabytes
    /// given as a mapping: each said for what it is, at once; no read blocks or fills memory.
    func testAMappingPathThatIsNoMappingFileSaysWhatItIs() throws {
        let folder = try scratchDirectory()
        let fifo = folder.appendingPathComponent("Pipe.mapping.yaml").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let link = folder.appendingPathComponent("Zero.mapping.yaml").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero")
        let big = folder.appendingPathComponent("Big.mapping.yaml")
        XCTAssertTrue(FileManager.default.createFile(atPath: big.path, contents: nil))
        try FileHandle(forWritingTo: big).truncate(atOffset: 100 << 20)
        let cases = [
            (fifo, "is a named pipe (FIFO), not a mapping file"),
            (link, "is a character device, not a mapping file"),
            ("/dev/zero", "is a character device, not an .xcmappingmodel folder or a mapping file"),
            (big.path, "is 104 MB, far larger than a mapping file (at most 64 MiB is read)"),
        ]
        for (path, said) in cases {
            let result = try ChrysalisRunner.run(["mapping", path, "--model", recipes])
            XCTAssertEqual(result.status, 1, path)
            XCTAssertTrue(result.stderr.contains("\(path): \(said)"), result.stderr)
        }
    }

    /// A version whose `contents` is a named pipe: reading it waited for a writer forever.
    func testAModelContentsThatIsAPipeSaysSo() throws {
        let bundle = try scratchDirectory().appendingPathComponent("Recipes.xcdatamodeld")
        try FileManager.default.copyItem(atPath: recipes, toPath: bundle.path)
        let contents = bundle.appendingPathComponent("Version 2.0.xcdatamodel/contents").path
        try FileManager.default.removeItem(atPath: contents)
        XCTAssertEqual(mkfifo(contents, 0o600), 0)
        let result = try ChrysalisRunner.run(["model", bundle.path])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(
            result.stderr.contains("\(contents): is a named pipe (FIFO), not a model's contents file"), result.stderr)
    }
}
