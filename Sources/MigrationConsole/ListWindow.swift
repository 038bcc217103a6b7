/// Which rows of a list are in view when it is longer than its window: the selection is kept in
/// view, as near the middle as the list allows, so every row can be reached with ↑↓, PgUp/PgDn
/// and g/G. A pure function of the selection: the state keeps no scroll position to go stale.
struct ListWindow {
    /// The first row in view, and how many rows the window shows.
    let top: Int, height: Int
    /// Rows in the list.
    let count: Int

    init(selected: Int, count: Int, height: Int) {
        self.count = count
        self.height = max(height, 1)
        top = count > self.height ? max(0, min(selected - self.height / 2, count - self.height)) : 0
    }

    /// The rows in view.
    var rows: Range<Int> { top..<min(count, top + height) }

    /// `12/90` for the selected row when the list does not fit its window; nil when it does.
    func position(selected: Int) -> String? {
        count > height ? "\(min(selected + 1, count))/\(count)" : nil
    }
}
