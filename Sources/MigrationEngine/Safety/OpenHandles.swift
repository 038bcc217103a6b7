import Foundation
import SQLiteStore

/// Other processes that have the store open: an app holding an idle connection takes no lock a
/// probe could see (a rollback-journal store) or only a shared one, yet its next write would land
/// in whatever file the store's name then points to — after a swap, the backup. So a migration
/// looks before its first write and again before each swap, and refuses, naming each process
/// (``StoreHolders``).
enum OpenHandles {
    /// Throws when another process has the store open, naming each, before `moment` (`the first
    /// write`, `the swap`).
    static func requireNone(store: String, before moment: String) throws {
        let holders = StoreHolders.holders(of: store)
        guard !holders.isEmpty else { return }
        let named = holders.map { "pid \($0.pid) (\($0.command)) has \($0.file) open" }.joined(separator: "; ")
        throw MigrationError(
            .locked,
            """
            \(store) is open in another process: \(named); checked before \(moment), since that process would go \
            on writing to the store's old file
            """,
            fix:
                """
                quit the app or shell that has the store open \
                (\(holders.map { "pid \($0.pid)" }.joined(separator: ", "))), then run again
                """
        )
    }

    /// What the look before the first write cannot see, said before it: a store that keeps a
    /// rollback journal (not WAL) is held by an idle connection without any lock, so an app of
    /// another user, whose open files this process cannot read, would go unseen. Nil when every
    /// holder would be seen.
    static func blindSpot(store: String) -> String? {
        guard StoreFiles.isWAL(store) == false, case let unseen = StoreHolders.unreadableProcesses(), unseen > 0 else {
            return nil
        }
        return """
            \(store) keeps a rollback journal, not a WAL: an app holding it open takes no lock until it writes, \
            and the open files of \(unseen) process\(unseen == 1 ? "" : "es") of other users cannot be read \
            without privileges, so an app among them would go unseen; quit every app using the store before \
            migrating it (or run as root, which sees every process)
            """
    }
}
