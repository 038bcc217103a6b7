import ObjectModel

/// A staged migration's stages laid over a bundle's versions: which version each checksum names,
/// and the checks that need the bundle (every checksum known, stages going forward).
struct StageVersions {
    let bundle: ModelBundle
    let stages: [MigrationStage]
    /// The first version with each checksum (versions sharing entity hashes share a checksum).
    private let indexes: [String: Int]

    init(bundle: ModelBundle, stages: [MigrationStage]) {
        (self.bundle, self.stages) = (bundle, stages)
        var indexes: [String: Int] = [:]
        for (index, version) in bundle.versions.enumerated() where indexes[version.versionChecksum] == nil {
            indexes[version.versionChecksum] = index
        }
        self.indexes = indexes
    }

    /// The version named by `checksum`, as an index into the bundle's versions.
    func index(_ checksum: String) throws -> Int {
        guard let index = indexes[checksum] else { throw unknown("a stage's version", checksum: checksum) }
        return index
    }

    /// Whether some stage names `checksum`.
    func names(_ checksum: String) -> Bool { stages.contains { $0.checksums.contains(checksum) } }

    /// The first stage naming `checksum`.
    func firstStage(naming checksum: String) -> Int? { stages.firstIndex { $0.checksums.contains(checksum) } }

    /// Every checksum names a version, and each stage starts after the one before it starts
    /// (a custom stage also ends after it starts).
    func requireForward() throws {
        var previous: (start: Int, label: String)?
        for (number, stage) in zip(1..., stages) {
            let positions = try stage.checksums.map(index)
            let start = positions.min() ?? 0
            if case .custom = stage, positions[1] <= positions[0] {
                throw backwards(
                    """
                    stage \(number) (\(stage.label)) goes from \(bundle.versions[positions[0]].name) to \
                    \(bundle.versions[positions[1]].name)
                    """
                )
            }
            if let previous, start <= previous.start {
                throw backwards(
                    """
                    stage \(number) (\(stage.label)) starts at \(bundle.versions[start].name), before stage \
                    \(number - 1) (\(previous.label)) does
                    """
                )
            }
            previous = (start, stage.label)
        }
    }

    /// Core Data's refusal of a checksum no version has.
    func unknown(_ what: String, checksum: String) -> MigrationError {
        MigrationError(
            .wrongModel,
            "\(what) has the version checksum \(checksum), which no stage of this staged migration names or no version of \(bundle.name) has; "
                + "Core Data says \"Cannot use staged migration with an unknown model version.\" (134504)",
            fix:
                """
                name every version the store may be at in a stage; `chrysalis model \(bundle.name).xcdatamodeld` \
                shows each version's checksum
                """
        )
    }

    private func backwards(_ what: String) -> MigrationError {
        MigrationError(
            .wrongModel, "\(what); Core Data says \"A store file cannot be migrated backwards with staged migration.\"",
            fix: "order the stages from the oldest version to the newest")
    }
}
