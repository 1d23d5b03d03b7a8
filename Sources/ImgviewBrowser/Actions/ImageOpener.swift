import Dispatch
import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Opens files in the desktop's viewer without giving up the terminal: `$IMGVIEW_OPENER` if set,
/// else `xdg-open` where there is a desktop (a display) to open in.
///
/// The program runs in a session of its own, its standard streams on `/dev/null`, so it can
/// neither draw over the browser nor read its keys; it goes on after the browser quits.
public struct ImageOpener: Sendable {
    public enum Program: Sendable, Equatable {
        /// A shell command line the files are appended to, all in one call (`feh -F`, `open`).
        case command(String)
        /// `xdg-open` at this path, once per file (it takes one).
        case xdgOpen(String)
        /// Nothing can open files here, and why.
        case unavailable(String)
    }

    /// xdg-open starts one program per file: more than this at once is refused.
    public static let maxXDGFiles = 20

    public let program: Program

    public init(program: Program) {
        self.program = program
    }

    /// The program `environment` calls for: `IMGVIEW_OPENER`, else `xdg-open` when `DISPLAY` or
    /// `WAYLAND_DISPLAY` says there is a desktop (without one it would start a text browser in
    /// this terminal).
    public init(environment: [String: String]) {
        if let command = environment["IMGVIEW_OPENER"], !command.allSatisfy(\.isWhitespace) {
            program = .command(command)
        } else if (environment["DISPLAY"] ?? "").isEmpty, (environment["WAYLAND_DISPLAY"] ?? "").isEmpty {
            program = .unavailable("no desktop to open in (set IMGVIEW_OPENER to a program that opens images)")
        } else if let path = Self.find("xdg-open", in: environment["PATH"] ?? "/usr/bin:/bin") {
            program = .xdgOpen(path)
        } else {
            program = .unavailable("xdg-open is not installed (install xdg-utils, or set IMGVIEW_OPENER)")
        }
    }

    /// Opens `paths`; returns once the program has started and not failed within `grace` (or
    /// has ended well), with what it was, or one line on why it failed.
    public func open(_ paths: [String], grace: Duration = .seconds(2)) async -> Result<String, OpenerFailure> {
        let launches: [(path: String, arguments: [String], name: String)]
        switch program {
        case .unavailable(let reason):
            return .failure(OpenerFailure(message: reason))
        case .command(let command):
            // The user's text is a shell command line; the files follow it as its arguments.
            let name = command.split(separator: " ").first.map(String.init) ?? command
            launches = [("/bin/sh", ["-c", command + " \"$@\"", "imgview-opener"] + paths, name)]
        case .xdgOpen(let path):
            guard paths.count <= Self.maxXDGFiles else {
                return .failure(OpenerFailure(message: "xdg-open opens one file at a time: mark at most \(Self.maxXDGFiles)"))
            }
            launches = paths.map { (path, [$0], "xdg-open") }
        }
        let started = await BlockingWork.run { () -> Result<UncheckedBox<[ChildProcess]>, OpenerFailure> in
            var children: [ChildProcess] = []
            for launch in launches {
                do throws(ChildProcess.CannotStart) {
                    children.append(
                        try ChildProcess(
                            path: launch.path, arguments: launch.arguments, standardInput: .null, standardOutput: .null,
                            standardError: .null, newSession: true))
                } catch {
                    return .failure(OpenerFailure(message: "cannot run \(launch.name): \(error.reason)"))
                }
            }
            return .success(UncheckedBox(children))
        }
        let children: [ChildProcess]
        switch started {
        case .success(let box): children = box.value
        case .failure(let failure): return .failure(failure)
        }
        let name = launches.first?.name ?? ""
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
            let ended = children.compactMap { $0.exitStatusIfEnded() }
            if let failure = ended.first(where: { $0 != 0 }) {
                Self.reapInBackground(children)
                return .failure(OpenerFailure(message: "\(name) failed (exit \(failure))"))
            }
            if ended.count == children.count { return .success(name) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        // Still running, as a viewer does: it is reaped whenever it ends.
        Self.reapInBackground(children)
        return .success(name)
    }

    private static func reapInBackground(_ children: [ChildProcess]) {
        let box = UncheckedBox(children)
        DispatchQueue(label: "imgview.opener-reaper").async {
            for child in box.value { child.wait() }
        }
    }

    /// The first executable `name` in the folders of `path` (a `PATH` value).
    static func find(_ name: String, in path: String) -> String? {
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// Why the opener could not open the files: one line for the status line.
public struct OpenerFailure: Error, Sendable, Equatable {
    public var message: String
}

/// Hands a value that is not `Sendable` to the one thread that uses it next.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
