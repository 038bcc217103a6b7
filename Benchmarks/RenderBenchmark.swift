import Foundation
import MigrationConsole
import MigrationEngine

/// Times the console's migrate screen at 120×40: the pure render (ncurses then sends only the
/// cells that changed), with a progress value arriving before every frame.
enum RenderBenchmark {
    static func run(frames: Int) -> Double {
        let progress = MigrationProgress(
            step: 1, stepCount: 2, pass: "BookStore3To4", entityMapping: "PublicationToPublication",
            entityMappingIndex: 2,
            entityMappingCount: 3, stage: .createInstances, rowsDone: 500_000, rowsTotal: 1_000_000, fraction: 0.42,
            rowsPerSecond: 40_000, elapsed: 12)
        let mappings = (1...6).map {
            ConsoleState.Mapping(
                pass: $0 <= 3 ? "BookStore3To4" : "BookStore4To5", name: "Mapping\($0)", kind: "copy", source: "A",
                destination: "A",
                policy: nil, properties: [("name", "$source.name")])
        }
        var state = ConsoleState(
            storeName: "BookStore.sqlite", bundleName: "BookStore", storeVersion: "BookStore 3",
            targetVersion: "BookStore 5",
            versions: [],
            steps: [.init(from: "BookStore 3", to: "BookStore 5", kind: .mapping, mappings: mappings, findings: [])],
            width: 120, height: 40)
        _ = state.reduce(ConsoleAction.key(Key.character("m")))
        var checksum = 0
        let started = Date()
        for frame in 0..<frames {
            var current = progress
            current.fraction = Double(frame) / Double(frames)
            current.rowsDone = frame * 50
            _ = state.reduce(ConsoleAction.progress(current))
            checksum &+= Screens.render(state).row(5).count
        }
        precondition(checksum == frames * 120, "the migrate screen's rows are not 120 columns wide")
        return Date().timeIntervalSince(started) / Double(frames)
    }
}
