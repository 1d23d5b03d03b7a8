import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a catalog could not be used, naming the file (or URL) and the entry at fault.
public struct CatalogError: Error, Equatable, Sendable {
    /// Which entry of the catalog, when the problem is in one.
    public enum Entry: Equatable, Sendable {
        case index(Int, name: String?)
    }

    /// What is wrong.
    public enum Problem: Equatable, Sendable {
        case unreadable(String)
        case fetchFailed(String)
        case notJSON(String)
        case notAnObject
        case missingImages
        case imagesNotAnArray
        case empty
        case entryNotAnObject
        case missingField(String)
        case fieldNotAString(String)
        case invalidName(String)
        case duplicateName(String)
        case invalidURL(String)
        case unsupportedScheme(String)
        case invalidNext(String)
        case pagingLoop(String)
        case tooManyPages(Int)
        case tooLarge(Int)
    }

    public let origin: CatalogOrigin
    public let entry: Entry?
    public let problem: Problem

    public init(origin: CatalogOrigin, entry: Entry? = nil, problem: Problem) {
        self.origin = origin
        self.entry = entry
        self.problem = problem
    }
}

extension CatalogError: UserFacingError {
    public var exitStatus: ExitStatus { .catalog }

    public var message: String {
        var location = "catalog \(origin)"
        if case .index(let index, let name)? = entry {
            location += ", entry \(index + 1)"
            if let name { location += " (\"\(TerminalText.sanitized(name))\")" }
        }
        return "\(location): \(problemText)"
    }

    private var problemText: String {
        switch problem {
        case .unreadable(let reason): "cannot be read: \(reason)"
        case .fetchFailed(let reason): "cannot be fetched: \(reason)"
        case .notJSON(let reason): "is not valid JSON: \(reason)"
        case .notAnObject: "must be a JSON object with an \"images\" array"
        case .missingImages: "has no \"images\" array"
        case .imagesNotAnArray: "\"images\" must be an array"
        case .empty: "lists no images"
        case .entryNotAnObject: "must be an object with \"name\" and \"url\""
        case .missingField(let field): "has no \"\(field)\""
        case .fieldNotAString(let field): "\"\(field)\" must be a string"
        case .invalidName(let name):
            "invalid name \"\(TerminalText.sanitized(name))\": use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit, at most \(AppImage.maxNameLength) characters"
        case .duplicateName(let name): "duplicate name \"\(TerminalText.sanitized(name))\""
        case .invalidURL(let url): "invalid URL \"\(TerminalText.sanitized(url))\""
        case .unsupportedScheme(let scheme):
            "unsupported URL scheme \"\(TerminalText.sanitized(scheme))\" (use http, https or file)"
        case .invalidNext(let url): "invalid \"next\" URL \"\(TerminalText.sanitized(url))\""
        case .pagingLoop(let url): "\"next\" leads back to a page already read (\(TerminalText.sanitized(url)))"
        case .tooManyPages(let limit): "has more than \(limit) pages"
        case .tooLarge(let limit): "is larger than \(limit) bytes"
        }
    }
}
