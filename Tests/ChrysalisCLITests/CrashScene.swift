import Foundation
import GRDB
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// One kind's stage for the crash harness: the pristine source store, the digest of every
/// version an uninterrupted run reaches, and how long that run takes.
///
/// The references are made once, uninterrupted, each on its own copy of the source
/// (`chrysalis migrate --to VERSION`), so "a complete store at a version" means exactly what a run
/// that was never killed would have left at that version.
struct CrashScene {
    let kind: CrashKind
    /// The fixture, never migrated.
    let source: String
    let sourceBytes: Data
    /// Digest → "source" or the version's name.
    let versionByDigest: [String: String]
    let targetDigest: String
    /// One uninterrupted run to the target, from launch to exit, timed after the references
    /// (so on warm caches, like the runs that are killed).
    let runSeconds: Double
    let memo = StoreDigest.Memo()

    init(kind: CrashKind, directory: URL, fixtures: FixtureCache) throws {
        self.kind = kind
        let sourceDirectory = directory.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: sourceDirectory, withIntermediateDirectories: true)
        source = sourceDirectory.appendingPathComponent(kind.storeName).path
        try FileManager.default.copyItem(atPath: try fixtures.store(kind), toPath: source)
        if let mode = kind.journalMode {
            let queue = try DatabaseQueue(path: source)
            let result =
                try queue.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = \(mode)") }
                ?? ""
            try queue.close()
            guard result.lowercased() == mode.lowercased() else {
                throw CrashSetupError(message: "journal_mode \(mode): \(result)")
            }
        }
        for suffix in StoreDigest.sidecars where FileManager.default.fileExists(atPath: source + suffix) {
            throw CrashSetupError(message: "the fixture \(source) has a \(suffix) beside it")
        }
        sourceBytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let probe = directory.appendingPathComponent("probe")
        guard let sourceDigest = try StoreDigest.recovered(source, scratch: probe, memo: memo).digest else {
            throw CrashSetupError(message: "cannot digest \(source)")
        }
        var versions = [sourceDigest: "source"]
        var target = ""
        for (index, version) in kind.versions.enumerated() {
            let copyDirectory = directory.appendingPathComponent("reference-\(index)")
            try FileManager.default.createDirectory(at: copyDirectory, withIntermediateDirectories: true)
            let copy = copyDirectory.appendingPathComponent(kind.storeName).path
            try FileManager.default.copyItem(atPath: source, toPath: copy)
            let run = try ChrysalisRunner.demos(["migrate", copy] + version.arguments)
            guard run.status == 0 else {
                throw CrashSetupError(message: "reference run to \(version.name) failed: \(run.stderr)")
            }
            let (digest, problem) = try StoreDigest.recovered(copy, scratch: probe, memo: memo)
            guard let digest else { throw CrashSetupError(message: "reference \(version.name): \(problem ?? "")") }
            guard versions[digest] == nil else {
                throw CrashSetupError(message: "\(version.name) has the same content as \(versions[digest]!)")
            }
            versions[digest] = version.name
            target = digest
        }
        versionByDigest = versions
        targetDigest = target
        let timed = directory.appendingPathComponent("timed")
        try FileManager.default.createDirectory(at: timed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: timed.appendingPathComponent(kind.storeName).path)
        let started = Date()
        let run = try ChrysalisRunner.demos(
            ["migrate", timed.appendingPathComponent(kind.storeName).path] + kind.arguments)
        runSeconds = Date().timeIntervalSince(started)
        guard run.status == 0 else { throw CrashSetupError(message: "timed run failed: \(run.stderr)") }
    }

    /// Starts `chrysalis migrate` on a fresh copy of the source, SIGKILLs it after `delay` seconds,
    /// checks what it left, runs it again with the same arguments and checks the result.
    func killAndRerun(after delay: Double, in trial: URL) throws -> CrashOutcome {
        let directory = trial.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = directory.appendingPathComponent(kind.storeName).path
        try FileManager.default.copyItem(atPath: source, toPath: store)
        var outcome = CrashOutcome()

        // The killed run's output goes to a file outside the store's directory, read only on failure.
        let log = trial.appendingPathComponent("killed-run.log")
        XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: nil))
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = ChrysalisRunner.demos
        process.arguments = ["migrate", store] + kind.arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try output.close()
        if process.terminationReason == .exit {
            outcome.exitedBeforeKill = true
            if process.terminationStatus != 0 {
                outcome.fail(
                    "uninterrupted run failed",
                    "the run exited by itself with status \(process.terminationStatus): \((try? String(contentsOf: log, encoding: .utf8)) ?? "")"
                )
            }
        }

        // What the kill left: every file beside the store, and the store's content after SQLite's recovery.
        let left = try files(in: directory)
        outcome.leftovers = left.filter { $0 != kind.storeName }.map(normalized)
        outcome.journalPending = [store + "-journal", store + "-wal"].contains { size($0) > 0 }
        outcome.workInProgress =
            outcome.journalPending
            || left.contains {
                $0.contains(".chrysalis-new") || $0.contains(".chrysalis-work") || $0.hasSuffix(".chrysalis-swap")
            }
        if !FileManager.default.fileExists(atPath: store) {
            outcome.fail("store missing after the kill", "no store at \(store) after the kill; left: \(left)")
        } else {
            let (digest, problem) = try StoreDigest.recovered(
                store, scratch: trial.appendingPathComponent("probe"), memo: memo)
            if let digest, let version = versionByDigest[digest] {
                outcome.content = version
                if version == "source", !outcome.journalPending,
                    try Data(contentsOf: URL(fileURLWithPath: store)) != sourceBytes
                {
                    outcome.fail(
                        "source content but other bytes",
                        "the store holds the source's content and no journal is pending, but its bytes differ from the source's; left: \(left)"
                    )
                }
            } else if kind.handlerSteps, left.contains(".\(kind.storeName).chrysalis-plan") {
                // A handler's committed work, under the plan journal: recovery must undo it (checked below).
                outcome.content = "between versions, under the plan journal"
            } else {
                outcome.content = "neither"
                outcome.fail(
                    "neither source nor a version after the kill",
                    "after the kill the store is neither the source nor a version of the chain (\(problem ?? "unknown content")); left: \(left)"
                )
            }
        }
        try checkRecovery(of: store, left: left, into: &outcome, scratch: trial.appendingPathComponent("probe"))

        // The next run, with the same arguments, must clean up and finish.
        let rerun = try ChrysalisRunner.demos(["migrate", store] + kind.arguments)
        guard rerun.status == 0 else {
            outcome.fail(
                "next run failed",
                "the next run exited \(rerun.status): \(rerun.stderr.trimmingCharacters(in: .whitespacesAndNewlines)); left by the kill: \(left)"
            )
            return outcome
        }
        let after = try files(in: directory)
        let base = URL(fileURLWithPath: kind.storeName).deletingPathExtension().lastPathComponent
        let ext = URL(fileURLWithPath: kind.storeName).pathExtension
        let backups = after.filter { $0.hasPrefix(base + "~") && $0.hasSuffix("." + ext) }
        let stray = after.filter { name in
            name != kind.storeName && name != kind.storeName + "-wal" && name != kind.storeName + "-shm"
                && !backups.contains { backup in name == backup || StoreDigest.sidecars.contains { name == backup + $0 }
                }
        }
        // A WAL store's own -wal and -shm are SQLite's state, not litter: noted, not failed.
        outcome.storeSidecarsAfter = after.filter { $0 == kind.storeName + "-wal" || $0 == kind.storeName + "-shm" }
            .map(normalized)
        if !stray.isEmpty {
            outcome.fail(
                "next run left files: \(stray.map(normalized).joined(separator: " "))",
                "left beside the store after the next run: \(stray) (the kill left \(left))")
        }
        outcome.backupSidecars = after.filter { name in backups.contains { name.hasPrefix($0) && name != $0 } }.map(
            normalized)
        let (final, problem) = try StoreDigest.recovered(
            store, scratch: trial.appendingPathComponent("probe"), memo: memo)
        if final != targetDigest {
            outcome.fail(
                "next run gave another store",
                "after the next run the store is \(final.flatMap { versionByDigest[$0] } ?? problem ?? "not any version"), not the uninterrupted run's \(kind.versions.last!.name)"
            )
        }
        for backup in backups {
            let path = directory.appendingPathComponent(backup).path
            let (digest, problem) = try StoreDigest.recovered(
                path, scratch: trial.appendingPathComponent("probe"), memo: memo)
            guard let digest, let version = versionByDigest[digest] else {
                outcome.fail(
                    "backup not a version",
                    "backup \(backup) is not a complete store at any version (\(problem ?? "unknown content"))")
                continue
            }
            outcome.backups.append("\(normalized(backup))=\(version)")
        }
        let first = "\(base)~.\(ext)"
        if !backups.contains(first) {
            outcome.fail("no first backup", "no backup \(first) after the next run (found \(backups))")
        } else if try Data(contentsOf: directory.appendingPathComponent(first)) != sourceBytes {
            outcome.fail(
                "first backup not the source's bytes",
                "the first backup \(first) is not the source byte for byte (it holds \(outcome.backups))")
        }
        return outcome
    }

    /// Never an intermediate version presented as done: a store the kill left between the source
    /// and the target is under the plan's journal, and `chrysalis recover` alone turns whatever
    /// the kill left into the source, byte for byte, or the target.
    private func checkRecovery(of store: String, left: [String], into outcome: inout CrashOutcome, scratch: URL) throws
    {
        let target = kind.versions.last!.name
        if !["source", target, "neither"].contains(outcome.content), !left.contains(".\(kind.storeName).chrysalis-plan")
        {
            outcome.fail(
                "intermediate presented as done",
                "the kill left the store at \(outcome.content), between the source and \(target), with no plan journal to undo it; left: \(left)"
            )
        }
        let recovered = try ChrysalisRunner.demos(["recover", store])
        guard recovered.status == 0 else {
            outcome.fail(
                "recover failed",
                "chrysalis recover exited \(recovered.status): \(recovered.stderr); left by the kill: \(left)")
            return
        }
        let (digest, problem) = try StoreDigest.recovered(store, scratch: scratch, memo: memo)
        let version = digest.flatMap { versionByDigest[$0] }
        outcome.afterRecovery = version ?? "neither"
        if version == "source" {
            if try Data(contentsOf: URL(fileURLWithPath: store)) != sourceBytes {
                outcome.fail(
                    "recovered source not byte for byte",
                    "after chrysalis recover the store holds the source's content, but not its bytes; left by the kill: \(left)"
                )
            }
        } else if version != target {
            outcome.fail(
                "recovery left an intermediate",
                "after chrysalis recover the store is \(version ?? problem ?? "not a store"), neither the source nor \(target); left by the kill: \(left)"
            )
        }
    }

    /// Starts `chrysalis migrate` on a fresh copy of the source, interrupts it with SIGINT (as
    /// Ctrl-C does) after `delay` seconds, and checks the promise: cancelled (exit 3) means the
    /// source byte for byte with nothing beside it, finished (exit 0) means the target.
    func cancel(after delay: Double, in trial: URL) throws -> CrashOutcome {
        let directory = trial.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = directory.appendingPathComponent(kind.storeName).path
        try FileManager.default.copyItem(atPath: source, toPath: store)
        var outcome = CrashOutcome()
        let (process, output) = try startMigrate(store)
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGINT)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let left = try files(in: directory).filter { $0 != kind.storeName }
        let (digest, problem) = try StoreDigest.recovered(
            store, scratch: trial.appendingPathComponent("probe"), memo: memo)
        outcome.content = digest.flatMap { versionByDigest[$0] } ?? "neither"
        switch process.terminationStatus {
        case 3:
            outcome.afterRecovery = "cancelled"
            if try Data(contentsOf: URL(fileURLWithPath: store)) != sourceBytes {
                outcome.fail(
                    "cancelled but not the source",
                    "cancelled (exit 3), but the store is \(outcome.content) (\(problem ?? "")), not the source byte for byte: \(printed.suffix(300))"
                )
            }
            if !left.isEmpty {
                outcome.fail("cancelled and left files", "cancelled, and left beside the store: \(left)")
            }
            if !printed.contains("the store is as it was") {
                outcome.fail(
                    "cancel message without the state",
                    "the cancel message does not say where the store stands: \(printed.suffix(300))")
            }
        case 0:
            outcome.exitedBeforeKill = true
            if digest != targetDigest {
                outcome.fail("finished but not the target", "exit 0, but the store is \(outcome.content)")
            }
        case _ where process.terminationReason == .uncaughtSignal:
            // Ctrl-C before the command began (while the process started and parsed its
            // arguments) ends it as the shell's default would: it had touched nothing.
            outcome.afterRecovery = "ended before it began"
            if try Data(contentsOf: URL(fileURLWithPath: store)) != sourceBytes || !left.isEmpty {
                outcome.fail(
                    "died of the signal mid-work",
                    "SIGINT ended the run by default, and the store is \(outcome.content) with \(left) beside it")
            }
        default:
            outcome.fail(
                "cancel exited \(process.terminationStatus)",
                "interrupted, the run exited \(process.terminationStatus): \(printed.suffix(300))")
        }
        return outcome
    }

    /// `chrysalis-demos migrate` of `store` with the kind's arguments, started, its standard
    /// output and error in one pipe.
    func startMigrate(_ store: String) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = ChrysalisRunner.demos
        process.arguments = ["migrate", store] + kind.arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return (process, output)
    }

    func files(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// `BookStore~2.sqlite-wal` → `Name~2.sqlite-wal`, so leftovers add up across kinds.
    func normalized(_ name: String) -> String {
        let base = URL(fileURLWithPath: kind.storeName).deletingPathExtension().lastPathComponent
        return name.replacingOccurrences(of: base, with: "Name")
    }
}

