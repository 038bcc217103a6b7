import Foundation
import TestSupport
import XCTest

/// Mapping models that would run twice are refused before anything is written: the same file
/// named twice, a link to it, a copy beside it. A folder's hidden files and editors' leftovers
/// are not read, and `plan` says which files were.
final class DuplicateMappingTests: XCTestCase {
    private let bookStore = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path
    private let mapping = ChrysalisRunner.demoResources.appendingPathComponent("Mappings/BookStore4To5.mapping.yaml")

    private func store() throws -> (store: URL, folder: URL) {
        let directory = try Fixtures.makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Books.sqlite")
        let made = try ChrysalisRunner.run([
            "fixture", bookStore, "--version", "BookStore 4", "--rows", "50", "--out", store.path,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let folder = directory.appendingPathComponent("Mappings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: mapping, to: folder.appendingPathComponent(mapping.lastPathComponent))
        return (store, folder)
    }

    func testTheSameMappingGivenTwiceIsRefusedAndTheStoreKept() throws {
        let (store, folder) = try store()
        let link = folder.deletingLastPathComponent().appendingPathComponent("Link.mapping.yaml")
        try FileManager.default.createSymbolicLink(
            at: link, withDestinationURL: folder.appendingPathComponent(mapping.lastPathComponent))
        let before = try Data(contentsOf: store)
        for twice in [[mapping.path, mapping.path], [mapping.path, link.path]] {
            let result = try ChrysalisRunner.run(
                ["migrate", store.path, "--model", bookStore] + twice.flatMap { ["--mappings", $0] })
            XCTAssertNotEqual(result.status, 0, result.stdout)
            XCTAssertTrue(
                result.stderr.contains("both map") && result.stderr.contains("would migrate every instance twice"),
                result.stderr)
            XCTAssertTrue(result.stderr.contains("Fix: give each mapping model once"), result.stderr)
            XCTAssertEqual(try Data(contentsOf: store), before, "the store is as it was")
        }
        // A copy beside it in a folder is the same mapping given twice.
        try FileManager.default.copyItem(
            at: mapping, to: folder.appendingPathComponent("BookStore4To5 copy.mapping.yaml"))
        let copied = try ChrysalisRunner.run(["plan", store.path, "--model", bookStore, "--mappings", folder.path])
        XCTAssertNotEqual(copied.status, 0, copied.stdout)
        XCTAssertTrue(copied.stderr.contains("BookStore4To5 copy"), copied.stderr)
    }

    func testHiddenFilesAndEditorLeftoversInAFolderAreNotRead() throws {
        let (store, folder) = try store()
        for leftover in [
            ".#BookStore4To5.mapping.yaml", "BookStore4To5.mapping.yaml~", "#BookStore4To5.mapping.yaml#",
            ".BookStore4To5.mapping.yaml",
        ] {
            try FileManager.default.copyItem(at: mapping, to: folder.appendingPathComponent(leftover))
        }
        let result = try ChrysalisRunner.run(["plan", store.path, "--model", bookStore, "--mappings", folder.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.contains(
                "mapping models read: \(folder.appendingPathComponent(mapping.lastPathComponent).path)\n"),
            result.stdout)
        let migrated = try ChrysalisRunner.run([
            "migrate", store.path, "--model", bookStore, "--mappings", folder.path, "--no-backup",
        ])
        XCTAssertEqual(migrated.status, 0, migrated.stderr)
        XCTAssertTrue(migrated.stdout.contains("Publication          50 → 50"), migrated.stdout)
    }
}
