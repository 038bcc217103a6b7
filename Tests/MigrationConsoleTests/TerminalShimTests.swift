import CTerminalShim
import Foundation
import MigrationConsole
import Testing

/// The C shim's signal handling and the style → attribute mapping, without a terminal.
@Suite(.serialized) struct TerminalShimTests {
    @Test func signalsAreTakenOnceAndTheHandlersGoBackWhenUninstalled() throws {
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        var before = sigaction()
        sigaction(SIGWINCH, &ignore, &before)
        defer { sigaction(SIGWINCH, &before, nil) }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        cs_unblock_signals()  // as the console does: a test runner may block signals on its threads
        cs_install_signal_handlers(fds[1])
        _ = cs_raise(SIGWINCH)
        _ = cs_raise(SIGWINCH)
        #expect(cs_take_signals() == Int32(CS_SIGNAL_RESIZE))
        #expect(cs_take_signals() == 0, "taken and cleared in one step")
        var byte: UInt8 = 0
        #expect(read(fds[0], &byte, 1) == 1, "the handler wakes the UI through the pipe")
        cs_uninstall_signal_handlers()
        var now = sigaction()
        sigaction(SIGWINCH, nil, &now)
        #expect(
            unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self),
            "the handler that was there before the console is back (so Ctrl-C works again after it)")
        _ = cs_raise(SIGWINCH)
        #expect(cs_take_signals() == 0, "nothing is recorded once uninstalled")
        while read(fds[0], &byte, 1) == 1 {}
        cs_uninstall_signal_handlers()  // a second call is harmless
    }

    @Test func everyStyleKeepsItsMeaningInColourAndWithout() {
        #expect(CellStyle.reverse.attributes(colors: true) == CellAttributes(reverse: true))
        #expect(CellStyle.title.attributes(colors: true) == CellAttributes(pair: 4, bold: true))
        #expect(CellStyle.good.attributes(colors: true) == CellAttributes(pair: 2, bold: true))
        #expect(CellStyle.bad.attributes(colors: true) == CellAttributes(pair: 3, bold: true))
        #expect(CellStyle.accent.attributes(colors: true) == CellAttributes(pair: 1, bold: true))
        #expect(
            CellStyle.title.attributes(colors: false) == CellAttributes(reverse: true),
            "a monochrome title is still set apart")
        for style in CellStyle.allCases where style != .normal && style != .dim {
            #expect(style.attributes(colors: false) != CellAttributes(), "\(style) is visible without colours")
        }
        #expect(
            Set(CellStyle.allCases.map(\.letter)).count == CellStyle.allCases.count,
            "each style has its own letter in the goldens")
    }

    /// For a projector: nothing is dim, and every style that stands out without it still does.
    @Test func highContrastHasNoDimText() {
        for colors in [true, false] {
            for style in CellStyle.allCases {
                #expect(!style.attributes(colors: colors, highContrast: true).dim, "\(style)")
            }
            #expect(CellStyle.dim.attributes(colors: colors, highContrast: true) == CellAttributes())
            #expect(
                CellStyle.title.attributes(colors: colors, highContrast: true)
                    == CellAttributes(bold: true, reverse: true))
            #expect(
                CellStyle.bad.attributes(colors: colors, highContrast: true) == CellStyle.bad.attributes(colors: colors)
            )
        }
    }
}
