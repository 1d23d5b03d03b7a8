import ArgumentParser
import ImgviewFetching
import ImgviewPipeline
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The images `show` and `info` were given, worked through one after another the way `get` works
/// through several: each failure is one line on stderr and the next image goes on; the exit status
/// is 0 when all succeeded, 1 when some failed, the first failure's code when all did.
struct ImageArguments {
    let arguments: [String]
    let global: GlobalOptions
    private let catalog: CatalogOnce

    /// - Parameter loader: the command's HTTP client, for the catalog if a name needs it.
    init(_ arguments: [String], global: GlobalOptions, loader: any DataLoading) {
        self.arguments = arguments
        self.global = global
        catalog = CatalogOnce(global: global, loader: loader)
    }

    /// Checks the arguments themselves: at least one, and `-` at most once (standard input is read once).
    static func validate(_ arguments: [String]) throws {
        if arguments.isEmpty {
            throw ValidationError("name an image: a file, a file:// or http(s) URL, a catalog name, or - for standard input")
        }
        if arguments.filter({ $0 == "-" }).count > 1 { throw ValidationError("- can be given once: standard input is read once") }
    }

    /// Standard input's bytes for the pipeline, if `-` is among the arguments.
    func suppliedImages(limit: Int64) throws -> [URL: Data] {
        guard arguments.contains("-") else { return [:] }
        return [URL.standardInput: try SuppliedImageFetcher.readStandardInput(limit: limit)]
    }

    /// Each argument's URL, or why it has none, in order (for work that starts them all at once).
    func resolved() async throws -> [(argument: String, url: Result<URL, any Error>)] {
        var resolved: [(String, Result<URL, any Error>)] = []
        for argument in arguments {
            do {
                resolved.append((argument, .success(try await imageURL(for: argument, global: global, catalog: catalog))))
            } catch let error where error is CancellationError {
                throw error
            } catch {
                resolved.append((argument, .failure(error)))
            }
        }
        return resolved
    }

    /// The error's line, naming the argument unless the message does already.
    static func line(for error: any Error, argument: String) -> String {
        message(for: error, argument: argument)
    }

    /// Runs `body` with each argument's URL, in order.
    func forEach(_ body: (_ argument: String, _ url: URL) async throws -> Void) async throws {
        guard arguments.count > 1 else {
            // One image: its error is the command's, as it always was.
            try await body(arguments[0], try await imageURL(for: arguments[0], global: global, catalog: catalog))
            return
        }
        var failures: [any Error] = []
        for argument in arguments {
            do {
                try await body(argument, try await imageURL(for: argument, global: global, catalog: catalog))
            } catch let error where error is CancellationError || (error as? ImagePipelineError) == .cancelled {
                throw error
            } catch {
                failures.append(error)
                StandardError.print("imgview: \(Self.message(for: error, argument: argument))")
            }
        }
        guard let first = failures.first else { return }
        if failures.count < arguments.count { throw ExitCode(ExitStatus.partialFailure.rawValue) }
        throw ExitCode((first as? any UserFacingError)?.exitStatus.rawValue ?? 1)
    }

    /// The error's line, naming the argument unless the message does already.
    private static func message(for error: any Error, argument: String) -> String {
        let message = (error as? any UserFacingError)?.message ?? TerminalText.sanitized(String(describing: error))
        let label = argument == "-" ? "standard input" : TerminalText.sanitized(argument)
        return message.contains(label) ? message : "\(label): \(message)"
    }
}
