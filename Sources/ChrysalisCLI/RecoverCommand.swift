import ArgumentParser
import Foundation
import MigrationEngine
import ObjectModel

/// `chrysalis recover`: puts a store whose migration was interrupted back in order, without
/// migrating it.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Put a store back in order after a migration was killed, without migrating it.",
        discussion: """
            After a crash, a kill or a power cut, `chrysalis migrate` recovers by itself before it \
            migrates. This does only the recovery: a crashed writer's unfinished transaction is \
            rolled back, an interrupted step's work files are removed, and a plan of several steps \
            that stopped half way is undone — the original is put back, byte for byte — or, when it \
            had reached its target, tidied. It says what it did; a store with nothing to recover is \
            left as it is.

            \(ExitStatus.help("recover"))

            Example:
              chrysalis recover Books.sqlite
            """
    )

    @Argument(help: "The store.", completion: .file())
    var store: String

    func run() throws {
        do {
            let done = try MigrationRunner.recover(store: StorePath.resolved(store), lockHolder: Invocation.commandLine)
            print(
                TerminalText.visible(
                    done.isEmpty
                        ? "\(store): nothing to recover." : done.map { "\(store): \($0)." }.joined(separator: "\n")))
        } catch {
            fail(error)
        }
    }
}
