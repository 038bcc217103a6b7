/// Chrysalis's version, the one source of it: every executable's `--version` prints it, and a
/// release is the commit tagged `v` followed by it (`v0.1.0`), as the README says.
public enum ChrysalisVersion {
    /// `major.minor.patch`, semantic versioning: a store, a plan's JSON or a command line that
    /// worked keeps working within a major version.
    public static let current = "0.1.0"
}
