import Foundation
import SQLiteStore

/// An in-place step's progress, stage by stage: the backup copy (megabytes), the change (tables),
/// the verification (rows counted, or tables checked when no row can change). Kept apart from
/// the step's SQL so the step reads as what it does.
struct InPlaceProgress {
    private let reporter: ProgressReporter
    private let pass: String
    private let tables: Int, countsRows: Bool, backup: Bool
    private var verifiedUnits = 0
    /// Tables counted as changed so far.
    private var changedTables = 0
    /// The backup's megabytes copied.
    private var megabytes: CopiedMegabytes

    /// The progress of an in-place step over a store of about `rows` rows and `bytes` bytes (with
    /// its `-wal`: what the backup copies, when it `keepsBackup`) whose change of `tables` tables
    /// is expected to take `change` microseconds (``StatementWeights``), posting to `target`.
    init(
        rows: Int, bytes: Int, countsRows: Bool, change: Double, tables: Int, keepsBackup: Bool, target: ProgressTarget,
        pass: String
    ) {
        self.pass = pass
        self.tables = max(tables, 1)
        self.countsRows = countsRows
        backup = keepsBackup
        let reporter = ProgressReporter(
            budget: StageCost.inPlaceStep(
                rows: rows, bytes: bytes, backup: keepsBackup, countsRows: countsRows,
                change: change, tables: max(tables, 1)), target: target)
        self.reporter = reporter
        megabytes = CopiedMegabytes(bytes: bytes, reporter: reporter)
    }

    /// The backup copy starts (when the step keeps one).
    func copying() {
        guard backup else { return }
        reporter.begin(
            stage: .backup, pass: pass, mapping: nil, index: 0, count: 0, rowsTotal: megabytes.total, unit: .megabytes)
    }

    /// `bytes` of the backup are copied: the megabyte count moves with the copy.
    mutating func copied(bytes: Int) { if backup { megabytes.copied(bytes) } }

    /// The change starts.
    mutating func changing() {
        if backup { megabytes.complete() }
        reporter.begin(stage: .inPlace, pass: pass, mapping: nil, index: 0, count: 0, rowsTotal: tables, unit: .tables)
    }

    /// `share` of the change's statements have run: the table count moves with them.
    mutating func changed(share: Double) {
        let now = min(Int(share * Double(tables)), tables)
        guard now > changedTables else { return }
        reporter.advance(units: now - changedTables)
        changedTables = now
    }

    /// The change is done; verification starts, counting `rows` when rows could have changed.
    mutating func verifying(rows: Int) {
        if tables > changedTables { reporter.advance(units: tables - changedTables) }
        changedTables = tables
        verifiedUnits = countsRows ? rows : tables
        reporter.begin(
            stage: .verify, mapping: nil, index: 0, count: 0, rowsTotal: verifiedUnits,
            unit: countsRows ? .rows : .tables)
    }

    /// Verification is done.
    func verified() { reporter.advance(units: verifiedUnits, rows: countsRows ? verifiedUnits : 0) }

    /// The step is done.
    func finish() { reporter.finish() }
}
