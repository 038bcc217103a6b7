/// A file copy's counter in megabytes: it moves as the copy's chunks land (not all at once when
/// the stage ends) and ends exactly at its total, so a backup shows `120/480 MB`, never `0/480`.
struct CopiedMegabytes {
    private let reporter: ProgressReporter
    /// The stage's total, as it began (at least 1: a small store still counts one).
    let total: Int
    private var counted = 0

    /// A counter for copying `bytes` bytes, told to `reporter`, whose running stage counts megabytes.
    init(bytes: Int, reporter: ProgressReporter) {
        self.reporter = reporter
        total = max(bytes >> 20, 1)
    }

    /// `bytes` are copied so far.
    mutating func copied(_ bytes: Int) {
        let now = min(bytes >> 20, total)
        guard now > counted else { return }
        reporter.advance(units: now - counted)
        counted = now
    }

    /// The copy is complete: the count reaches its total.
    mutating func complete() { copied(total << 20) }
}
