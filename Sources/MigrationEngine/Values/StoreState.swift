import Foundation
import SQLiteStore

/// Where a user's store stands when a migration stops: as it was, or fully migrated — or, only
/// when asked to keep completed steps, at a named version. Every result, error and cancel message
/// says which, and where the original is kept.
public enum StoreState: Sendable, Equatable {
    /// Nothing was written: the store is as it was, at `version`.
    case unchanged(version: String)
    /// Steps were done and undone: the store is the original again, byte for byte, at `version`.
    case restored(version: String)
    /// Completed steps were kept (`--keep-progress`): the store is at `version` after `done` of
    /// `total` steps; the original is kept at `backup`.
    case partial(version: String, done: Int, total: Int, backup: String?)
    /// A step failed and the original could not be put back (the journal stays): the store is
    /// at `version` after `done` of `total` steps, between the source and the target, and the
    /// next run or `chrysalis recover` undoes the plan from `backup`.
    case interrupted(version: String, done: Int, total: Int, backup: String?)
    /// The whole plan ran: the store is at `version`; the original is kept at `backup`.
    case migrated(version: String, backup: String?)
    /// Another process wrote to the store while step `done + 1` ran: the store is at `version`,
    /// with that process's committed changes, which are never undone; after `done` completed
    /// steps the original (without them) is kept at `backup`.
    case keptOtherWrites(version: String, done: Int, total: Int, backup: String?)

    /// The state, said for people (`the store is as it was, at Model1`).
    public var sentence: String {
        switch self {
        case .unchanged(let version):
            return "the store is as it was, at \(version); nothing was changed"
        case .restored(let version):
            return
                """
                the store is as it was, at \(version): the steps already done were undone and the original put \
                back, byte for byte
                """
        case let .partial(version, done, total, backup):
            return "the store is at \(version), after \(done) of \(total) steps (--keep-progress)"
                + (backup.map { "; the original is kept as \(StoreFiles.named($0))" } ?? "")
        case let .interrupted(version, done, total, backup):
            return
                """
                the store is at \(version), after \(done) of \(total) steps, under the plan's journal: not a \
                version to use until the original is put back
                """
                    + (backup.map { " from \(StoreFiles.named($0))" } ?? "")
        case let .migrated(version, backup):
            return "the store is at \(version)"
                + (backup.map { "; the original is kept as \(StoreFiles.named($0))" } ?? "")
        case let .keptOtherWrites(version, done, total, backup):
            guard done > 0 else {
                return
                    """
                    the store is at \(version) with the other process's changes, which are kept; Chrysalis wrote \
                    nothing to it
                    """
            }
            return
                """
                the store is at \(version), after \(done) of \(total) steps, with the other process's changes, \
                which are kept: the original was not put back over them
                """
                    + (backup.map { "; the original, without them, is kept as \(StoreFiles.named($0))" } ?? "")
        }
    }

    /// `unchanged`, `restored`, `partial` or `migrated`, for JSON.
    public var name: String {
        switch self {
        case .unchanged: return "unchanged"
        case .restored: return "restored"
        case .partial: return "partial"
        case .interrupted: return "interrupted"
        case .migrated: return "migrated"
        case .keptOtherWrites: return "keptOtherWrites"
        }
    }

    /// The version the store is at.
    public var version: String {
        switch self {
        case .unchanged(let version), .restored(let version), .partial(let version, _, _, _), .migrated(let version, _),
            .keptOtherWrites(let version, _, _, _), .interrupted(let version, _, _, _):
            return version
        }
    }

    /// Where the original is kept, when it is kept beside a store that is not the original.
    public var backup: String? {
        switch self {
        case .partial(_, _, _, let backup), .migrated(_, let backup), .keptOtherWrites(_, _, _, let backup),
            .interrupted(_, _, _, let backup):
            return backup
        case .unchanged, .restored: return nil
        }
    }
}
