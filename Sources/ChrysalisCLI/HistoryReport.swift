import Foundation
import MigrationEngine
import ObjectModel

/// What `check-history` found, as text, JSON or JUnit XML: every version's outcome, the failures
/// grouped by the step they fail at (31 versions failing at one missing mapping model are one
/// problem), and the versions not checked, each with why.
struct HistoryReport: Encodable {
    /// The versions that fail at one step.
    struct FailingStep: Encodable {
        var step: String
        var failure: String
        var versions: [String]
        /// The error of the first of them.
        var error: String
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
        var groups: [FailingStep] = []
        for outcome in versions where !outcome.ok {
            let step = outcome.failingStep ?? "(before any step)"
            if let index = groups.firstIndex(where: { $0.step == step && $0.failure == (outcome.failure ?? "") }) {
                groups[index].versions.append(outcome.version)
            } else {
                groups.append(
                    FailingStep(
                        step: step, failure: outcome.failure ?? "", versions: [outcome.version],
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
                ["", "Failing steps:"]
                + failingSteps.map { group in
                    "  \(group.step): \(group.versions.count) version\(group.versions.count == 1 ? "" : "s") (\(Self.list(group.versions))) — \(group.error)"
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
                \(failed) of \(versions.count) versions of \(bundle) do not migrate to \(current)\(way), at \
                \(failingSteps.count) step\(failingSteps.count == 1 ? "" : "s").
                """
        )
        return lines.joined(separator: "\n")
    }

    /// A JUnit XML report: one test case per version checked (a failure names its step), one
    /// skipped case per version not checked.
    func junit(strategy: String) -> String {
        let failures = versions.filter { !$0.ok }.count
        let suite = "check-history \(bundle) (\(strategy))"
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml +=
            #"<testsuites name="\#(escape(suite))" tests="\#(versions.count + skipped.count)" failures="\#(failures)" skipped="\#(skipped.count)">"#
            + "\n"
        xml +=
            #"  <testsuite name="\#(escape(suite))" tests="\#(versions.count + skipped.count)" failures="\#(failures)" skipped="\#(skipped.count)">"#
            + "\n"
        for outcome in versions {
            let name = #"name="\#(escape(outcome.version)) → \#(escape(current))" classname="\#(escape(bundle))""#
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
