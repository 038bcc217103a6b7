import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// What a fill takes from the volume while a run works.
enum FilledResource: String, CaseIterable {
    /// Bytes: one file grows until the volume refuses another byte.
    case bytes
    /// Inodes: empty files are made until the volume refuses another.
    case inodes

    /// Takes all of it on the volume at `root`, in files named `filler-…`.
    func fill(_ root: URL) {
        switch self {
        case .bytes:
            let descriptor = open(root.appendingPathComponent("filler-bytes").path, O_WRONLY | O_CREAT, 0o600)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            for size in [1 << 20, 4096, 512] {
                let chunk = [UInt8](repeating: 0x5a, count: size)
                while write(descriptor, chunk, size) == size {}
            }
        case .inodes:
            var index = 0
            while true {
                let descriptor = open(root.appendingPathComponent("filler-\(index)").path, O_WRONLY | O_CREAT, 0o600)
                guard descriptor >= 0 else { return }
                close(descriptor)
                index += 1
            }
        }
    }

    /// Gives back what the fill took.
    func empty(_ root: URL) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) where name.hasPrefix("filler-") {
            try FileManager.default.removeItem(at: root.appendingPathComponent(name))
        }
    }
}

extension CrashScene {
    /// Starts `chrysalis migrate` on a copy of the source on `volume`, takes all of `resource`
    /// there after `delay` seconds, and checks the promise: a run that fails names what ran out
    /// and its fix, says the store is as it was, leaves the source's content and nothing beside
    /// it; a run that finishes leaves the target. Then gives the resource back: the next run with
    /// the same arguments finishes at the target.
    func fill(_ resource: FilledResource, after delay: Double, on volume: TinyVolume, trial: Int) throws
        -> CrashOutcome
    {
        let directory = volume.root.appendingPathComponent("trial-\(trial)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent(kind.storeName).path
        try FileManager.default.copyItem(atPath: source, toPath: store)
        var outcome = CrashOutcome()
        let filled = DispatchSemaphore(value: 0)
        let started = DispatchTime.now()
        let (process, output) = try startMigrate(store)
        DispatchQueue.global().asyncAfter(deadline: started + delay) {
            resource.fill(volume.root)
            filled.signal()
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        filled.wait()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-fill-\(UUID())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (digest, problem) = try StoreDigest.recovered(store, scratch: scratch, memo: memo)
        outcome.content = digest.flatMap { versionByDigest[$0] } ?? "neither"
        let left = try files(in: directory).filter {
            ![kind.storeName, kind.storeName + "-wal", kind.storeName + "-shm"].contains($0)
        }
        outcome.leftovers = left.map(normalized)
        check(process, printed: printed, digest: digest, problem: problem, left: left, into: &outcome)
        try resource.empty(volume.root)
        let rerun = try ChrysalisRunner.demos(["migrate", store] + kind.arguments)
        let (final, _) = try StoreDigest.recovered(store, scratch: scratch, memo: memo)
        if rerun.status != 0 || final != targetDigest {
            outcome.fail(
                "next run after the fill did not finish",
                "with the \(resource) given back, the next run exited \(rerun.status) and left \(final.flatMap { versionByDigest[$0] } ?? "neither"): \(rerun.stderr.suffix(300))"
            )
        }
        return outcome
    }

    /// The promise of one filled run, by how it ended.
    private func check(
        _ process: Process, printed: String, digest: String?, problem: String?, left: [String],
        into outcome: inout CrashOutcome
    ) {
        guard process.terminationReason == .exit, process.terminationStatus == 0 || process.terminationStatus == 1
        else {
            outcome.fail(
                "filled run crashed", "the run ended with \(process.terminationStatus): \(printed.suffix(400))")
            return
        }
        if process.terminationStatus == 0 {
            outcome.exitedBeforeKill = true
            if digest != targetDigest { outcome.fail("finished but not the target", "exit 0, but \(outcome.content)") }
            return
        }
        outcome.afterRecovery = "refused"
        let error = printed.components(separatedBy: "\n").last { $0.hasPrefix("error:") } ?? printed
        let namesTheCause = [
            "disk filled up", "ran out of inodes", "not enough free", "SQLite's temporary folder", "no inode left",
            "volume is full",
        ]
        .contains { error.contains($0) }
        if !namesTheCause || !error.contains("Fix: ") {
            outcome.fail("wrong or missing cause", "the error does not name what ran out: \(error)")
        }
        if !error.contains("the store is as it was") {
            outcome.fail("no state in the message", "the error does not say the store is as it was: \(error)")
        }
        if outcome.content != "source" {
            outcome.fail("failed but not the source", "the store is \(outcome.content) (\(problem ?? "")): \(error)")
        }
        if !left.isEmpty { outcome.fail("failed and left files", "left beside the store: \(left): \(error)") }
    }
}
