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
}
