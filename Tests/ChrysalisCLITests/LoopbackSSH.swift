import Foundation
import TestSupport
import XCTest

/// A throwaway OpenSSH server on a loopback port, for as long as one test runs: its own
/// sshd_config, host key and client key in a temporary directory, `sshd -D` as a child process.
/// `start()` throws `EndToEnd.unavailable` (a skip, a failure under `CI=true`) where sshd or ssh is missing or cannot start.
final class LoopbackSSH {
    static let sshd = "/usr/sbin/sshd", ssh = "/usr/bin/ssh", keygen = "/usr/bin/ssh-keygen"

    let directory: URL
    let port: Int
    let user: String
    /// The client's private key; its path also tells this server's clients from any other ssh.
    let clientKey: String
    private var pid: pid_t
    private let log: String

    private init(directory: URL, port: Int, user: String, clientKey: String, pid: pid_t, log: String) {
        (self.directory, self.port, self.user, self.clientKey, self.pid, self.log) = (
            directory, port, user, clientKey, pid, log
        )
    }

    deinit { stop() }

    static func start() throws -> LoopbackSSH {
        for (path, package) in [(sshd, "openssh-server"), (ssh, "openssh-client"), (keygen, "openssh-client")]
        where !FileManager.default.isExecutableFile(atPath: path) {
            throw EndToEnd.unavailable(
                "\(path) is not installed (Debian package \(package)); the SSH console tests need it")
        }
        let directory = try Fixtures.makeTemporaryDirectory()
        var started: LoopbackSSH?
        defer { if started == nil { try? FileManager.default.removeItem(at: directory) } }
        let hostKey = directory.appendingPathComponent("host_ed25519").path,
            clientKey = directory.appendingPathComponent("client_ed25519").path
        for key in [hostKey, clientKey] {
            let made = try run(
                [keygen, "-q", "-t", "ed25519", "-N", "", "-C", "chrysalis-test", "-f", key], timeout: 30)
            guard made.status == 0 else {
                throw EndToEnd.unavailable("ssh-keygen could not make a throwaway key: \(made.output)")
            }
        }
        let user = String(cString: getpwuid(geteuid())!.pointee.pw_name)
        // sshd refuses to start without its privilege separation directory, which Debian's
        // service unit makes at boot; a container that never started the service lacks it.
        if geteuid() == 0, !FileManager.default.fileExists(atPath: "/run/sshd") {
            try? FileManager.default.createDirectory(
                atPath: "/run/sshd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        let config = directory.appendingPathComponent("sshd_config").path
        let log = directory.appendingPathComponent("sshd.log").path
        var failures: [String] = []
        for _ in 0..<5 {
            guard let port = freePort() else { throw EndToEnd.unavailable("no free loopback port for sshd") }
            try """
            ListenAddress 127.0.0.1
            Port \(port)
            HostKey \(hostKey)
            AuthorizedKeysFile \(clientKey).pub
            PidFile \(directory.appendingPathComponent("sshd.pid").path)
            UsePAM no
            StrictModes no
            PermitRootLogin yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PubkeyAuthentication yes
            AllowUsers \(user)
            PrintMotd no
            PrintLastLog no
            UseDNS no
            X11Forwarding no
            MaxStartups 100

            """.write(toFile: config, atomically: true, encoding: .utf8)
            let test = try run([sshd, "-t", "-f", config], timeout: 30)
            guard test.status == 0 else {
                throw EndToEnd.unavailable(
                    "sshd cannot start here (sshd -t: \(test.output.trimmingCharacters(in: .whitespacesAndNewlines)))")
            }
            try? FileManager.default.removeItem(atPath: log)
            let pid = try CleanSpawn.start(
                [sshd, "-D", "-f", config, "-E", log], output: directory.appendingPathComponent("sshd.out").path)
            // Listening is logged once the socket is bound; a port taken since freePort() makes it exit.
            let deadline = Date().addingTimeInterval(30)
            var exited = false, listening = false
            while Date() < deadline {
                if (try? String(contentsOfFile: log, encoding: .utf8))?.contains(
                    "Server listening on 127.0.0.1 port \(port)") == true
                {
                    listening = true; break
                }
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { exited = true; break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if listening {
                let server = LoopbackSSH(
                    directory: directory, port: port, user: user, clientKey: clientKey, pid: pid, log: log)
                // One login proves the keys, the config and the account before a test relies on them.
                let probe = try run(
                    [ssh] + server.options(tty: false) + ["\(user)@127.0.0.1", "echo chrysalis-ssh-ok"], timeout: 60)
                guard probe.status == 0, probe.output.contains("chrysalis-ssh-ok") else {
                    let serverLog = server.logText
                    server.stop()
                    throw EndToEnd.unavailable(
                        "cannot log in to the loopback sshd as \(user) (ssh exit \(probe.status)): \(probe.output)\nsshd log:\n\(serverLog)"
                    )
                }
                started = server
                return server
            }
            if !exited { kill(pid, SIGKILL); var status: Int32 = 0; waitpid(pid, &status, 0) }
            failures.append("port \(port): \(text.isEmpty ? "no output" : text)")
            guard text.contains("Bind to port") || text.contains("Address already in use") else { break }
        }
        throw EndToEnd.unavailable("sshd did not start on a loopback port: \(failures.joined(separator: "; "))")
    }

    /// Stops sshd (the sessions it forked end with their clients).
    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(10)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline { kill(pid, SIGKILL); waitpid(pid, &status, 0); break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        pid = 0
        try? FileManager.default.removeItem(at: directory)
    }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// The client's options: this server's key only, no user config, no known-hosts file, no prompts.
    private func options(tty: Bool) -> [String] {
        (tty ? ["-tt"] : ["-T"]) + [
            "-p", String(port), "-i", clientKey, "-F", "/dev/null",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
            "-o", "IdentitiesOnly=yes", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=30",
        ]
    }

    /// Shell text that runs `remote` (shell text for the remote side) over SSH with a terminal,
    /// as `ssh -tt … user@127.0.0.1 'remote'` does from a user's terminal.
    func command(_ remote: String) -> String {
        ([Self.ssh] + options(tty: true) + ["\(user)@127.0.0.1", remote]).map(TmuxSession.quote).joined(separator: " ")
    }

    /// The ssh clients of this server with a terminal, by pid.
    func clients() -> [pid_t] {
        Self.processes { $0.first == Self.ssh && $0.contains("-tt") && $0.contains(self.clientKey) }
    }

    /// Processes whose argument vector satisfies `predicate` (read from /proc; zombies have none).
    static func processes(where predicate: ([String]) -> Bool) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { pid_t($0) }.filter { pid in
            let fd = open("/proc/\(pid)/cmdline", O_RDONLY)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { break }
                bytes += buffer[0..<count]
            }
            guard !bytes.isEmpty else { return false }
            if bytes.last == 0 { bytes.removeLast() }
            return predicate(
                bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) })
        }
    }

    private static func freePort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// Runs `argv` to its end (killed after `timeout`), output and errors together.
    private static func run(_ argv: [String], timeout: TimeInterval) throws -> (status: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-ssh-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let pid = try CleanSpawn.start(argv, output: output)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline { kill(pid, SIGKILL); waitpid(pid, &status, 0); break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return ((status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), text)
    }
}