/// Fixtures by bundle, version and size, made once: a debug build's generator takes seconds for
/// the larger ones, and two kinds start from the same store.
final class FixtureCache {
    private let directory: URL
    private var made: [String: String] = [:]

    init(directory: URL) { self.directory = directory }

    func store(_ kind: CrashKind) throws -> String {
        let key = "\(kind.bundle)|\(kind.version)|\(kind.rows)"
        if let path = made[key] { return path }
        let folder = directory.appendingPathComponent(String(made.count))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(kind.storeName).path
        let result = try ChrysalisRunner.run([
            "fixture", kind.bundle, "--version", kind.version, "--rows", String(kind.rows), "--out", path, "--seed",
            "9",
        ])
        guard result.status == 0 else {
            throw CrashSetupError(message: "fixture for \(kind.name) failed: \(result.stderr)")
        }
        made[key] = path
        return path
    }
}

struct CrashSetupError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// What one kill left and what the next run made of it.
struct CrashOutcome {
    /// The process finished before SIGKILL reached it.
    var exitedBeforeKill = false
    /// "source", a version's name, or "neither".
    var content = ""
    /// A `-journal` or `-wal` with content beside the store: SQLite's recovery decides.
    var journalPending = false
    /// A step was under way: its work files or an open transaction's journal were on disk.
    var workInProgress = false
    /// Files beside the store after the kill, the store itself excepted, names normalized.
    var leftovers: [String] = []
    /// `Name~N.sqlite=version` for every backup after the next run.
    var backups: [String] = []
    var backupSidecars: [String] = []
    /// The store's `-wal`/`-shm` still there after the next run.
    var storeSidecarsAfter: [String] = []
    /// What `chrysalis recover` made of the kill ("source" or the target), or "cancelled".
    var afterRecovery = ""
    var failures: [String] = []
    /// Short names of what failed, for the tally.
    var failureKinds: [String] = []

