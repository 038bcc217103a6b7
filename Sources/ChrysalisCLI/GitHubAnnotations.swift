import Foundation

/// `check-history --github`: each cause of failure as a GitHub Actions `::error` annotation on
/// the model file of the first version that fails for it (shown on the pull request's files), and
/// a Markdown summary for the run's page (`$GITHUB_STEP_SUMMARY`), as SwiftLint, periphery and
/// xcbeautify report.
struct GitHubAnnotations {
    let report: HistoryReport
    /// The bundle's path as the user gave it: annotations name files relative to the checkout.
    let bundlePath: String

    /// One `::error` line per cause, on the `contents` of the version its step goes to (where the
    /// change that fails was made), else of its first version; a compiled `.momd` has no
    /// `contents`, and the annotation then names no file.
    func commands() -> String {
        report.failingSteps.map { group in
            let ends = group.step.components(separatedBy: " → ")
            let version = ends.count == 2 ? ends[1] : group.versions.first ?? ""
            let contents = (bundlePath as NSString).appendingPathComponent("\(version).xcdatamodel/contents")
            var properties: [String] = []
            if FileManager.default.fileExists(atPath: contents) {
                properties.append("file=\(Self.escapedProperty(contents))")
            }
            properties.append("title=\(Self.escapedProperty("check-history: \(group.heading), \(group.failure)"))")
            let message =
                "\(group.versions.count) version\(group.versions.count == 1 ? "" : "s") (\(group.versions.joined(separator: ", "))) do not migrate to \(report.current): \(group.error)"
            return "::error \(properties.joined(separator: ","))::\(Self.escapedData(message))\n"
        }.joined()
    }

    /// The summary: the verdict, then a row per cause.
    func summary(strategy: String) -> String {
        let failed = report.versions.filter { !$0.ok }.count
        var lines = ["### check-history \(report.bundle) (\(strategy))", ""]
        lines.append(
            failed == 0
                ? "All \(report.versions.count) versions migrate to \(report.current), every step checked."
                : "\(failed) of \(report.versions.count) versions do not migrate to \(report.current), for \(report.failingSteps.count) cause\(report.failingSteps.count == 1 ? "" : "s")."
        )
        if !report.failingSteps.isEmpty {
            lines += ["", "| steps | kind | versions | error |", "|---|---|---|---|"]
            lines += report.failingSteps.map { group in
                "| \(Self.cell(group.heading)) | \(group.failure) | \(group.versions.count) | \(Self.cell(group.error)) |"
            }
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// A workflow command's message: `%`, CR and LF escaped, as the runner reads them back.
    static func escapedData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A workflow command's property value: the message's escapes, and `:` and `,` too.
    static func escapedProperty(_ text: String) -> String {
        escapedData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// A Markdown table cell: on one line, its bars escaped.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
