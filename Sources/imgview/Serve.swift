import ArgumentParser
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview {
    /// `imgview serve`: a folder of images over HTTP on loopback.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve a folder of images over HTTP on 127.0.0.1 and print a catalog for it.",
            discussion: """
                The catalog is printed to stdout and also served at /catalog.json, so either can be \
                given to --catalog:
                  imgview serve ~/Pictures > pictures.json
                  imgview --catalog http://127.0.0.1:8080/catalog.json list
                Ctrl-C stops the server.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The folder to serve.", completion: .directory)
        var directory: String = "."

        @Option(help: "The port to listen on (0: a free port).")
        var port: UInt16 = 0

        func run() async throws {
            // The server is a program of its own (ServerProgram); it takes this process's place, so
            // Ctrl-C and `kill` reach it as they reached `imgview serve`.
            try ServerProgram.replaceProcess(arguments: ["serve", directory, "--port", String(port)])
        }
    }
}