    mutating func fail(_ kind: String, _ message: String) {
        failureKinds.append(kind)
        failures.append(message)
    }
}

/// Where the kills of one kind landed, for the harness's printed summary.
struct CrashTally {
    var kind: String
    var runSeconds: Double
    var kills = 0, exited = 0, beforeCommit = 0, afterCommit = 0, midStep = 0, pending = 0, failures = 0
    var contents: [String: Int] = [:], leftovers: [String: Int] = [:], backups: [String: Int] = [:],
        failureKinds: [String: Int] = [:]
    var afterRerun: [String: Int] = [:], recovered: [String: Int] = [:], afterRecovery: [String: Int] = [:]
    var setupSeconds = 0.0, killSeconds = 0.0

    mutating func add(_ outcome: CrashOutcome) {
        kills += 1
        failures += outcome.failures.isEmpty ? 0 : 1
        if outcome.exitedBeforeKill {
            exited += 1
        } else if outcome.content == "source" {
            beforeCommit += 1
        } else {
            afterCommit += 1
        }
        if outcome.workInProgress { midStep += 1 }
        if outcome.journalPending {
            pending += 1
            recovered[outcome.content, default: 0] += 1
        }
        contents[outcome.content, default: 0] += 1
        for file in Set(outcome.leftovers) { leftovers[file, default: 0] += 1 }
        for backup in outcome.backups + outcome.backupSidecars { backups[backup, default: 0] += 1 }
        for kind in Set(outcome.failureKinds) { failureKinds[kind, default: 0] += 1 }
        for file in outcome.storeSidecarsAfter { afterRerun[file, default: 0] += 1 }
        if !outcome.afterRecovery.isEmpty { afterRecovery[outcome.afterRecovery, default: 0] += 1 }
    }

