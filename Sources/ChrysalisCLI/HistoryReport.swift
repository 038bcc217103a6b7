import Foundation
import MigrationEngine
import ObjectModel

/// What `check-history` found, as text, JSON or JUnit XML: every version's outcome, the failures
/// grouped by the step they fail at (31 versions failing at one missing mapping model are one
/// problem), and the versions not checked, each with why.
struct HistoryReport: Encodable {
    /// The versions that fail for one cause: at one step, or at steps that differ only in the
    /// version they start from (WooCommerce's 9 versions whose straight steps to Model 117 all
    /// lack `Order.statusKey`'s default).
    struct FailingStep: Encodable {
        /// The step, or the first of them when they differ.
        var step: String
        /// Every step they fail at, in the versions' order (one when they share it).
        var steps: [String]
        var failure: String
        var versions: [String]
        /// The error of the first of them.
        var error: String

        /// What the group is said as: the step, or the count of steps.
        var heading: String { steps.count == 1 ? step : "\(steps.count) steps (\(step) …)" }
    }

    /// What a failure is grouped by: its kind, and its error with its own step taken out, so
    /// that the same change refused on each version's own step is one cause.
    static func cause(of outcome: HistoryCheck.Outcome) -> String {
        var error = outcome.error ?? ""
        if let step = outcome.failingStep { error = error.replacingOccurrences(of: step, with: "STEP") }
        return (outcome.failure ?? "") + "\u{0}" + error
    }

    var bundle: String
    var current: String
    /// Where the order of versions the check walked comes from: `names` (the bundle states none,
    /// so it is the names' order), or the file or option that states it.
    var order: String
    /// What the check rests on that the bundle does not say (a guessed current version or order).
    var notes: [String]
    var versions: [HistoryCheck.Outcome]
    var failingSteps: [FailingStep]
    var skipped: [HistoryCheck.Skipped]

    /// The report of `check` on `bundle`, with the order of versions it walked and what it rests
    /// on that the bundle does not say.
    init(_ bundle: ModelBundle, check: HistoryCheck, outcomes: [HistoryCheck.Outcome]) {
        let order: String
        switch bundle.versionOrder {
        case .byName: order = "names"
        case .stated(let source): order = source
        }
        let notes = MigrationPlan.orderNotes(
            bundle, steps: 0, strategy: check.strategy, targetNamed: false, walked: bundle.versions.count > 2)
        self.init(
            bundle: bundle.name, current: check.target, versions: outcomes, skipped: check.skipped, order: order,
            notes: notes)
    }

    init(
        bundle: String, current: String, versions: [HistoryCheck.Outcome], skipped: [HistoryCheck.Skipped],
        order: String = "names", notes: [String] = []
    ) {
        (self.bundle, self.current, self.versions, self.skipped) = (bundle, current, versions, skipped)
        (self.order, self.notes) = (order, notes)
        var groups: [FailingStep] = [], causes: [String] = []
        for outcome in versions where !outcome.ok {
            let step = outcome.failingStep ?? "(before any step)", cause = Self.cause(of: outcome)
            // One step and kind is one cause, whatever each version's message adds; steps that
            // differ only in where they start are one cause when their messages are otherwise one.
            let sameStep = groups.firstIndex { $0.steps == [step] && $0.failure == (outcome.failure ?? "") }
            if let index = sameStep ?? causes.firstIndex(of: cause) {
                groups[index].versions.append(outcome.version)
                if !groups[index].steps.contains(step) { groups[index].steps.append(step) }
            } else {
                causes.append(cause)
                groups.append(
                    FailingStep(
                        step: step, steps: [step], failure: outcome.failure ?? "", versions: [outcome.version],
                        error: outcome.error ?? ""))
            }
        }
        failingSteps = groups
    }

