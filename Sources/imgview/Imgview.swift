import ArgumentParser
import Dispatch
import ImgviewCodecs
import ImgviewProcess
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The `imgview` command: parses the command line, runs a subcommand, and turns errors into exit codes.
@main
struct Imgview: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "imgview",
        abstract: "Browse, download and preview images in the terminal.",
        discussion: """
            Images are files, folders and URLs named on the command line (imgview ~/Pictures), or \
            come from a catalog: the built-in one (image0, image1), a JSON file, or an http(s) URL \
            given with --catalog. Downloads go through a memory and a disk cache. Defaults come \
            from $XDG_CONFIG_HOME/imgview/config.toml (`imgview config` shows each setting and where \
            it came from; --no-config ignores the file).

            EXIT CODES
            \(ExitStatus.allCases.map { "  \(String($0.rawValue).padded(toLength: 4))\($0.summary)" }.joined(separator: "\n"))
            """,
        version: version,
        subcommands: [
            Browse.self, Demo.self, List.self, Get.self, Show.self, Info.self, Terminal.self, Serve.self, Cache.self, Config.self,
        ],
        defaultSubcommand: Browse.self
    )

    static func main() {
        // Every fatal signal handled, SIGPIPE ignored (a server that closes a connection must not
        // kill us while we write to it), before anything else runs.
        ProcessSignals.install()
        AllocatorPolicy.returnLargeBlocksToTheSystem()
        // `imgview --version` alone is answered before the parser reflects over every command's
        // options, which is most of what start-up costs (DECISIONS.md, "Start-up").
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            StandardOutput.write(version + "\n")
            return
        }
        do {
            let given = Array(CommandLine.arguments.dropFirst())
            // Without a global option there is nothing to move, and every command's configuration
            // need not be made to find the subcommands' names.
            let arguments =
                given.contains(where: GlobalOptions.mayBeMoved)
                ? GlobalOptions.movingLeadingGlobals(
                    in: given,
                    subcommands: Set(configuration.subcommands.map { $0._commandName }),
                    nested: Dictionary(
                        uniqueKeysWithValues: configuration.subcommands.map {
                            ($0._commandName, Set($0.configuration.subcommands.map { $0._commandName }))
                        })) : given
            var command = try parse(arguments)
            // Told apart by type, not by `as? any OneShotCommand`: a cast to a protocol scans every
            // conformance of the binary the first time it is asked.
            if let oneShot = oneShotCommands.first(where: { ObjectIdentifier($0) == ObjectIdentifier(type(of: command)) }) {
                try oneShot.runOnThisThread(command)
            } else if let asyncCommand = command as? any AsyncParsableCommand {
                runWithMainQueue(asyncCommand)
            } else {
                try command.run()
            }
        } catch {
            exit(reporting: error)
        }
    }

    /// The commands that run on the thread that parsed them.
    static let oneShotCommands: [any OneShotCommand.Type] = [Info.self, Show.self]

    /// Runs a long-lived command (the browser, the server) as an asynchronous `main` would: on
    /// Swift's global pool, with the main queue's loop on this thread for what lives on the main
    /// actor; the process ends when the command is done.
    private static func runWithMainQueue(_ command: sending any AsyncParsableCommand) -> Never {
        Task {
            var command = command
            do {
                try await command.run()
                Glibc.exit(0)
            } catch {
                exit(reporting: error)
            }
        }
        dispatchMain()
    }

    /// The command `arguments` name. A subcommand without subcommands of its own named first
    /// (`show`, `info`, `get`, …) is parsed on its own: from the root, ArgumentParser reflects
    /// over the root, over `browse` (the default subcommand, to see whether it takes everything
    /// after it) and over the subcommand four times before it parses it (DECISIONS.md, "Start-up
    /// of `show`"). Whatever that parse does not accept (`--help`, `--version`, a completion
    /// request, a usage error; help, which the parse returns as a command of its own) is parsed
    /// again from the root, so every answer and message is the root's, as before. `info` given only
    /// images is not parsed at all (`Info.withPlainArguments`).
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        if arguments.first == Info._commandName, let info = Info.withPlainArguments(Array(arguments.dropFirst())) { return info }
        if let name = arguments.first,
            let leaf = configuration.subcommands.first(where: { $0._commandName == name && $0.configuration.subcommands.isEmpty }),
            let command = try? leaf.parseAsRoot(Array(arguments.dropFirst())),
            // Help comes back as ArgumentParser's own command, which would name the subcommand alone.
            ObjectIdentifier(type(of: command)) == ObjectIdentifier(leaf)
        {
            return command
        }
        return try parseAsRoot(arguments)
    }

    /// Prints one line for `error` on stderr and exits with its documented code.
    static func exit(reporting error: any Error) -> Never {
        if let terminated = error as? Terminated { ProcessSignals.exit(terminatedBy: terminated.signal) }
        // After a request to end, a failure is most likely what the ending did (a temporary
        // folder removed under the work): the process ends as the request asked, not with it.
        if let number = ProcessSignals.terminationSignal { ProcessSignals.exit(terminatedBy: number) }
        if let error = error as? any UserFacingError {
            StandardError.print("imgview: \(error.message)")
            Glibc.exit(error.exitStatus.rawValue)
        }
        let code = exitCode(for: error)
        if code == .validationFailure {
            // ArgumentParser's usage errors exit 64; imgview documents 2, as GNU tools do.
            StandardError.print(fullMessage(for: error))
            Glibc.exit(ExitStatus.usage.rawValue)
        }
        self.exit(withError: error)
    }
}
