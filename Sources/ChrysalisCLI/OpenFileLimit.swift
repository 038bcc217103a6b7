import Foundation
import MigrationEngine
import ObjectModel

#if canImport(Glibc)
    import Glibc
#endif

/// The number of files a process may have open (`ulimit -n`, RLIMIT_NOFILE). A run needs a few
/// dozen at once (the store with its journal, `-wal` and `-shm`, the new store, the work file,
/// read connections, the model's files); below that, each open fails with "too many open files"
/// somewhere else, and the messages blamed permissions. So the soft limit is raised toward the
/// hard one when it is low, and a hard limit too low for any run is refused up front, named.
enum OpenFileLimit {
    /// What a migration needs open at its busiest, with room to spare.
    static let needed: rlim_t = 64

    /// Raises a low soft limit as far as the hard limit allows; returns the refusal when even
    /// the hard limit is below ``needed``.
    static func ensure() -> MigrationError? {
        guard
            let limit = ResourceLimit.raise(
                Int32(RLIMIT_NOFILE.rawValue), needed: needed, to: { _ in max(needed, 1024) })
        else { return nil }
        return MigrationError(
            .notWritable,
            """
            this process may have at most \(limit.rlim_cur) files open (its open-file limit, `ulimit -n`, hard \
            limit \(limit.rlim_max)), and Chrysalis needs about \(needed) at once (the store with its journal and \
            WAL, the new store, read connections, the model's files)
            """,
            fix:
                """
                raise the limit (`ulimit -n 1024`; the hard limit is raised by root or in \
                /etc/security/limits.conf), then run again; nothing was read or written
                """
        )
    }
}