    var summary: String {
        func list(_ counts: [String: Int]) -> String {
            counts.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        }
        return """
            \(kind) (run \(String(format: "%.2f", runSeconds)) s, setup \(String(format: "%.1f", setupSeconds)) s, \
            \(String(format: "%.1f", killSeconds / Double(max(kills, 1)))) s a kill): \(kills) kills — before any commit \(beforeCommit), after a commit \(afterCommit), \
            finished before the kill \(exited); mid-step (work files or an open journal on disk) \(midStep), SQLite journal pending \(pending); failures \(failures)
              content after the kill: \(list(contents))\(recovered.isEmpty ? "" : "; with a journal pending, SQLite recovered it to: \(list(recovered))")
              after chrysalis recover (or the cancel): \(list(afterRecovery))
              left beside the store: \(list(leftovers).isEmpty ? "nothing" : list(leftovers))
              backups after the next run: \(list(backups))\(afterRerun.isEmpty ? "" : "; the store's sidecars after it: \(list(afterRerun))")
            """ + (failureKinds.isEmpty ? "" : "\n  failures by kind: \(list(failureKinds))")
    }

    static func total(_ tallies: [CrashTally]) -> String {
        let sum = { (key: KeyPath<CrashTally, Int>) in tallies.map { $0[keyPath: key] }.reduce(0, +) }
        return
            "crash harness total: \(sum(\.kills)) kills — before any commit \(sum(\.beforeCommit)), after a commit \(sum(\.afterCommit)), "
            + "finished \(sum(\.exited)); mid-step \(sum(\.midStep)), journal pending \(sum(\.pending)); failures \(sum(\.failures))"
    }
}
