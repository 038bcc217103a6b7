#include "terminal_shim.h"
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

// Lock-free atomics are async-signal-safe: the handler ORs a bit in, the UI thread swaps the
// whole word out for zero in one step, so a signal landing between a read and a clear is never lost.
static atomic_int pending = 0;
static atomic_int wake = -1;
static int tty = -1;
static struct termios saved;
static volatile sig_atomic_t saved_valid = 0;
static struct sigaction previous[32];
static const int console_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH};
static struct sigaction console_previous[sizeof console_signals / sizeof console_signals[0]];
static int console_installed = 0;

void cs_unblock_signals(void) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_UNBLOCK, &all, 0);
}

static void on_signal(int number) {
    int bit = number == SIGINT ? CS_SIGNAL_INTERRUPT : number == SIGTERM ? CS_SIGNAL_TERMINATE
        : number == SIGHUP ? CS_SIGNAL_HANGUP : number == SIGWINCH ? CS_SIGNAL_RESIZE : CS_SIGNAL_QUIT;
    atomic_fetch_or(&pending, bit);
    int fd = atomic_load(&wake);
    if (fd >= 0) { char byte = 1; (void)!write(fd, &byte, 1); }
}

void cs_install_signal_handlers(int wake_fd) {
    atomic_store(&wake, wake_fd);
    atomic_store(&pending, 0);
    for (unsigned i = 0; i < sizeof console_signals / sizeof console_signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_signal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESTART;
        sigaction(console_signals[i], &action, &console_previous[i]);
    }
    console_installed = 1;
}

void cs_uninstall_signal_handlers(void) {
    if (!console_installed) return;
    for (unsigned i = 0; i < sizeof console_signals / sizeof console_signals[0]; i++) {
        sigaction(console_signals[i], &console_previous[i], 0);
    }
    console_installed = 0;
    atomic_store(&wake, -1);
}

int cs_take_signals(void) {
    return atomic_exchange(&pending, 0);
}

void cs_restore_terminal(void) {
    if (saved_valid && tty >= 0) tcsetattr(tty, TCSANOW, &saved);
    if (tty >= 0) {
        static const char reset[] = "\033[0m\033[?25h\033[?1049l";
        (void)!write(tty, reset, sizeof reset - 1);
    }
}

static void on_crash(int number) {
    cs_restore_terminal();
    sigaction(number, &previous[number], 0);
    raise(number);
}

void cs_install_crash_handlers(int tty_fd) {
    tty = tty_fd;
    if (tcgetattr(tty_fd, &saved) == 0) saved_valid = 1;
    int numbers[] = {SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGTRAP};
    for (unsigned i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_crash;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        sigaction(numbers[i], &action, &previous[numbers[i]]);
    }
}

int cs_raise(int number) {
    return raise(number);
}
