import Foundation
import MigrationConsole
import MigrationEngine
import ObjectModel

/// The console as a person feels it: how long a key takes to show its frame on the Plan screen
/// of a long plan, and how long the console takes to draw its first frame on a plan of many
/// steps. Both are the pure reducer and render (ncurses then sends only the cells that changed),
/// on real apps' bundles from the fixtures beside the project root.
enum ConsoleLatency {
    static let keysName = "console-keys"
    static let keysSummary = "keys on the Plan screen of Wire zmessaging2.3 → current (one step, 267 lines)"
    /// A key's frame within 16 ms, a 60 Hz display's frame (issue 59 §5), at the worst key.
    static let keysGoal = Scenario.Goal.seconds(0.016)
    static let firstFrameName = "console-first-frame"
    static let firstFrameSummary = "the first frame on WooCommerce Model 33 → Model 117 stepwise (84 steps)"
    /// The first frame at once: drawn before the bundle is read and the plan worked out (which
    /// fill it in after), within a 60 Hz display's frame.
    static let firstFrameGoal = Scenario.Goal.seconds(0.016)

    private static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata")
    }

    struct Result {
        let name: String, summary: String
        /// Seconds per sample: a key's reduce and render, or one whole first frame.
        let samples: [Double]
        var worst: Double { samples.max() ?? 0 }

        var text: String {
            String(
                format: "%@: %@: median %.2f ms, worst %.2f ms over %d", name, summary, median(samples) * 1000,
                worst * 1000, samples.count)
        }

        var json: String {
            String(
                format: #"{"scenario":"%@","medianSeconds":%.5f,"worstSeconds":%.5f,"samples":%d}"#, name,
                median(samples), worst, samples.count)
        }
    }

    /// `keys` keys (down, page down, up, end, home, in turn) on the Plan screen at 120×40.
    static func keys(_ keys: Int, folder: URL) throws -> Result {
        let bundleURL = fixtures.appendingPathComponent("wire-ios-data-model/Resources/zmessaging.xcdatamodeld")
        let store = folder.appendingPathComponent("Wire-keys.sqlite").path
        try? FileManager.default.removeItem(atPath: store)
        try Scenario.makeStore(at: store, bundle: bundleURL, version: "zmessaging2.3", rows: 100)
        let bundle = try ModelBundle.read(at: bundleURL)
        let plan = try MigrationPlan.make(store: store, bundle: bundle, strategy: .automatic)
        var state = ConsoleState(
            store: store, bundle: bundle, plan: plan, options: MigrationOptions(), width: 120, height: 40,
            glyphs: .unicode, compilingSQL: false)
        state.screen = .plan
        let cycle: [Key] = [.down, .down, .pageDown, .up, .end, .home]
        var samples: [Double] = []
        var checksum = 0
        for index in 0..<keys {
            let started = Date()
            _ = state.reduce(.key(cycle[index % cycle.count]))
            checksum &+= Screens.render(state).row(3).count
            samples.append(Date().timeIntervalSince(started))
        }
        precondition(checksum == keys * 120, "the Plan screen's rows are not 120 columns wide")
        return Result(name: keysName, summary: keysSummary, samples: samples)
    }

    /// `rounds` openings: the first frame, drawn before anything is read (the goal), then the
    /// bundle read, the plan made from the store, and the Versions screen it fills in (said).
    static func firstFrame(rounds: Int, folder: URL) throws -> Result {
        let bundleURL = fixtures.appendingPathComponent(
            "woocommerce-ios/Storage/Storage/Model/WooCommerce.xcdatamodeld")
        let store = folder.appendingPathComponent("WooCommerce-first-frame.sqlite").path
        try? FileManager.default.removeItem(atPath: store)
        try Scenario.makeStore(at: store, bundle: bundleURL, version: "Model 33", rows: 30)
        var samples: [Double] = [], filled: [Double] = []
        for _ in 0..<rounds {
            let started = Date()
            var opening = ConsoleState(
                storeName: "WooCommerce-first-frame.sqlite", bundleName: "", storeVersion: "", targetVersion: "",
                versions: [], steps: [], width: 120, height: 40)
            opening.opening = "Reading the model bundle and working out the plan…"
            precondition(Screens.render(opening).row(0).count == 120)
            samples.append(Date().timeIntervalSince(started))
            let bundle = try ModelBundle.read(at: bundleURL)
            let plan = try MigrationPlan.make(store: store, bundle: bundle, strategy: .iterative)
            let state = ConsoleState(
                store: store, bundle: bundle, plan: plan, options: MigrationOptions(), width: 120, height: 40,
                glyphs: .unicode, compilingSQL: false)
            precondition(Screens.render(state).row(0).count == 120 && plan.steps.count == 84, "not the 84-step plan")
            filled.append(Date().timeIntervalSince(started))
        }
        return Result(
            name: firstFrameName,
            summary: firstFrameSummary + String(format: "; the plan fills it in after %.2f s (median)", median(filled)),
            samples: samples)
    }
}
