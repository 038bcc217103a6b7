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

    /// Stepwise, a version's way visits every version after it, so the ways of two versions share
    /// every step after the later one's start: walking each whole repeats the work, n versions
    /// costing about n²/2 steps (WooCommerce's 117: 213 s against 24 s straight). Instead every
    /// version's first step is checked on its own store, and a version's outcome is the first
    /// failing step of its way, each step checked where it is a version's first. The oldest
    /// version's way also runs whole, so what one step leaves in the data is checked by the
    /// next; its outcome is that walk's. About 2n steps in all.
    func runSharingSteps(_ versions: [ModelBundle.Version], in directory: URL,
                         progress: @escaping @Sendable (Int, Int, String) -> Void) -> [Outcome] {
        let firsts = Slots<FirstStep>(count: versions.count)
        let whole = Slots<Outcome>(count: 1)
        let count = versions.count + 1
        DispatchQueue.concurrentPerform(iterations: count) { index in
            // The whole walk first: it is the longest.
            let walksWhole = index == 0
            let version = versions[walksWhole ? 0 : index - 1]
            firsts.started { progress($0, count, walksWhole ? "\(version.name), its whole way" : version.name) }
            let path = directory.appendingPathComponent("version-\(index).sqlite").path
            defer { StoreFiles.remove(path) }
            if walksWhole {
                do { whole.set(0, Outcome(version: version.name, steps: try check(version, at: path))) } catch {
                    whole.set(0, Outcome(version: version.name, steps: 0, error: error))
                }
            } else {
                firsts.set(index - 1, firstStep(of: version, at: path))
            }
        }
        let found = firsts.values.map { $0 ?? FirstStep(way: [], error: nil) }
        // A step checked as a version's first, by its name: what every later way through it reads.
        var byStep: [String: Error?] = [:]
        for first in found {
            // A plan refused at its first step (a requirement the store's rows break) names that step.
            let step = first.way.first ?? (first.error as? MigrationError)?.step
            if let step, byStep[step] == nil { byStep[step] = .some(first.error) }
        }
        var outcomes = zip(versions, found).map { version, first in outcome(of: version, first, byStep: byStep, in: directory) }
        if let walked = whole.values[0] { outcomes[0] = walked }
        return outcomes
    }

    /// The store for `version`, its plan, and the plan's first step run and checked.
    private func firstStep(of version: ModelBundle.Version, at path: String) -> FirstStep {
        var way: [String] = []
        do {
            let plan = try plannedStore(version, at: path)
            way = plan.steps.map { "\($0.source.name) → \($0.destination.name)" }
            guard let step = plan.steps.first else { return FirstStep(way: way, error: nil) }
            var first = plan
            first.steps = [step]
            first.targetVersion = step.destination.name
            try migrate(first, from: version, at: path)
            return FirstStep(way: way, error: nil)
        } catch {
            return FirstStep(way: way, error: error)
        }
    }

    /// A version's outcome from the steps of its way: its own first step, then each later one
    /// as checked where it was a version's first. A step no version starts with (none should:
    /// stepwise, every step starts at the version the step before reached) is walked whole.
    private func outcome(of version: ModelBundle.Version, _ first: FirstStep, byStep: [String: Error?], in directory: URL) -> Outcome {
        if let error = first.error { return Outcome(version: version.name, steps: first.way.count, error: error) }
        for step in first.way.dropFirst() {
            guard let result = byStep[step] else {
                let path = directory.appendingPathComponent("walk-\(UUID().uuidString).sqlite").path
                defer { StoreFiles.remove(path) }
                do { return Outcome(version: version.name, steps: try check(version, at: path)) } catch {
                    return Outcome(version: version.name, steps: first.way.count, error: error)
                }
            }
            if let error = result {
                var failure = error as? MigrationError ?? MigrationError(.verification, "\(error)")
                failure.step = failure.step ?? step
                // Said of the step, checked once on a store made where it starts: that store's state is no user's.
                failure.message = "at \(step), on its way (checked once, on a store made at \(step.components(separatedBy: " → ")[0])): " + failure.message
                failure.state = nil
                return Outcome(version: version.name, steps: first.way.count, error: failure)
            }
        }
        return Outcome(version: version.name, steps: first.way.count)
    }
}
