/// What each command's exit status means, said once: each command's `--help` ends with its
/// line, and the Guide's table (checked against `--help` by a test) repeats them, so a CI job
/// knows what fails it. 2 is always a usage error, as for Unix tools.
package enum ExitStatus {
    /// Each command's statuses, in order, as `status meaning` parts.
    static let meanings: [String: [String]] = [
        "model": ["0 the bundle was read", "1 it could not be read (the cause is named)", "2 usage"],
        "inspect": ["0 the store was read", "1 it could not be (nothing is written)", "2 usage"],
        "mapping": ["0 the mapping model was read and checked", "1 it was refused, or an error", "2 usage"],
        "plan": [
            "0 the plan runs as shown", "1 refused, or an error", "2 usage",
            """
            4 the plan runs only if the rows meet what a later step requires of them (listed under \
            "Checked only when the step runs"), which can be known only when that step runs
            """,
        ],
        "migrate": [
            "0 migrated (or nothing to do)", "1 an error (the message says where the store is)", "2 usage",
            "3 cancelled (the store is as it was)",
        ],
        "recover": [
            "0 recovered, or nothing to recover", "1 an error (the message says where the store is)", "2 usage",
        ],
        "fixture": [
            "0 the store was made", "1 an error (no store is left)", "2 usage", "3 cancelled (no store is left)",
        ],
        "check-history": [
            "0 every version checked migrates", "1 a version does not, or an error", "2 usage",
        ],
        "console": [
            "0 quit, or migrated", "1 an error, a failed migration, or no terminal", "2 usage",
            "3 cancelled (the store is as it was)", "129 the terminal went away (the report is beside the store)",
        ],
        "demo": ["0 done", "1 an error", "2 usage", "3 cancelled"],
    ]

    /// `command`'s line for its `--help`: `Exit status: 0 …; 1 …; 2 usage.`
    package static func help(_ command: String) -> String {
        "Exit status: " + (meanings[command] ?? []).joined(separator: "; ") + "."
    }
}
