import Foundation

/// Starts a program the way a login shell would, not the way the test runner is set up: an empty
/// signal mask and default dispositions (the runner's threads block signals that tmux, sshd and
/// the console rely on; tui-anchors §4.3), stdin from /dev/null, stdout and stderr to a file.
enum CleanSpawn {
    /// Starts `argv` (its first element an absolute path) with the test's environment; its pid.
    static func start(_ argv: [String], output: String) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGQUIT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid = pid_t()
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in environment { free(variable) } }
        let result = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environment)
        guard result == 0 else {
            throw NSError(
                domain: "spawn", code: Int(result), userInfo: [NSLocalizedDescriptionKey: "cannot start \(argv[0])"])
        }
        return pid
    }
}
