import Foundation
import Synchronization

/// What one fuzz run found: how many inputs, how long, the slowest input, and every input that
/// broke the rule (a reader must succeed or throw its own error type with a non-empty message,
/// within the hang limit). A crash cannot be reported here: it ends the test process, and
/// `CHRYSALIS_FUZZ_TRACE` tells which input it was.
public struct FuzzReport: CustomStringConvertible, Sendable {
    /// The reader fuzzed.
    public var reader: String
    /// Inputs run, seeds included.
    public var inputs = 0
    /// Inputs the reader accepted.
    public var accepted = 0
    /// Inputs the reader refused with an error.
    public var rejected = 0
    /// Wall-clock seconds for the whole run, making the mutants included.
    public var seconds = 0.0
    /// Seconds spent in the reader alone.
    public var readerSeconds = 0.0
    /// The slowest input: its number, seconds, size in bytes and the mutations that made it.
    public var slowest = (index: -1, seconds: 0.0, size: 0, mutations: "")
    /// One line per broken rule, naming the saved input.
    public var failures: [String] = []

    /// One line for the test log and the issue note.
    public var description: String {
        "fuzz \(reader): \(inputs) inputs (\(accepted) accepted, \(rejected) refused) in \(String(format: "%.1f", seconds)) s "
            + "(reader \(String(format: "%.1f", readerSeconds)) s); "
            + "slowest #\(slowest.index) \(String(format: "%.3f", slowest.seconds)) s (\(slowest.size) bytes: \(slowest.mutations)); "
            + "\(failures.count) failures"
    }
}

/// Runs a reader on seeds and mutants of them, deterministically.
///
/// Environment: `CHRYSALIS_FUZZ_INPUTS` (inputs per reader; the full run is 100000),
/// `CHRYSALIS_FUZZ_ONLY=N` (replay input N alone), `CHRYSALIS_FUZZ_TRACE=DIR` (write each input
/// to `DIR/<reader>.input` before running it, so the input that crashed the process is on disk),
/// `CHRYSALIS_FUZZ_HANG_SECONDS` (the per-input bound; default 5).
public enum Fuzz {
    /// The inputs per reader: `CHRYSALIS_FUZZ_INPUTS` or `fallback` (small, for every `swift test`).
    public static func inputCount(default fallback: Int) -> Int {
        ProcessInfo.processInfo.environment["CHRYSALIS_FUZZ_INPUTS"].flatMap(Int.init) ?? fallback
    }

    /// An input slower than this is a hang. Generous: tests never assert timings otherwise.
    public static var hangSeconds: Double {
        ProcessInfo.processInfo.environment["CHRYSALIS_FUZZ_HANG_SECONDS"].flatMap(Double.init) ?? 5
    }

    /// Where inputs that broke a rule are saved.
    public static let failureDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-fuzz")

    /// Runs `body` on every seed, then on `count` mutants: as many mutants however many seeds
    /// the fixtures hold (a count of inputs that seeds alone could fill would test no mutant).
    ///
    /// - Parameters:
    ///   - seed: the run's seed; input N's mutations come from `seed` and N alone.
    ///   - mutate: makes one mutant from the seed at one index and the seed at another (for
    ///     splices); indices let a caller use seeds it has already decoded.
    ///   - body: the reader; returns normally when it accepts the input.
    ///   - isExpected: whether a thrown error is the reader's own, documented error type.
    public static func run(
        _ reader: String, seeds: [[UInt8]], seed: UInt64, tokens: [String], count: Int,
        mutate: @escaping @Sendable (inout Mutator, Int, Int) -> [UInt8],
        body: @escaping @Sendable ([UInt8]) throws -> Void, isExpected: @escaping @Sendable (Error) -> Bool
    ) -> FuzzReport {
        precondition(!seeds.isEmpty, "\(reader): no seeds")
        let environment = ProcessInfo.processInfo.environment
        let only = environment["CHRYSALIS_FUZZ_ONLY"].flatMap(Int.init)
        let trace = environment["CHRYSALIS_FUZZ_TRACE"].map {
            URL(fileURLWithPath: $0).appendingPathComponent("\(reader).input")
        }
        let shared = Mutex(FuzzReport(reader: reader))
        let started = DispatchTime.now().uptimeNanoseconds
        let indices = (0..<(seeds.count + count)).filter { only == nil || only == $0 }
        let one: @Sendable (Int) -> Void = { index in
            var mutator = Mutator(seed: seed &+ UInt64(index) &* 0x2545_F491_4F6C_DD1D, tokens: tokens)
            let input: [UInt8]
            if index < seeds.count {
                input = seeds[index]
                mutator.log = ["seed"]
            } else {
                input = mutate(&mutator, mutator.int(0..<seeds.count), mutator.int(0..<seeds.count))
            }
            if let trace { try? Data(input).write(to: trace) }
            let outcome = Self.outcome(of: input, body: body, isExpected: isExpected)
            shared.withLock { report in
                report.record(
                    accepted: outcome.accepted, problems: outcome.problem.map { [$0] } ?? [], seconds: outcome.seconds,
                    size: input.count, index: index, log: mutator.log
                ) {
                    try? FileManager.default.createDirectory(at: failureDirectory, withIntermediateDirectories: true)
                    let saved = failureDirectory.appendingPathComponent("\(reader)-\(index).input")
                    try? Data(input).write(to: saved)
                    return "input saved to \(saved.path)"
                }
            }
        }
        // Input N's mutations come from the seed and N alone, so inputs run in any order, as
        // many at once as there are processors; a trace of the last input runs them one by one.
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
}

extension Fuzz {
    /// What one input did: accepted, or the problem with how it was refused; and its time.
    struct Outcome {
        var accepted: Bool, problem: String?, seconds: Double
    }

    static func outcome(
        of input: [UInt8], body: ([UInt8]) throws -> Void, isExpected: (Error) -> Bool
    ) -> Outcome {
        let start = DispatchTime.now().uptimeNanoseconds
        var outcome = Outcome(accepted: true, problem: nil, seconds: 0)
        do {
            try body(input)
        } catch {
            outcome.accepted = false
            let message = String(describing: error)
            if message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                outcome.problem = "threw \(type(of: error)) with an empty description"
            } else if !isExpected(error) {
                outcome.problem = "threw \(type(of: error)), not the reader's own error: \(message.prefix(300))"
            }
        }
        outcome.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return outcome
    }
}

extension FuzzReport {
    /// Counts input `index`: accepted or refused, its time (past the hang bound, a problem too)
    /// and whether it is the slowest yet; where it broke a rule, `save` keeps it and says where.
    mutating func record(
        accepted: Bool, problems: [String], seconds: Double, size: Int, index: Int, log: [String],
        save: () -> String
    ) {
        if accepted { self.accepted += 1 } else { rejected += 1 }
        var problems = problems
        readerSeconds += seconds
        if seconds > Fuzz.hangSeconds { problems.append(String(format: "took %.1f s (a hang)", seconds)) }
        if seconds > slowest.seconds { slowest = (index, seconds, size, log.joined(separator: " ")) }
        if !problems.isEmpty {
            failures.append(
                "#\(index) [\(log.joined(separator: " "))]: \(problems.joined(separator: "; ")) (\(save()))")
        }
        inputs += 1
    }
}
