import Foundation
import MigrationEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The address space a process may map (`ulimit -v`, RLIMIT_AS). It counts what is reserved,
/// not what is used: each thread's stack and each of glibc's malloc arenas (64 MB apiece) count
/// in full. Below what a run reserves, thread starts fail inside libdispatch, which waits for a
/// thread forever: a run under `ulimit -v 150000` hung at planning, signals unheard. So a low
/// soft limit is raised toward the hard one, and a
/// hard limit below ``needed`` is refused up front, named, before anything is read or written.
enum AddressSpaceLimit {
    /// What a run reserves at its busiest (threads' stacks and arenas, SQLite's page cache, a
    /// chunk of rows), with room over what runs of the demo's stores reserve.
    static let needed: rlim_t = 1 << 30

    /// Raises a low soft limit as far as the hard limit allows; returns the refusal when even
    /// the hard limit is below ``needed``.
    static func ensure() -> MigrationError? {
        guard let limit = ResourceLimit.raise(Int32(RLIMIT_AS.rawValue), needed: needed, to: { hard in hard }) else {
            return nil
        }
        return MigrationError(
            .notWritable,
            """
            this process may map at most \(limit.rlim_cur / 1024) KB of memory (its address-space limit, `ulimit \
            -v`, hard limit \(limit.rlim_max == rlim_t.max ? "unlimited" : "\(limit.rlim_max / 1024) KB")), and \
            Chrysalis reserves up to \(needed / 1024) KB at once (its threads' stacks, malloc's arenas, SQLite's \
            cache)
            """,
            fix:
                """
                raise the limit (`ulimit -v \(needed / 1024)` or `ulimit -v unlimited`), then run again; nothing \
                was read or written
                """
        )
    }
}