    func text(strategy: String) -> String {
        let width = versions.map(\.version.count).max() ?? 0
        var lines = versions.map { outcome in
            let name = outcome.version.padding(toLength: width, withPad: " ", startingAt: 0)
            if outcome.ok {
                return
                    "ok    \(name)  \(outcome.steps == 0 ? "the target itself" : "\(outcome.steps) step\(outcome.steps == 1 ? "" : "s"), checked")"
            }
            return "FAIL  \(name)  \(outcome.error ?? "failed")"
        }
        if !skipped.isEmpty {
            lines += ["", "Not checked:"] + skipped.map { "  \($0.version): \($0.reason)" }
        }
        if !failingSteps.isEmpty {
            lines +=
                ["", "Failing steps, by cause:"]
                + failingSteps.map { group in
                    "  \(group.heading): \(group.versions.count) version\(group.versions.count == 1 ? "" : "s") (\(Self.list(group.versions))) — \(group.error)"
                }
        }
        if !notes.isEmpty { lines += ["", "Notes:"] + notes.map { "  • \($0)" } }
        let failed = versions.filter { !$0.ok }.count
        let way = " (\(strategy))"
        lines.append("")
        lines.append(
            failed == 0
                ? "All \(versions.count) versions of \(bundle) checked migrate to \(current)\(way), every step checked."
                : """
                \(failed) of \(versions.count) versions of \(bundle) do not migrate to \(current)\(way), for \
                \(failingSteps.count) cause\(failingSteps.count == 1 ? "" : "s") at \(failingSteps.map(\.steps.count).reduce(0, +)) \
                step\(failingSteps.map(\.steps.count).reduce(0, +) == 1 ? "" : "s").
                """
        )
        return lines.joined(separator: "\n")
    }

    /// A JUnit XML report: one test case per version checked, with its seconds (a failure
    /// names its step), one skipped case per version not checked.
    func junit(strategy: String) -> String {
        let failures = versions.filter { !$0.ok }.count
        let suite = "check-history \(bundle) (\(strategy))"
        let total = String(format: "%.3f", versions.map(\.seconds).reduce(0, +))
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml +=
            #"<testsuites name="\#(escape(suite))" tests="\#(versions.count + skipped.count)" failures="\#(failures)" skipped="\#(skipped.count)">"#
            + "\n"
        xml +=
            #"  <testsuite name="\#(escape(suite))" tests="\#(versions.count + skipped.count)" failures="\#(failures)" skipped="\#(skipped.count)" time="\#(total)">"#
            + "\n"
        for outcome in versions {
            let name =
                #"name="\#(escape(outcome.version)) → \#(escape(current))" classname="\#(escape(bundle))""#
                + #" time="\#(String(format: "%.3f", outcome.seconds))""#
            if outcome.ok {
                xml += "    <testcase \(name)/>\n"
            } else {
                let message = escape("\(outcome.failingStep.map { "\($0): " } ?? "")\(outcome.failure ?? "error")")
                xml +=
                    "    <testcase \(name)>\n      <failure message=\"\(message)\">\(escape(outcome.error ?? ""))</failure>\n    </testcase>\n"
            }
        }
        for skip in skipped {
            xml +=
                #"    <testcase name="\#(escape(skip.version)) → \#(escape(current))" classname="\#(escape(bundle))">"#
                + "\n"
            xml += "      <skipped message=\"\(escape(skip.reason))\"/>\n    </testcase>\n"
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    /// Versions as `A, B … F`: the first two and the last of a long run.
    private static func list(_ names: [String]) -> String {
        names.count <= 3 ? names.joined(separator: ", ") : "\(names[0]), \(names[1]) … \(names[names.count - 1])"
    }

    /// `text` as an XML attribute value or text; XML 1.0 allows no control characters but tab,
    /// newline and return, even as references, so others become `?`.
    private func escape(_ text: String) -> String {
        let allowed = String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.value < 0x20 && !["\t", "\n", "\r"].contains($0) ? "?" : $0 }))
        return XMLEscaping.attributeValue(allowed)
    }
}
