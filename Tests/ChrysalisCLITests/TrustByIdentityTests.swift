import Crypto
import Foundation
import SQLiteStore
import TestSupport
import XCTest

/// A store is a file, and the tool's own files beside it are its own: nothing planted at their
/// names is followed or reused, a store with a second name is not split, an app holding the store
/// under another name is seen, and a name with control characters reaches the terminal as text.
final class TrustByIdentityTests: XCTestCase {
    private let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Sources/Demo/Resources")
    private var bundle: String { resources.appendingPathComponent("BookStore.xcdatamodeld").path }

    private func store(in directory: URL? = nil, named name: String = "BookStore.sqlite", rows: Int = 20) throws
        -> String
    {
        let folder = try directory ?? scratchDirectory()
        let path = folder.appendingPathComponent(name).path
        let made = try ChrysalisRunner.run([
            "fixture", bundle, "--version", "BookStore", "--rows", String(rows), "--out", path,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        return path
    }

    private func digest(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    /// A link at the lock's name once made `migrate` truncate its target and write the lock's
    /// text into it: run as root, any file on the machine.
    func testALinkPlantedAtTheLocksNameIsRefusedAndItsTargetIsUntouched() throws {
        let path = try store()
        let victim = try scratchDirectory().appendingPathComponent("precious.txt")
        try Data("not yours to write\n".utf8).write(to: victim)
        let lock = path + ".chrysalis-lock"
        try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: victim.path)
        let before = try digest(path)
        let result = try ChrysalisRunner.run(["migrate", path, "--model", bundle, "--to", "BookStore 2"])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(
            result.stderr.contains(
                "\(lock) is a name Chrysalis keeps for its own file, and a symbolic link to \(victim.path) sits there"),
            result.stderr)
        XCTAssertTrue(result.stderr.contains("the store is as it was"), result.stderr)
        XCTAssertEqual(
            try String(contentsOf: victim, encoding: .utf8), "not yours to write\n",
            "the link's target is never written")
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: lock), victim.path,
            "the link is left for its owner to judge")
        XCTAssertEqual(try digest(path), before)
        // A hard link to the victim at the lock's name is refused the same way.
        unlink(lock)
        XCTAssertEqual(link(victim.path, lock), 0)
        let again = try ChrysalisRunner.run(["migrate", path, "--model", bundle, "--to", "BookStore 2"])
        XCTAssertEqual(again.status, 1, again.stdout)
        XCTAssertTrue(again.stderr.contains("a file with 2 names"), again.stderr)
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "not yours to write\n")
        // Once it is gone, the same command migrates and leaves no lock behind.
        unlink(lock)
        let migrated = try ChrysalisRunner.run(["migrate", path, "--model", bundle, "--to", "BookStore 2"])
        XCTAssertEqual(migrated.status, 0, migrated.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lock))
    }

    /// A plan's journal is written under a name of the run's own: the old fixed `.new` name,
    /// planted as a link, is neither followed nor left changed.
    func testAPlanJournalNeverWritesThroughALink() throws {
        let path = try store()
        let victim = try scratchDirectory().appendingPathComponent("precious.txt")
        try Data("not yours to write\n".utf8).write(to: victim)
        let url = URL(fileURLWithPath: path)
        let planted = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).chrysalis-plan.new"
        ).path
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim.path)
        let result = try ChrysalisRunner.run(["migrate", path, "--model", bundle, "--to", "BookStore 3"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.contains("BookStore → BookStore 3") || result.stdout.contains("to BookStore 3"), result.stdout
        )
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "not yours to write\n")
    }

    /// A second name keeps the old file after a swap: refused before any write, with the count
    /// and how to find the others. Two migrations through two names can no longer both run.
    func testAStoreWithASecondNameIsRefusedBeforeAnyWrite() throws {
        let path = try store()
        let elsewhere = try scratchDirectory().appendingPathComponent("Other.sqlite").path
        XCTAssertEqual(link(path, elsewhere), 0)
        let before = try digest(path)
        let result = try ChrysalisRunner.run(["migrate", path, "--model", bundle, "--to", "BookStore 2"])
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(result.stderr.contains("\(path) has 2 names (hard links to the same file)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("find / -xdev -samefile"), result.stderr)
        XCTAssertTrue(result.stderr.contains("the store is as it was, at BookStore"), result.stderr)
        XCTAssertEqual(try digest(path), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(
                atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path
            ).sorted(), ["BookStore.sqlite"])
        // With the other name gone, it migrates.
        unlink(elsewhere)
        XCTAssertEqual(try ChrysalisRunner.run(["migrate", path, "--model", bundle, "--to", "BookStore 2"]).status, 0)
    }

    /// An app holding the store through a name in another folder holds the same file: found by
    /// device and inode, not by the text of the path it opened.
    func testAHolderUnderAnotherNameIsFound() throws {
        let path = try store()
        let elsewhere = try scratchDirectory().appendingPathComponent("App View.sqlite").path
        XCTAssertEqual(link(path, elsewhere), 0)
        let app = Process()
        app.executableURL = URL(fileURLWithPath: "/bin/sh")
        app.arguments = ["-c", "exec 3<\"$1\"; echo ready; exec sleep 30", "sh", elsewhere]
        let output = Pipe()
        app.standardOutput = output
        try app.run()
        defer { app.terminate(); app.waitUntilExit() }
        _ = output.fileHandleForReading.availableData
        let holders = StoreHolders.holders(of: path)
        XCTAssertEqual(holders.map(\.pid), [app.processIdentifier])
        XCTAssertEqual(holders.first?.file, "BookStore.sqlite (as App View.sqlite)")
    }

    /// A container's view of a volume: the store's folder bind-mounted elsewhere, an app holding
    /// the store through the mount. `migrate` exited 0 and the app's next insert landed in the
    /// backup; the holder is found by device and inode and the run refused before any write.
    /// Needs the right to mount (root); skipped without it.
    func testAHolderThroughABindMountIsFoundAndTheRunRefused() throws {
        let path = try store()
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let view = try scratchDirectory().path
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/sh")
        mount.arguments = ["-c", "mount --bind \"$1\" \"$2\" 2>/dev/null", "sh", folder, view]
        try mount.run()
        mount.waitUntilExit()
        try EndToEnd.require(mount.terminationStatus == 0, "needs the right to bind-mount a folder")
        defer {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = [view]
            try? unmount.run()
            unmount.waitUntilExit()
        }
        let app = Process()
        app.executableURL = URL(fileURLWithPath: "/bin/sh")
        app.arguments = ["-c", "exec 3<\"$1\"; echo ready; exec sleep 30", "sh", view + "/BookStore.sqlite"]
        let output = Pipe()
        app.standardOutput = output
        try app.run()
        defer { app.terminate(); app.waitUntilExit() }
        _ = output.fileHandleForReading.availableData
        let before = try digest(path)
        let run = try ChrysalisRunner.run(["migrate", path, "--model", bundle, "--to", "BookStore 2"])
        XCTAssertNotEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stderr.contains("\(app.processIdentifier)"), "the holder named by pid: \(run.stderr)")
        XCTAssertEqual(try digest(path), before, "nothing written")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder), ["BookStore.sqlite"], "nothing made beside it")
    }

    /// A name whose bytes are not UTF-8 would have been read with U+FFFD in their place, and so
    /// name another file: refused, its bytes shown, before anything is opened.
    func testANameThatIsNotTextIsRefusedWithItsBytes() throws {
        let folder = try scratchDirectory()
        let decoy = try store(in: folder, named: "x\u{FFFD}y.sqlite")
        let before = try digest(decoy)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = [
            "-c", #"exec "$0" migrate "$(printf "$1/x\377y.sqlite")" --model "$2" --to "BookStore 2""#,
            ChrysalisRunner.binary.path, folder.path, bundle,
        ]
        let errors = Pipe()
        shell.standardError = errors
        try shell.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 2, said)
        XCTAssertTrue(said.contains(#"argument 2 ("# + folder.path + #"/x\xffy.sqlite) is not UTF-8 text"#), said)
        XCTAssertEqual(try digest(decoy), before, "the file whose name the bytes would have been read as is untouched")
    }

    /// A store's name is bytes: escape sequences in it reach the terminal as visible text.
    func testControlCharactersInANameAreShownNotObeyed() throws {
        let folder = try scratchDirectory()
        let name = "Books\u{1B}[2J\u{1B}]0;owned\u{07}.sqlite"
        let path = try store(in: folder, named: name)
        for arguments in [
            ["inspect", path, "--model", bundle], ["migrate", path, "--model", bundle, "--to", "BookStore 2"],
            ["plan", folder.appendingPathComponent("Missing\u{1B}[31m.sqlite").path, "--model", bundle],
        ] {
            let result = try ChrysalisRunner.run(arguments)
            for text in [result.stdout, result.stderr] {
                XCTAssertFalse(
                    text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(arguments[0]): \(text)")
            }
            XCTAssertTrue(
                (result.stdout + result.stderr).contains("Books\\e[2J")
                    || (result.stdout + result.stderr).contains("Missing\\e[31m"),
                "\(arguments[0]) names the store visibly: \(result.stdout) \(result.stderr)")
        }
    }

    /// Names as bytes allow them, seeded: every C0 and C1 control, DEL, long names up to the
    /// 255 bytes a folder entry holds, combining marks and right-to-left text. Each store is
    /// found by its own name, migrated where it is, and no control byte reaches the terminal.
    func testNamesOfEveryKindLeadToTheirOwnFileAndReachTheTerminalAsText() throws {
        var generator = SeededGenerator(seed: 48)
        let pieces =
            (0x01...0x1F).map { String(UnicodeScalar(UInt8($0))) } + [
                "\u{7F}", "\u{85}", "\u{9B}", "\u{9F}", "e\u{301}", "\u{202E}", "ü", " ", "-", "~",
            ]
        for round in 0..<8 {
            let folder = try scratchDirectory()
            var stem = "S\(round)"
            while stem.utf8.count < (round == 7 ? 240 : 12) {
                stem += pieces[Int(generator.next() % UInt64(pieces.count))]
            }
            while stem.utf8.count > 248 { stem.removeLast() }
            let path = try store(in: folder, named: stem + ".sqlite", rows: 5)
            let decoy = try store(in: folder, named: "S\(round).sqlite", rows: 5)
            let decoyBefore = try digest(decoy)
            let results = [
                try ChrysalisRunner.run(["inspect", path, "--model", bundle]),
                try ChrysalisRunner.run(["migrate", path, "--model", bundle, "--to", "BookStore 2"]),
            ]
            for result in results {
                for text in [result.stdout, result.stderr] {
                    XCTAssertFalse(
                        text.unicodeScalars.contains {
                            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
                        },
                        "round \(round): a control character reached the terminal")
                }
            }
            if stem.utf8.count + ".sqlite".utf8.count > 219 {
                // No room beside it for the tool's own names: refused before any work, saying so.
                XCTAssertEqual(results.map(\.status), [0, 1], "\(results.map(\.stderr))")
                XCTAssertTrue(
                    results[1].stderr.contains("bytes long, and the files a migration makes beside it"),
                    results[1].stderr)
                XCTAssertEqual(
                    try FileManager.default.contentsOfDirectory(atPath: folder.path).count, 2,
                    "round \(round): nothing made beside it")
                continue
            }
            XCTAssertEqual(results.map(\.status), [0, 0], "\(results.map(\.stderr))")
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent(stem + "~.sqlite").path),
                "round \(round): migrated where it is")
            XCTAssertEqual(try digest(decoy), decoyBefore, "round \(round): no other file touched")
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failing round can be run again.
private struct SeededGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
