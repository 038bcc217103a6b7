import Foundation
import SQLiteStore

extension StoreState {
    /// What a process stopped at once (a kill, or a second signal when the first could not be
    /// acted on) leaves of `store`, said from what is on disk: a plan's or a swap's journal beside
    /// it means steps had begun and the next `migrate` or `chrysalis recover` undoes them; without
    /// one, nothing but an uncommitted transaction was written, which SQLite rolls back when the
    /// store is next opened.
    package static func sentenceAfterStoppingAtOnce(store: String) -> String {
        let journals = [PlanJournal.path(for: store), StoreSwap.Paths(store: store).journal]
        if journals.contains(where: { access($0, F_OK) == 0 }) {
            return "a plan had begun: `chrysalis recover \(store)` (or the next migrate) puts the original back"
        }
        return
            """
            no step had been committed: the store is as it was (SQLite rolls back an unfinished step when the \
            store is next opened)
            """
    }
}
