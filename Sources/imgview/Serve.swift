import ArgumentParser
import Foundation
import ImgviewProcess
import ImgviewServer
import ImgviewSupport

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
            let folder = try ImageFolder(directory: URL(fileURLWithPath: directory).standardizedFileURL)
            let server = try await LoopbackServer.start(port: port)
            let catalog = server.serve(folder)
            StandardOutput.write(catalog.jsonData())
            StandardOutput.write("\n")
            StandardError.print(
                "imgview: serving \(folder.entries.count) image\(folder.entries.count == 1 ? "" : "s") from \(TerminalText.sanitized(folder.directory.path)) at \(server.url(for: "/catalog.json").absoluteString) (Ctrl-C stops)"
            )
            let signal = await ProcessSignals.nextTermination()
            await server.stop()
            StandardError.print(
                "imgview: stopped (\(signal == SIGINT ? "interrupt" : signal == SIGTERM ? "terminate" : "signal \(signal)"))")
        }
    }
}
