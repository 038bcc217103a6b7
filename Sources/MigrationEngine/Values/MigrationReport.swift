import Foundation
import SQLiteStore

/// What a finished migration did, for the console's result screen and the command line.
public struct MigrationReport: Sendable {
    /// The migrated store.
    public var store: String
    /// Where the source store was kept (`Name~.ext`).
    public var backup: String?
    /// The versions migrated from and to.
    public var sourceVersion: String, destinationVersion: String
    /// The mapping models run, in order.
    public var passes: [String]
    /// Rows per entity before (source) and after (destination); empty for an in-place step that
    /// never read or wrote a row (it only changed the schema).
    public var rowsBefore: [String: Int], rowsAfter: [String: Int]
    /// Seconds the migration took.
    public var duration: Double
    /// Whether a mapping step read every page of the new store with SQLite's `quick_check`
    /// before the swap (``MigrationOptions/checksPages``); its rows are reconciled either way.
    public var pagesChecked = false
    /// What the step left the store holding, read under its lock before it let go
    /// (``StepContext/summarizesContents``): what a later step, or the plan putting its original
    /// back, compares the store with to know whether another process wrote since.
    package var contents: ContentSummary?
}
