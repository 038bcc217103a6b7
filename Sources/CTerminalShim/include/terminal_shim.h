// What a terminal program must do in C: async-signal-safe signal and crash handlers that only
// set a flag, wake the UI through a pipe, and put the terminal back before a crash report.
#ifndef CHRYSALIS_TERMINAL_SHIM_H
#define CHRYSALIS_TERMINAL_SHIM_H

enum {
    CS_SIGNAL_INTERRUPT = 1, CS_SIGNAL_TERMINATE = 2, CS_SIGNAL_HANGUP = 4, CS_SIGNAL_RESIZE = 8, CS_SIGNAL_QUIT = 16
};

/// Unblocks every signal (a parent such as a test runner may have blocked some).
void cs_unblock_signals(void);
/// Installs handlers for INT, TERM, HUP, QUIT and WINCH that record the signal and write a byte
/// to `wake_fd`, keeping the handlers they replace.
void cs_install_signal_handlers(int wake_fd);
/// Puts back the handlers `cs_install_signal_handlers` replaced and stops writing to its pipe
/// (the caller may close it then); safe to call when none are installed.
void cs_uninstall_signal_handlers(void);
/// The signals received since the last call (CS_SIGNAL_* bits), cleared in the same atomic step.
int cs_take_signals(void);
/// Saves the terminal's settings and installs crash handlers that restore them, then re-raise.
void cs_install_crash_handlers(int tty_fd);
/// Restores the saved terminal settings (safe to call more than once).
void cs_restore_terminal(void);
/// Sends `number` to this process (for tests of the handlers).
int cs_raise(int number);

#endif
