import CNCurses
import CTerminalShim
import Foundation

/// The one place that talks to ncurses: opens the terminal, draws a ``Grid``, turns keys into
/// ``Key``s, and puts the terminal back. Only the UI thread calls it.
final class TerminalAdapter {
    private let screen: OpaquePointer
    private let window: UnsafeMutablePointer<WINDOW>
    private var last: Grid?
    let colors: Bool
    let unicode: Bool
    /// The terminal type drawn as, when `TERM` had no terminfo entry here and a fallback was used.
    let fallback: (term: String, used: String)?

    /// The terminal type a modern terminal whose own entry is missing (kitty, alacritty, wezterm,
    /// foot over SSH to a machine without their terminfo) is drawn as: they all speak it.
    static let fallbackType = "xterm-256color"

    /// `CHRYSALIS_HIGH_CONTRAST` set (what `--high-contrast` sets): no dim text, for a projector.
    package static var highContrastRequested: Bool {
        ProcessInfo.processInfo.environment["CHRYSALIS_HIGH_CONTRAST"].map { !$0.isEmpty && $0 != "0" } ?? false
    }

    /// Draws no dim text (``CellStyle/attributes(colors:highContrast:)``).
    private let highContrast: Bool

    /// Opens the terminal, or returns nil when it cannot be driven (no tty, TERM unset or dumb).
    init?() {
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1, !term.isEmpty, term != "dumb" else { return nil }
        setlocale(LC_ALL, "")
        unicode = String(cString: nl_langinfo(nl_item(CODESET))) == "UTF-8"
        cs_install_crash_handlers(STDOUT_FILENO)
        guard let output = fdopen(STDOUT_FILENO, "w"), let input = fdopen(STDIN_FILENO, "r") else { return nil }
        var opened = newterm(nil, output, input)
        var fallback: (term: String, used: String)?
        if opened == nil, term != Self.fallbackType {
            opened = newterm(Self.fallbackType, output, input)
            if opened != nil { fallback = (term, Self.fallbackType) }
        }
        guard let screen = opened else { return nil }
        self.fallback = fallback
        self.screen = screen
        set_term(screen)
        window = cs_stdscr()
        cbreak()
        noecho()
        keypad(window, true)
        nodelay(window, true)
        curs_set(0)
        set_escdelay(25)
        _ = cs_enable_mouse()
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        highContrast = Self.highContrastRequested
        colors = has_colors() && !noColor
        if colors {
            start_color()
            use_default_colors()
            for (pair, colours) in CellAttributes.pairs { init_pair(pair, colours.foreground, colours.background) }
        }
    }

    /// The terminal's size now.
    var size: (width: Int, height: Int) { (Int(cs_cols(window)), Int(cs_rows(window))) }

    /// Re-reads the size after SIGWINCH.
    func refreshSize() {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 {
            resizeterm(Int32(size.ws_row), Int32(size.ws_col))
        }
        last = nil
    }

    /// Draws `grid`, skipping the work when nothing changed.
    func draw(_ grid: Grid) {
        guard grid != last else { return }
        if last?.width != grid.width || last?.height != grid.height { werase(window) }
        for y in 0..<grid.height {
            for run in grid.runs(y) {
                var text = run.text
                // Never write the bottom-right cell: the terminal would scroll.
                if y == grid.height - 1 && run.x + run.columns >= grid.width { text = String(text.dropLast()) }
                wattrset(window, Int32(bitPattern: attributes(run.style)))
                mvwaddstr(window, Int32(y), Int32(run.x), text)
            }
        }
        wattrset(window, 0)
        // The (hidden) cursor rests at the start of the last line: if the terminal is cut off
        // mid-migration, whatever the shell prints next starts at the left, not wrapped at the edge.
        wmove(window, Int32(grid.height - 1), 0)
        wnoutrefresh(window)
        doupdate()
        last = grid
    }

    private func attributes(_ style: CellStyle) -> UInt32 {
        let wanted = style.attributes(colors: colors, highContrast: highContrast)
        var bits = UInt32(cs_normal())
        if wanted.pair != 0 { bits |= UInt32(cs_pair(wanted.pair)) }
        if wanted.bold { bits |= UInt32(cs_bold()) }
        if wanted.reverse { bits |= UInt32(cs_reverse()) }
        if wanted.dim { bits |= UInt32(cs_dim()) }
        return bits
    }

    /// Every key waiting, decoded.
    func keys() -> [Key] {
        var keys: [Key] = []
        var character: wint_t = 0
        while true {
            let status = wget_wch(window, &character)
            if status == ERR { break }
            if status == KEY_CODE_YES {
                switch Int32(character) {
                case KEY_UP: keys.append(.up)
                case KEY_DOWN: keys.append(.down)
                case KEY_LEFT: keys.append(.left)
                case KEY_RIGHT: keys.append(.right)
                case KEY_PPAGE: keys.append(.pageUp)
                case KEY_NPAGE: keys.append(.pageDown)
                case KEY_HOME: keys.append(.home)
                case KEY_END: keys.append(.end)
                case KEY_BTAB: keys.append(.backTab)
                case KEY_BACKSPACE: keys.append(.backspace)
                case KEY_ENTER: keys.append(.enter)
                case KEY_RESIZE: last = nil  // resizeterm queued it; the size is already new.
                case KEY_MOUSE:
                    var x: Int32 = 0, y: Int32 = 0
                    switch cs_mouse_event(&x, &y) {
                    case 1: keys.append(.mouse(.wheelUp, x: Int(x), y: Int(y)))
                    case 2: keys.append(.mouse(.wheelDown, x: Int(x), y: Int(y)))
                    case 3: keys.append(.mouse(.click, x: Int(x), y: Int(y)))
                    default: break
                    }
                default: break
                }
                continue
            }
            switch character {
            case 9: keys.append(.tab)
            case 10, 13: keys.append(.enter)
            case 27: keys.append(.escape)
            case 8, 127: keys.append(.backspace)
            case 3: keys.append(.interrupt)
            case 4: keys.append(.halfPageDown)
            case 21: keys.append(.halfPageUp)
            default:
                if let scalar = Unicode.Scalar(UInt32(character)) { keys.append(.character(Character(scalar))) }
            }
        }
        return keys
    }

    /// Puts `text` on the clipboard of the terminal the user sits at, through OSC 52 (xterm's
    /// selection sequence, which tmux, iTerm2, kitty and Windows Terminal pass on, over SSH too).
    /// Written straight to the terminal: ncurses has no call for it, and it moves no cell.
    func copy(_ text: String) {
        fflush(nil)
        let sequence = "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{7}"
        FileHandle.standardOutput.write(Data(sequence.utf8))
    }

    /// Puts the terminal back as it was.
    func close() {
        endwin()
        delscreen(screen)
        cs_restore_terminal()
    }
}
