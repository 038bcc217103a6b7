import ArgumentParser
import Foundation
import MigrationEngine
import ObjectModel

/// `chrysalis plan`: the steps a migration would take, touching nothing.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show the steps that would migrate a store to a version, without touching it.",
        discussion: """
            From the store's version (found from its hashes) to the target, the way --strategy says \
            the app migrates. By default, progressive (Chrysalis's own): a mapping step wherever a \
            given mapping model starts from the version reached, and elsewhere one lightweight step \
            inferred straight across the versions no mapping model covers. automatic is Core Data's \
            automatic migration exactly (one mapping model for the exact pair, else one inferred \
            step, else refused); iterative (--stepwise) one step per consecutive pair; staged the \
            stages an app registers. Each step says why it is taken. A step Core Data could not infer is an error naming each change that \
            needs a mapping model. Findings say what data would be dropped, what is renamed or \
            retyped, and what becomes required.

            --sql prints, for every step, the statements it will run, compiled by the same code the \
            migration runs: an in-place step's ALTER TABLEs and table rebuilds, a mapping step's \
            INSERT … SELECTs compiled from its value expressions and the UPDATEs that set its \
            relationships, and the index builds. Values known only as the step runs are parameters: \
            :from and :last bound each chunk of source rows, :first_key and :last_key the keys \
            reserved for it. Where a run chooses between two forms (source keys kept when they run \
            without a gap, else renumbered), both are shown. Parts that run row by row in Swift say \
            so and why (a custom policy, an expression that does not compile to SQL).

            \(ExitStatus.help("plan"))

            Examples:
              chrysalis plan App.sqlite --model App.xcdatamodeld
              chrysalis plan App.sqlite --model App.xcdatamodeld --mappings Maps/ --json
              chrysalis plan App.sqlite --model App.xcdatamodeld --sql
            """
    )

    @OptionGroup var options: PlanOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(
        help: ArgumentHelp(
            "Show the SQL each step will run, and what runs row by row in Swift instead.",
            discussion: "With --json, each step carries its statements under \"sql\"."))
    var sql = false

    func run() throws {
        do {
            let (_, plan) = try options.plan()
            try plan.requireOwnedRows(store: options.store)
            try plan.requireViewsKept(store: options.store)
            var report = PlanReport(plan, store: options.store)
            if sql {
                let statements = try plan.statements(store: options.store, options: Registration.current.options())
                report.attach(statements)
            }
            print(json ? try report.json() : TerminalText.visible(report.text()), terminator: "")
            if !report.checkedWhenRun.isEmpty { throw ExitCode(4) }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            fail(error, touchingNothing: true)
        }
    }
}
