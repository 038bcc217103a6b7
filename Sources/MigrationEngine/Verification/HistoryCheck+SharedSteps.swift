import Foundation
import ObjectModel
import SQLiteStore

extension HistoryCheck {
    /// What a version's first step came to: its way (every step of its plan), and the first
    /// step's error, if it failed.
    struct FirstStep {
        var way: [String]
        var error: Error?
    }

    /// The chained walks an iterative run makes: at most this many, each from its own version to
    /// the next one's start, all at once as processors allow.
    static let chainedWalks = 4

    /// Iterative, a version's way visits every version after it, so the ways of two versions share
    /// every step after the later one's start: walking each whole repeats the work, n versions
    /// costing about n²/2 steps (WooCommerce's 117 versions, which `WooCommerceAppTests` checks
    /// iterative). Instead every step is checked once, on a store made at the version it starts
    /// from, and a version's outcome is the first failing step of its way. So that what one step
    /// leaves in the data is checked by the next, the history is also walked whole in a few chained
    /// walks, each from a version to where the next begins; a chained walk's failure is its first
    /// version's outcome. About 2n steps in all, the walks side by side.
    func runSharingSteps(
        _ versions: [ModelBundle.Version], in directory: URL,
        progress: @escaping @Sendable (Int, Int, String) -> Void
    ) -> [Outcome] {
        let stride = max(2, (versions.count + Self.chainedWalks - 1) / Self.chainedWalks)
        let starts = Array(Swift.stride(from: 0, to: versions.count - 1, by: stride))
        let firsts = Slots<FirstStep>(count: versions.count)
        let chains = Slots<Outcome>(count: starts.count)
        let count = starts.count + versions.count
        let seconds = Slots<Double>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let started = Date()
            defer { seconds.set(index, Date().timeIntervalSince(started)) }
            // The chained walks first: they are the longest.
            let chain = index < starts.count ? index : nil
            let version = versions[chain.map { starts[$0] } ?? index - starts.count]
            firsts.started { progress($0, count, chain == nil ? version.name : "\(version.name), its way walked") }
            let path = directory.appendingPathComponent("version-\(index).sqlite").path
            defer { StoreFiles.remove(path) }
            if let chain {
                let end = chain + 1 < starts.count ? versions[starts[chain + 1]].name : target
                chains.set(chain, walk(version, until: end, at: path))
            } else {
                firsts.set(index - starts.count, firstStep(of: version, at: path))
            }
        }
        let found = firsts.values.map { $0 ?? FirstStep(way: [], error: nil) }
        var byStep = Self.checkedSteps(found)
        checkMissingSteps(found, byStep: &byStep, in: directory)
        var outcomes = versions.indices.map { outcome(of: versions[$0], found[$0], byStep: byStep) }
        for (chain, start) in starts.enumerated() {
            if let walked = chains.values[chain], !walked.ok { outcomes[start] = walked }
        }
        for index in outcomes.indices {
            outcomes[index].seconds = seconds.values[starts.count + index] ?? 0
        }
        for (chain, start) in starts.enumerated() { outcomes[start].seconds += seconds.values[chain] ?? 0 }
        return outcomes
    }

    /// Checks the steps of `found`'s ways that no version starts with, each once, on a store made
    /// where it starts and walked until it is done. A run asked for some versions only leaves such
    /// steps; so does a history that returns to an earlier model (V3 undoes V2), whose store at V3
    /// is read as V1, the first version with its hashes, and so starts its way there.
    private func checkMissingSteps(_ found: [FirstStep], byStep: inout [String: Error?], in directory: URL) {
        let missing = Set(found.flatMap(\.way).filter { byStep[$0] == nil }).sorted()
        var unchecked: [(step: String, source: ModelBundle.Version, end: String)] = []
        for step in missing {
            let ends = step.components(separatedBy: " → ")
            if let source = bundle.version(named: ends[0]), let end = ends.last {
                unchecked.append((step, source, end))
            }
        }
        let steps = unchecked
        let walked = Slots<FirstStep>(count: steps.count)
        DispatchQueue.concurrentPerform(iterations: steps.count) { index in
            let path = directory.appendingPathComponent("step-\(index).sqlite").path
            defer { StoreFiles.remove(path) }
            do {
                let plan = try plannedStore(steps[index].source, at: path)
                try migrate(plan, until: steps[index].end, from: steps[index].source, at: path)
                walked.set(index, FirstStep(way: [steps[index].step], error: nil))
            } catch {
                walked.set(index, FirstStep(way: [steps[index].step], error: error))
            }
        }
        for (index, step) in steps.enumerated() {
            byStep[step.step] = .some(walked.values[index]?.error)
        }
    }

    /// Each step some version starts with, and what it came to there.
    private static func checkedSteps(_ firsts: [FirstStep]) -> [String: Error?] {
        var byStep: [String: Error?] = [:]
        for first in firsts {
            // A plan refused at its first step (a requirement the store's rows break) names that step.
            let step = first.way.first ?? (first.error as? MigrationError)?.step
            if let step, byStep[step] == nil { byStep[step] = .some(first.error) }
        }
        return byStep
    }

    /// The store for `version`, planned only as far as its first step (planning the whole way
    /// for every version would be n² work again), that step run and checked, and its whole way.
    private func firstStep(of version: ModelBundle.Version, at path: String) -> FirstStep {
        var way: [String] = []
        do {
            let legs = try self.legs(from: version)
            way = legs.map { "\($0.source.name) → \($0.destination.name)" }
            let plan = try plannedStore(version, at: path, to: legs.first?.destination.name)
            try migrate(plan, from: version, at: path)
            return FirstStep(way: way, error: nil)
        } catch {
            return FirstStep(way: way, error: error)
        }
    }

    /// The steps of `version`'s way to the target, as a plan takes them: from the first version
    /// with its hashes (as the store is read), through the mapping models that fit.
    private func legs(from version: ModelBundle.Version) throws -> [MigrationStrategy.Leg] {
        let matching = bundle.versions(matchingHashes: version.entityHashes)
        // A store with the target's hashes is at the target, as a plan finds it: no way.
        guard let end = bundle.version(named: target), !matching.contains(where: { $0.name == target }) else {
            return []
        }
        let start = matching.first ?? version
        return try strategy.legs(
            from: start, to: end, bundle: bundle, mappings: MappingFit(mappings, bundle: bundle).named)
    }

    /// The store for `version`, walked along its way until it reaches `end`, every step checked.
    private func walk(_ version: ModelBundle.Version, until end: String, at path: String) -> Outcome {
        do {
            let plan = try plannedStore(version, at: path)
            try migrate(plan, until: end, from: version, at: path)
            return Outcome(version: version.name, steps: plan.steps.count)
        } catch {
            return Outcome(version: version.name, steps: 0, error: error)
        }
    }

    /// `plan`'s steps up to the one that reaches `end` (all of them, for nil), run and checked.
    private func migrate(_ plan: MigrationPlan, until end: String?, from version: ModelBundle.Version, at path: String)
        throws
    {
        var part = plan
        if let end, let last = plan.steps.firstIndex(where: { $0.destination.name == end }) {
            part.steps = Array(plan.steps.prefix(through: last))
            part.targetVersion = end
        }
        try migrate(part, from: version, at: path)
    }

    /// A version's outcome from the steps of its way: its own first step, then each later one
    /// as checked where it starts.
    private func outcome(of version: ModelBundle.Version, _ first: FirstStep, byStep: [String: Error?]) -> Outcome {
        if let error = first.error { return Outcome(version: version.name, steps: first.way.count, error: error) }
        for step in first.way.dropFirst() {
            guard let result = byStep[step] else {
                return Outcome(
                    version: version.name, steps: first.way.count,
                    error: MigrationError(
                        .verification, "\(step) was not checked",
                        fix: "report this: every step of a way is checked where it starts"))
            }
            if let error = result {
                var failure = MigrationError.converting(error)
                failure.step = failure.step ?? step
                // Said of the step, checked once on a store made where it starts: that store's state is no user's.
                failure.message =
                    "at \(step), on its way (checked once, on a store made at \(step.components(separatedBy: " → ")[0])): "
                    + failure.message
                failure.state = nil
                return Outcome(version: version.name, steps: first.way.count, error: failure)
            }
        }
        return Outcome(version: version.name, steps: first.way.count)
    }
}
