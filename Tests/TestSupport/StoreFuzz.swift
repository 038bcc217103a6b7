import Foundation
import Synchronization

extension Fuzz {
    /// Runs `body` on every seed store, then on mutants of them (``Mutator/mutateStore(_:other:into:)``)
    /// until `count` stores have run, with ``run(_:seeds:seed:tokens:count:mutate:body:isExpected:)``'s
    /// rules and environment: each error `body` reports must be the code's own type with a
    /// non-empty message that a person can read (no Swift type names such as `Optional(` or
    /// `SQLiteStore.`, at most one `Fix:`), and no store may take longer than the hang bound.
    ///
    /// A store is a folder (the file and its sidecars): `CHRYSALIS_FUZZ_TRACE=DIR` copies each
    /// to `DIR/<reader>.input/` before it runs, and a store that broke a rule is kept in
    /// ``failureDirectory`` as `<reader>-<N>/`. `CHRYSALIS_FUZZ_FROM=N` starts at input N (a long
    /// run resumed after a crash, which the trace's `<reader>.index` file names).
    ///
    /// - Parameter body: runs the code under test on the store at the URL (made from the seed at
    ///   the index) and returns the errors it threw, one per command run; none when all succeeded.
    public static func runStores(
        _ reader: String, seeds: [StoreSeed], seed: UInt64, count: Int,
        body: @escaping @Sendable (URL, Int) throws -> [Error], isExpected: @escaping @Sendable (Error) -> Bool
    ) throws -> FuzzReport {
        precondition(!seeds.isEmpty, "\(reader): no seeds")
        let environment = ProcessInfo.processInfo.environment
        let only = environment["CHRYSALIS_FUZZ_ONLY"].flatMap(Int.init)
        let trace = environment["CHRYSALIS_FUZZ_TRACE"].map {
            URL(fileURLWithPath: $0).appendingPathComponent("\(reader).input")
        }
        let from = environment["CHRYSALIS_FUZZ_FROM"].flatMap(Int.init) ?? 0
        let scratch = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let shared = Mutex(FuzzReport(reader: reader))
        let started = DispatchTime.now().uptimeNanoseconds
        let indices = (min(from, max(count, seeds.count))..<max(count, seeds.count)).filter {
            only == nil || only == $0
        }
        let one: @Sendable (Int) -> Void = { index in
            var mutator = Mutator(seed: seed &+ UInt64(index) &* 0x2545_F491_4F6C_DD1D, tokens: [])
            let folder = scratch.appendingPathComponent("\(index)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let outcome = Self.storeOutcome(
                index, seeds: seeds, mutator: &mutator, folder: folder, trace: trace, body: body, isExpected: isExpected
            )
            shared.withLock { report in
                report.record(
                    accepted: outcome.accepted, problems: outcome.problems, seconds: outcome.seconds,
                    size: outcome.size, index: index, log: mutator.log
                ) {
                    let saved = failureDirectory.appendingPathComponent("\(reader)-\(index)")
                    copyFolder(folder, to: saved)
                    return "store saved in \(saved.path)"
                }
                // A long run says how far it got, so a crash (which ends the process) can be resumed.
                if count >= 10_000, report.inputs % 5_000 == 0 {
                    print("fuzz \(reader): \(report.inputs) inputs, at #\(index), \(report.failures.count) failures")
                }
            }
        }
        // Input N comes from the seed and N alone: inputs run as many at once as there are
        // processors, each in its own folder; a trace of the last input runs them one by one.
        if trace == nil {
            DispatchQueue.concurrentPerform(iterations: indices.count) { one(indices[$0]) }
        } else {
            indices.forEach(one)
        }
        var report = shared.withLock { $0 }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        print(report)
        return report
    }

    /// What one store did under `body`: whether it ran clean, the problems with how it was
    /// refused, its size and time.
    struct StoreOutcome {
        var accepted: Bool, problems: [String], size: Int, seconds: Double
    }

    private static func storeOutcome(
        _ index: Int, seeds: [StoreSeed], mutator: inout Mutator, folder: URL, trace: URL?,
        body: (URL, Int) throws -> [Error], isExpected: (Error) -> Bool
    ) -> StoreOutcome {
        var outcome = StoreOutcome(accepted: false, problems: [], size: 0, seconds: 0)
        let seedIndex = index < seeds.count ? index : mutator.int(0..<seeds.count)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let store: URL
            if index < seeds.count {
                store = try seeds[index].write(into: folder)
                mutator.log = ["seed"]
            } else {
                store = try mutator.mutateStore(
                    seeds[seedIndex], other: seeds[mutator.int(0..<seeds.count)], into: folder)
            }
            mutator.log.insert(seeds[seedIndex].name + ":", at: 0)
            if let trace {
                copyFolder(folder, to: trace)
                try? Data("\(index)\n".utf8).write(to: trace.appendingPathExtension("index"))
            }
            outcome.size = folderSize(folder)
            let start = DispatchTime.now().uptimeNanoseconds
            let errors = try body(store, seedIndex)
            outcome.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            outcome.accepted = errors.isEmpty
            outcome.problems = errors.compactMap { problem(with: $0, isExpected: isExpected) }
        } catch {
            outcome.problems.append("the harness itself failed: \(error)")
        }
        return outcome
    }

    /// What is wrong with `error` as a message for a person, if anything.
    public static func problem(with error: Error, isExpected: (Error) -> Bool) -> String? {
        let message = String(describing: error)
        if message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return "threw \(type(of: error)) with an empty description"
        }
        if !isExpected(error) { return "threw \(type(of: error)), not the code's own error: \(message.prefix(300))" }
        if message.components(separatedBy: "Fix:").count > 2 { return "says Fix: twice: \(message.prefix(400))" }
        for swiftName in ["Optional(", "SQLiteStore.", "MigrationEngine.", "ObjectModel.", "GRDB.", "DatabaseValue("]
        where message.contains(swiftName) {
            return "shows Swift internals (\(swiftName)): \(message.prefix(400))"
        }
        return nil
    }

    private static func copyFolder(_ folder: URL, to destination: URL) {
        try? FileManager.default.removeItem(at: destination)
        try? FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.copyItem(at: folder, to: destination)
    }

    private static func folderSize(_ folder: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.reduce(0) { total, name in
            total
                + ((try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size])
                as? NSNumber ?? 0).intValue
        }
    }
}
