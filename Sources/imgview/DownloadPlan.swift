import Foundation
import ImgviewCore

/// Fetches one image through the service and saves it where `get` was told to.
struct DownloadPlan: Sendable {
    let service: ImageService
    let folder: URL
    let explicitFile: URL?
    let replace: Bool
    let display: ProgressDisplay

    func download(_ reference: ImageReference) async -> Result<URL, any Error> {
        do {
            // Refuse before downloading when the name is known already and taken.
            var destination = explicitFile ?? OutputNaming.fileName(for: reference.url).map { folder.appendingPathComponent($0) }
            if let known = destination, !replace, FileManager.default.fileExists(atPath: known.path) {
                throw OutputError.exists(known.path)
            }
            let label = reference.image?.name ?? OutputNaming.fileName(for: reference.url) ?? reference.url.absoluteString
            let response = try await service.image(for: ImageRequest(url: reference.url)) { received, expected in
                display.update(label, received: received, expected: expected)
            }
            display.done(label)
            if destination == nil {
                destination = folder.appendingPathComponent(
                    OutputNaming.fallbackName(catalogName: reference.image?.name, format: response.entry.format))
            }
            let path = destination!
            do {
                try response.write(to: path, replace: replace)
            } catch let error as FileSystemError {
                throw error.code == EEXIST ? OutputError.exists(path.path) : OutputError.cannotWrite(error.description)
            }
            return .success(path)
        } catch {
            return .failure(error)
        }
    }
}

/// Why a download could not be saved.
enum OutputError: UserFacingError {
    case exists(String)
    case notAFolder(String)
    case cannotWrite(String)

    var message: String {
        switch self {
        case .exists(let path): "\(TerminalText.sanitized(path)): file exists (use --force to overwrite)"
        case .notAFolder(let path): "\(TerminalText.sanitized(path)): no such folder"
        case .cannotWrite(let reason): reason
        }
    }

    var exitStatus: ExitStatus { .output }
}
