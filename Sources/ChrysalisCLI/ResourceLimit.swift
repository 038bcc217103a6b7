#if canImport(Glibc)
    import Glibc
#endif

/// A process resource limit (`ulimit`) a run needs at least some of: a soft limit below what is
/// needed is raised as far as its hard limit allows, as the shell's `ulimit` lets any process do.
enum ResourceLimit {
    /// Raises `resource`'s soft limit to `wanted(hard)` when it is below `needed`. Returns nil
    /// when the limit is enough now; the limit as it was when even the hard one is too low.
    static func raise(_ resource: Int32, needed: rlim_t, to wanted: (_ hard: rlim_t) -> rlim_t) -> rlimit? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < needed else { return nil }
        if limit.rlim_max >= needed {
            var raised = limit
            raised.rlim_cur = min(wanted(limit.rlim_max), limit.rlim_max)
            if setrlimit(resource, &raised) == 0 { return nil }
        }
        return limit
    }
}
