import Foundation
import TestSupport
import XCTest

/// Messages that say what happened and nothing else: a store already at its version on a
/// read-only volume has nothing to do, a store that is not there has nothing to recover, and a
/// version's name never reaches the terminal raw from `check-history`'s progress line.
final class TrueCausesTests: FixtureTestCase {
    private let books = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Demo/Resources/Books")

    /// Needs root to mount the volume (CI runs as root); skipped otherwise.
    func testAStoreAlreadyAtItsVersionOnAReadOnlyVolumeHasNothingToDo() throws {
        let volume = try TinyVolume(megabytes: 4, test: self)
        let store = try Fixtures.copyStore(books.appendingPathComponent("Model1.sqlite"), into: volume.root)
        try volume.remountReadOnly()
        let result = try ChrysalisRunner.run([
            "migrate", store.path, "--model", books.appendingPathComponent("Model.xcdatamodeld").path, "--to", "Model1",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "\(store.path) is already at Model1: nothing to do.\n")
    }

    func testRecoverOnAPathWithNoStoreSaysSo() throws {
        let missing = try scratchDirectory().appendingPathComponent("nosuch.sqlite").path
        let result = try ChrysalisRunner.run(["recover", missing])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(
            result.stderr.contains("no such file, and nothing an interrupted migration left beside it"), result.stderr)
        XCTAssertFalse(result.stdout.contains("nothing to recover"), result.stdout)
    }

    /// A version whose folder name holds an escape and a newline: the progress line on standard
    /// error shows them as escapes, as `model` does.
    func testCheckHistoryProgressShowsControlCharactersAsEscapes() throws {
        let bundle = try scratchDirectory().appendingPathComponent("Model.xcdatamodeld")
        try FileManager.default.copyItem(at: books.appendingPathComponent("Model.xcdatamodeld"), to: bundle)
        try FileManager.default.moveItem(
            at: bundle.appendingPathComponent("Model1.xcdatamodel"),
            to: bundle.appendingPathComponent("Model0\u{1B}[2J\nfirst.xcdatamodel"))
        let result = try ChrysalisRunner.run(["check-history", bundle.path, "--rows", "2"])
        XCTAssertFalse(result.stderr.contains("\u{1B}[2J"), "no escape reaches the terminal")
        XCTAssertTrue(result.stderr.contains(#"Model0\e[2J\nfirst"#), result.stderr)
    }

    /// SQLite accepts paths up to its VFS's limit (512 bytes on Linux) and says only "unable to
    /// open database file" beyond it: the message names the length and the limit.
    func testAPathLongerThanSQLiteAcceptsIsNamedAsSuch() throws {
        var folder = try scratchDirectory()
        for letter in ["a", "b", "c"] { folder.appendPathComponent(String(repeating: letter, count: 200)) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try Fixtures.copyStore(books.appendingPathComponent("Model1.sqlite"), into: folder)
        let result = try ChrysalisRunner.run(["inspect", store.path])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(result.stderr.contains("and SQLite accepts at most 511"), result.stderr)
        XCTAssertTrue(
            result.stderr.contains("Fix: move the store, or link its folder, to a shorter path"), result.stderr)
    }

    /// `demo --dir` and `fixture --out` on a read-only volume, inside it, or in a folder that is
    /// not there: each says which, never "check that the file is readable".
    func testAStoreThatCannotBeCreatedSaysWhy() throws {
        let volume = try TinyVolume(megabytes: 4, test: self)
        try volume.remountReadOnly()
        let bundle = books.appendingPathComponent("Model.xcdatamodeld").path
        for arguments in [
            ["demo", "books", "--headless", "--rows", "0", "--dir", volume.root.path],
            ["demo", "books", "--headless", "--rows", "0", "--dir", volume.path("sub/deeper")],
            ["fixture", bundle, "--rows", "1", "--out", volume.path("new.sqlite")],
        ] {
            let result = try ChrysalisRunner.run(arguments)
            XCTAssertNotEqual(result.status, 0, arguments.joined(separator: " "))
            XCTAssertTrue(
                result.stderr.contains("cannot be created: its folder \(volume.root.path) is on a read-only volume"),
                result.stderr)
        }
        let missing = try scratchDirectory().appendingPathComponent("nosuch/new.sqlite").path
        let result = try ChrysalisRunner.run(["fixture", bundle, "--rows", "1", "--out", missing])
        XCTAssertTrue(
            result.stderr.contains("does not exist. Fix: create the folder, or check the path"), result.stderr)
    }
}
